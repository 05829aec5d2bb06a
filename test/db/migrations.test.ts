import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AFTER_VERSION, readChanges, readChangesFrom } from "../../src/db/changes";
import { openDatabase } from "../../src/db/client";
import { markDatasetChanged } from "../../src/db/dataset-meta";
import { applyMigrations } from "../../src/db/migrate";
import { tempDbPath } from "../support/temp-db";

const MIGRATIONS = join(import.meta.dir, "..", "..", "db", "migrations");

const columns = (sqlite: Database, table: string) =>
  (sqlite.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
const indexes = (sqlite: Database) =>
  (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").values() as [string][]).map(([n]) => n);

test("a new database has no sort_key column or index: the read model computes the list order itself", () => {
  const db = openDatabase(tempDbPath());
  expect(columns(db.sqlite, "entries")).not.toContain("sort_key");
  expect(indexes(db.sqlite)).not.toContain("entries_sort_key");
  db.sqlite.close();
});

test("a database made by the first migration loses sort_key and keeps its entries when opened", () => {
  // Only the first migration: a database as the first release wrote it.
  const dir = mkdtempSync(join(tmpdir(), "migrations-"));
  try {
    const first = join(dir, "migrations");
    cpSync(join(MIGRATIONS, "0000_init.sql"), join(first, "0000_init.sql"), { recursive: true });
    const journal = JSON.parse(readFileSync(join(MIGRATIONS, "meta", "_journal.json"), "utf8"));
    journal.entries = journal.entries.slice(0, 1);
    cpSync(join(MIGRATIONS, "meta"), join(first, "meta"), { recursive: true });
    writeFileSync(join(first, "meta", "_journal.json"), JSON.stringify(journal));

    const path = join(dir, "old.sqlite");
    const old = new Database(path, { create: true });
    applyMigrations(old, first);
    old.exec(`
      INSERT INTO vendors VALUES ('v', 'Vendor', 'https://v.example/list', NULL);
      INSERT INTO entries (id, vendor_id, url, list_fhir_version, list_access, fhir_version, access, last_updated, sort_key)
        VALUES ('${"a".repeat(64)}', 'v', 'https://a.example/fhir', 'R4', '[]', 'R4', '[]', '2026-11-01T00:00:00.000Z', 'k');
    `);
    expect(columns(old, "entries")).toContain("sort_key");
    old.close();

    const db = openDatabase(path);
    expect(columns(db.sqlite, "entries")).not.toContain("sort_key");
    expect(indexes(db.sqlite)).not.toContain("entries_sort_key");
    expect(db.sqlite.prepare("SELECT id, url FROM entries").all()).toEqual([
      { id: "a".repeat(64), url: "https://a.example/fhir" },
    ]);
    db.sqlite.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** One vendor and one entry, as the columns of every release since the first can hold them. */
const ONE_ENTRY = `
      INSERT INTO vendors VALUES ('v', 'Vendor', 'https://v.example/list', NULL);
      INSERT INTO entries (id, vendor_id, url, list_fhir_version, list_access, fhir_version, access, last_updated)
        VALUES ('${"a".repeat(64)}', 'v', 'https://a.example/fhir', 'R4', '[]', 'R4', '[]', '2026-11-01T00:00:00.000Z');
`;

/** A database in `dir` with the migrations before `tag` applied: as an earlier release left it. */
function olderDatabase(dir: string, tag: string) {
  const older = join(dir, "migrations");
  const journal = JSON.parse(readFileSync(join(MIGRATIONS, "meta", "_journal.json"), "utf8"));
  journal.entries = journal.entries.filter((e: { tag: string }) => e.tag < tag);
  for (const entry of journal.entries as { tag: string }[])
    cpSync(join(MIGRATIONS, `${entry.tag}.sql`), join(older, `${entry.tag}.sql`));
  cpSync(join(MIGRATIONS, "meta"), join(older, "meta"), { recursive: true });
  writeFileSync(join(older, "meta", "_journal.json"), JSON.stringify(journal));
  const path = join(dir, "old.sqlite");
  const old = new Database(path, { create: true });
  applyMigrations(old, older);
  return { path, old };
}

test("a database from before entries recorded their evidence keeps its entries, listable, with the new columns empty", () => {
  const dir = mkdtempSync(join(tmpdir(), "migrations-"));
  try {
    const { path, old } = olderDatabase(dir, "0004");
    old.exec(ONE_ENTRY);
    expect(columns(old, "entries")).not.toContain("unusable");
    old.close();

    const db = openDatabase(path);
    expect(
      db.sqlite
        .prepare("SELECT id, unusable, version_evidence, state_evidence, url_evidence, first_seen FROM entries")
        .all(),
    ).toEqual([
      {
        id: "a".repeat(64),
        unusable: null,
        version_evidence: null,
        state_evidence: null,
        url_evidence: "published",
        first_seen: null,
      },
    ]);
    for (const column of ["published_url", "read_from", "sha256"])
      expect(columns(db.sqlite, "vendor_lists")).toContain(column);
    expect(columns(db.sqlite, "entry_sources")).toContain("last_seen");
    db.sqlite.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a database from before the change feed knows changes from the version it was at; later writes are recorded", () => {
  const dir = mkdtempSync(join(tmpdir(), "migrations-"));
  try {
    const { path, old } = olderDatabase(dir, "0005");
    old.exec(`${ONE_ENTRY}
      UPDATE dataset_meta SET value = '7' WHERE key = 'dataset_version';
    `);
    old.close();

    const db = openDatabase(path);
    expect(readChangesFrom(db.sqlite)).toBe(7);
    db.sqlite.transaction(() => {
      db.sqlite.exec(`
        UPDATE entries SET state = 'MA', last_updated = '2026-11-02T00:00:00.000Z';
        INSERT INTO entries (id, vendor_id, url, last_updated)
          VALUES ('${"b".repeat(64)}', 'v', 'https://b.example/fhir', '2026-11-02T00:00:00.000Z');`);
      markDatasetChanged(db.sqlite, "2026-11-02T00:00:00.000Z");
    })();
    // The entry the old database had is not new; the one written since is.
    expect(readChanges(db.sqlite, { version: 7, rowId: AFTER_VERSION }, 8, 10).changes).toEqual([
      [8, "2026-11-02T00:00:00.000Z", "changed", '{"state":{"from":null,"to":"MA"}}', 1],
      [8, "2026-11-02T00:00:00.000Z", "added", null, 2],
    ]);
    db.sqlite.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a database from before unusable entries recorded what was found keeps their reason, the detail empty", () => {
  const dir = mkdtempSync(join(tmpdir(), "migrations-"));
  try {
    const { path, old } = olderDatabase(dir, "0009");
    old.exec(ONE_ENTRY);
    old.exec("UPDATE entries SET unusable = 'web-page'");
    expect(columns(old, "entries")).not.toContain("unusable_detail");
    old.close();

    const db = openDatabase(path);
    expect(db.sqlite.prepare("SELECT unusable, unusable_detail FROM entries").all()).toEqual([
      { unusable: "web-page", unusable_detail: null },
    ]);
    db.sqlite.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
