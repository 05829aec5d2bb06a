import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";
import { tempDir } from "./temp-dirs";

export { removeTempDirs, tempDir } from "./temp-dirs";

/**
 * The tests' one way to a temporary database: a fresh directory under the system's temp dir
 * (`tempDir`, removed when the test file ends: ./temp-dirs.ts), a database path in one
 * (`tempDbPath`), or a database opened with every migration applied (`tempDatabase`).
 */
export const tempDbPath = (name = "test.sqlite"): string => join(tempDir(), name);

/** A new database file with every migration applied; `cleanup` closes it and deletes its directory. */
export function tempDatabase(name = "directory.sqlite"): { db: Db; path: string; cleanup: () => void } {
  const dir = tempDir();
  const path = join(dir, name);
  const db = openDatabase(path);
  return {
    db,
    path,
    cleanup: () => {
      db.sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The `n` a counting query (`SELECT COUNT(*) AS n …`) gives on the database at `path`, opened read-only for it. */
export function countRows(path: string, sql: string, ...params: (string | number)[]): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(sql).get(...params) as { n: number }).n;
  } finally {
    db.close();
  }
}
