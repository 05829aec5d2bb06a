import { mkdirSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type Db, openDatabase } from "./client";

let builds = 0;

function removeDatabaseFiles(path: string) {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${path}${suffix}`, { force: true });
}

/**
 * Builds a database file at `path` all at once: `fill` writes a new, migrated database in a
 * temporary file beside `path`, which is then made one self-contained file (no WAL beside it)
 * and renamed into place. When `fill` throws, the temporary file is removed and `path` is left
 * as it was: a failed build leaves nothing half-written.
 */
export async function buildDatabaseFile<T>(path: string, fill: (db: Db) => Promise<T>): Promise<T> {
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.building-${process.pid}-${++builds}`);
  removeDatabaseFiles(temp);
  try {
    const db = openDatabase(temp);
    let result: T;
    try {
      result = await fill(db);
      db.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.sqlite.exec("PRAGMA journal_mode = DELETE");
    } finally {
      db.sqlite.close();
    }
    // A WAL or shared-memory file left by an earlier database at `path` must not meet the new one.
    for (const suffix of ["-wal", "-shm", "-journal"]) rmSync(`${path}${suffix}`, { force: true });
    renameSync(temp, path);
    return result;
  } catch (error) {
    removeDatabaseFiles(temp);
    throw error;
  }
}
