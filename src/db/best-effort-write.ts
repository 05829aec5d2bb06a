import { Database } from "bun:sqlite";

/**
 * Opens a read-write connection of its own to the database at `path` (waiting up to 10 s for
 * another writer), runs `write` on it and closes it. Returns false instead of throwing when
 * `write` cannot be done (a read-only replica). `write` brings its own transaction, so that
 * each caller's write commits or fails apart from the others'.
 */
export function writeBestEffort(path: string, write: (sqlite: Database) => void): boolean {
  let sqlite: Database | undefined;
  try {
    sqlite = new Database(path, { readwrite: true });
    sqlite.exec("PRAGMA busy_timeout = 10000");
    write(sqlite);
    return true;
  } catch {
    return false;
  } finally {
    sqlite?.close();
  }
}
