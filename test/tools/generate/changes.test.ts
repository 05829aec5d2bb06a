/**
 * The generator's change-feed history (`data:generate-1m --change-days`), served by a real server
 * on 127.0.0.1 and read as a client would: a week of changes, paged, valid against the document.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { generateDataset } from "../../../tools/generate/generator";
import { createTestApp } from "../../support/app";
import { fetchPublished } from "../../support/fixture";
import { removeTempDirs, tempDir } from "../../support/temp-db";

const N = 5_000;
const DAYS = 30;
let path: string;
let app: ReturnType<typeof createTestApp>;
let root: string;

beforeAll(() => {
  path = join(tempDir(), "changes.sqlite");
  generateDataset({ endpoints: N, out: path, seed: 3, changeDays: DAYS });
  app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  root = `http://127.0.0.1:${app.server!.port}`;
});
afterAll(() => {
  app?.stop(true);
  app?.directory.close();
  removeTempDirs();
});

const fetchJson = async (target: string) => (await fetchPublished(app, root, target)).body;

const dump = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .query("SELECT version, entry_row_id, change, fields FROM entry_changes ORDER BY version, entry_row_id")
      .values();
  } finally {
    db.close();
  }
};

describe("generated change history", () => {
  test("the bulk load is no change; the history has a refresh and 24 probe versions a day, times ascending", () => {
    const db = new Database(path, { readonly: true });
    try {
      const versions = db.query("SELECT version, at FROM dataset_versions ORDER BY version").all() as {
        version: number;
        at: string;
      }[];
      // The days of history, then the generated version itself (which changed nothing).
      expect(versions).toHaveLength(DAYS * 25 + 1);
      const times = versions.map((v) => v.at);
      expect(times).toEqual([...times].sort());
      const newest = db.query("SELECT max(version) AS v FROM entry_changes").get() as { v: number };
      expect(newest.v).toBe(versions.at(-2)!.version);
      const kinds = db.query("SELECT change, count(*) AS n FROM entry_changes GROUP BY change").all();
      expect(kinds.map((k) => (k as { change: string }).change).sort()).toEqual(["added", "changed", "removed"]);
    } finally {
      db.close();
    }
  });

  test("the same seed gives the same history", () => {
    const again = join(tempDir(), "again.sqlite");
    generateDataset({ endpoints: N, out: again, seed: 3, changeDays: DAYS });
    expect(dump(again)).toEqual(dump(path));
  });

  test("a client asks for the last week and pages through it; every answer is one the document allows", async () => {
    const db = new Database(path, { readonly: true });
    const newest = db.query("SELECT max(at) AS at FROM dataset_versions").get() as { at: string };
    const weekAgo = new Date(Date.parse(newest.at) - 7 * 86_400_000).toISOString();
    const since = (
      db.query("SELECT max(version) AS v FROM dataset_versions WHERE at <= ?").get(weekAgo) as { v: number }
    ).v;
    const expected = (db.query("SELECT count(*) AS n FROM entry_changes WHERE version > ?").get(since) as { n: number })
      .n;
    db.close();
    let target: string | null = `/api/v1/changes?since=${since}&limit=1000`;
    let seen = 0;
    while (target !== null) {
      const body = await fetchJson(target);
      for (const change of body.data) expect(Date.parse(change.at)).toBeGreaterThan(Date.parse(weekAgo));
      seen += body.data.length;
      target = body.meta.next;
    }
    expect(expected).toBeGreaterThan(0);
    expect(seen).toBe(expected);
  });
});
