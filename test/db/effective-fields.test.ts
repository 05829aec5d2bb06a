import { expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client";
import { refreshEffectiveFields } from "../../src/db/effective-fields";
import { tempDbPath } from "../support/temp-db";

function setup() {
  const db = openDatabase(tempDbPath());
  db.sqlite.exec(`
    INSERT INTO vendors (id, name, endpoint_list_url, last_scraped_at) VALUES ('v', 'V', 'https://v.example/list', NULL);
    INSERT INTO entries (id, vendor_id, url, list_fhir_version, list_access, fhir_version, access, last_updated) VALUES
      ('probed', 'v', 'https://a.example', 'R4', '["patient"]', 'UNKNOWN', '[]', 't0'),
      ('failed-probe', 'v', 'https://b.example', 'DSTU2', '["provider"]', 'UNKNOWN', '[]', 't0'),
      ('unprobed', 'v', 'https://c.example', 'R4', '[]', 'R4', '[]', 't0'),
      ('elsewhere', 'v', 'https://d.example', 'R5', '["patient"]', 'UNKNOWN', '[]', 't0');
    INSERT INTO probe_bodies (id, sha256, body) VALUES (1, 'h1', '{}');
    INSERT INTO probes (url, probed_at, probe_status, metadata_body_id, fhir_version, access) VALUES
      ('https://a.example', 't', 'success', 1, 'STU3', '["patient","provider"]'),
      ('https://b.example', 't', 'failed', NULL, 'UNKNOWN', NULL);
  `);
  return db;
}

const rows = (db: ReturnType<typeof setup>) =>
  Object.fromEntries(
    (db.sqlite.prepare("SELECT id, fhir_version, access, last_updated FROM entries").values() as string[][]).map(
      ([id, ...rest]) => [id, rest],
    ),
  );

test("probe results win over list hints; without a usable probe the list hints apply; only the given URLs change", () => {
  const db = setup();
  expect(
    refreshEffectiveFields(
      db.sqlite,
      ["https://a.example", "https://b.example", "https://c.example", "https://a.example"],
      "t1",
    ),
  ).toBe(2);
  expect(rows(db)).toEqual({
    probed: ["STU3", '["patient","provider"]', "t1"],
    "failed-probe": ["DSTU2", '["provider"]', "t1"],
    unprobed: ["R4", "[]", "t0"],
    elsewhere: ["UNKNOWN", "[]", "t0"],
  });
});

test("a second run with nothing new changes nothing, lastUpdated included", () => {
  const db = setup();
  refreshEffectiveFields(db.sqlite, ["https://a.example", "https://b.example"], "t1");
  expect(refreshEffectiveFields(db.sqlite, ["https://a.example", "https://b.example"], "t2")).toBe(0);
  expect(rows(db).probed![2]).toBe("t1");
});
