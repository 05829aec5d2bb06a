import type { Database } from "bun:sqlite";

/** The keys of `dataset_meta` (src/db/schema.ts). */
type MetaKey =
  | "dataset_version"
  | "last_refresh_at"
  | "database_id"
  | "changes_from"
  | "changes_row_mark"
  | "generated_by";

/** One `dataset_meta` value, or null while the key is not there. */
export function readMetaValue(sqlite: Database, key: MetaKey): string | null {
  const row = sqlite.query("SELECT value FROM dataset_meta WHERE key = ?").get(key) as { value: string } | null;
  return row?.value ?? null;
}
