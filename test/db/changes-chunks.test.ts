import { expect, test } from "bun:test";
import { markDatasetChanged, readDatasetVersion } from "../../src/db/dataset-meta";
import { tempDatabase } from "../support/temp-db";

test("a write that changes more entries than one read of pending rows holds records every change", () => {
  const { db, cleanup } = tempDatabase();
  try {
    const n = 10_000 * 2 + 7;
    db.sqlite.exec("INSERT INTO vendors (id, name, endpoint_list_url) VALUES ('v', 'V', 'https://v.example')");
    const insert = db.sqlite.prepare(
      "INSERT INTO entries (id, vendor_id, url, status, last_updated) VALUES (?1, 'v', ?2, 'listed', '2026-11-01T00:00:00Z')",
    );
    db.sqlite.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(i.toString(16).padStart(64, "0"), `https://h${i}.example/fhir`);
      markDatasetChanged(db.sqlite, "2026-11-01T00:00:00.000Z");
    })();
    db.sqlite.transaction(() => {
      db.sqlite.exec("UPDATE entries SET status = 'verified'");
      markDatasetChanged(db.sqlite, "2026-11-02T00:00:00.000Z");
    })();
    const version = readDatasetVersion(db.sqlite);
    const counts = db.sqlite
      .prepare("SELECT change, COUNT(*) FROM entry_changes WHERE version = ? GROUP BY change")
      .values(version);
    expect(counts).toEqual([["changed", n]]);
    expect(db.sqlite.prepare("SELECT COUNT(*) FROM entry_changes_pending").values()).toEqual([[0]]);
  } finally {
    cleanup();
  }
});
