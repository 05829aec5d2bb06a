import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";

/**
 * The tests' one way to a temporary database: a fresh directory under the system's temp dir
 * (`tempDir`), a database path in one (`tempDbPath`), or a database opened with every migration
 * applied (`tempDatabase`). `removeTempDirs()` deletes every directory made so far in this file.
 */
const created: string[] = [];

export function tempDir(prefix = "endpoint-directory-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

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
