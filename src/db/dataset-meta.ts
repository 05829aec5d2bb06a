import type { Database } from "bun:sqlite";

/**
 * Every write to the dataset calls this inside its transaction: readers compare the version to
 * know when to rebuild their in-memory index, and it is part of every ETag.
 */
export function markDatasetChanged(sqlite: Database, at: string) {
  sqlite.prepare("UPDATE dataset_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'dataset_version'").run();
  sqlite
    .prepare(
      "INSERT INTO dataset_meta (key, value) VALUES ('last_refresh_at', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    )
    .run(at);
}

export function readDatasetVersion(sqlite: Database): number {
  const row = sqlite.prepare("SELECT value FROM dataset_meta WHERE key = 'dataset_version'").get() as {
    value: string;
  } | null;
  return row ? Number(row.value) : 0;
}

export function readLastRefreshAt(sqlite: Database): string | null {
  const row = sqlite.prepare("SELECT value FROM dataset_meta WHERE key = 'last_refresh_at'").get() as {
    value: string;
  } | null;
  return row?.value ?? null;
}
