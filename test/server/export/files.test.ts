/**
 * The download files across a dataset version change: a file still being written when a newer
 * version's is asked for stops without an error (it is no failure to report), leaves no
 * temporary file behind, and the newer version's files are written whole.
 */
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { markDatasetChanged } from "../../../src/db/dataset-meta";
import { openDirectory } from "../../../src/directory/directory";
import { ExportFiles, SupersededWrite } from "../../../src/server/export/files";
import { fixtureDb } from "../../support/fixture";
import { removeTempDirs, tempDir } from "../../support/temp-db";

afterAll(() => removeTempDirs());

test("a file being written when a newer version's is asked for stops cleanly; the newer one is written", async () => {
  const db = fixtureDb();
  const directory = openDirectory(db, loadConfig({ DATABASE_PATH: db.path, LOG_LEVEL: "error" }));
  try {
    const older = directory.current;
    db.sqlite.transaction(() => {
      db.sqlite.run("UPDATE entries SET organization_name = 'Version Two Clinic' WHERE row_id = 1");
      markDatasetChanged(db.sqlite, "2026-11-26T00:00:00.000Z");
    })();
    expect(await directory.refreshIfChanged()).toBe(true);
    const newer = directory.current;
    expect(newer.version).toBeGreaterThan(older.version);

    const root = tempDir();
    const files = new ExportFiles(root, "https://directory.example.org");
    const whole = { queryWords: [] };
    // A request of the older version starts its file; one of the newer version comes before it is done.
    const first = files.get(older, "brands", whole);
    expect(first).toBeInstanceOf(Promise);
    const second = files.get(newer, "brands", whole);
    const outcome = await Promise.resolve(first).then(
      () => "written",
      (error: unknown) => error,
    );
    // Not a failed write (ENOENT at the rename, as when the newer version removed its temporary files).
    expect(outcome).toBeInstanceOf(SupersededWrite);
    const written = await second!;
    const bundle = JSON.parse(readFileSync(written.identity.path, "utf8")) as { entry: unknown[] };
    expect(bundle.entry.length).toBeGreaterThan(0);
    expect(JSON.stringify(bundle)).toContain("Version Two Clinic");
    const dir = join(written.identity.path, "..");
    expect(readdirSync(dir).sort()).toEqual([
      `v${newer.version}-brands.brands.json`,
      `v${newer.version}-brands.brands.json.gz`,
    ]);
  } finally {
    directory.close();
    db.sqlite.close();
  }
});
