import type { Database } from "bun:sqlite";
import { writeBestEffort } from "./best-effort-write";

/**
 * The newest directory index file kept inside the database itself, so that a copy of the
 * database file alone (a LiteFS replica, a restored backup) carries it: a server that finds no
 * index file beside such a copy reads it from here instead of building it (seconds instead of a
 * minute at a million entries). Stored uncompressed: at 1M entries zstd halves it (216 → 100 MB)
 * but its decompression cost as much as reading the rest. One row, for one format, version and database identity;
 * writing it records no dataset change. The index layer (src/directory) passes its file format
 * (DATA_FORMAT), so that a server of another format never reads the row.
 */
const TABLE = "directory_index";

/** Keeps `file` (the bytes of an index file of `format`) in the database at `path`; false when it cannot be written (a read-only replica). */
export function storeIndex(
  path: string,
  format: number,
  version: number,
  databaseId: string,
  file: Uint8Array,
): boolean {
  return writeBestEffort(path, (sqlite) => {
    sqlite.exec(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (format INTEGER NOT NULL, version INTEGER NOT NULL, database_id TEXT NOT NULL, bytes BLOB NOT NULL)`,
    );
    sqlite.transaction(() => {
      sqlite.run(`DELETE FROM ${TABLE}`);
      sqlite
        .prepare(`INSERT INTO ${TABLE} (format, version, database_id, bytes) VALUES (?, ?, ?, ?)`)
        .run(format, version, databaseId, file);
    })();
  });
}

/**
 * The index file bytes kept for this format, version and identity, read through `sqlite` (a pinned
 * reader), or null. A value that is not a blob (text written by another program) comes back as
 * text, for the loader to report as damaged.
 */
export function readStoredIndex(
  sqlite: Database,
  format: number,
  version: number,
  databaseId: string,
): Uint8Array | string | null {
  const exists = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(TABLE);
  if (!exists) return null;
  const row = sqlite
    .prepare(`SELECT bytes FROM ${TABLE} WHERE format = ? AND version = ? AND database_id = ?`)
    .values(format, version, databaseId)[0] as [unknown] | undefined;
  if (!row) return null;
  return row[0] instanceof Uint8Array ? row[0] : String(row[0]);
}
