import type { Database } from "bun:sqlite";
import { recordChanges, recordVersion } from "./changes";
import { readMetaValue } from "./meta-value";
import { writtenAt } from "./write-clock";

/**
 * Every write to the dataset calls this inside its transaction: readers compare the version to
 * know when to rebuild their in-memory index, and it is part of every ETag. The new version
 * records what the write changed in each entry (src/db/changes.ts), written at `at` (this
 * machine's time instead when `at` is ahead of it by more than a clock's skew: src/db/write-clock.ts).
 */
export function markDatasetChanged(sqlite: Database, claimedAt: string) {
  const at = writtenAt(claimedAt);
  sqlite.prepare("UPDATE dataset_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'dataset_version'").run();
  const version = readDatasetVersion(sqlite);
  recordVersion(sqlite, version, at);
  recordChanges(sqlite, version);
  sqlite
    .prepare(
      "INSERT INTO dataset_meta (key, value) VALUES ('last_refresh_at', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    )
    .run(at);
}

/**
 * Gives the database a random identity the first time it is opened for writing (kept for its
 * whole life, carried by copies of the file): the directory index files built from it carry it,
 * so an index left by another database at the same path is never served.
 */
export function ensureDatabaseId(sqlite: Database) {
  if (readDatabaseId(sqlite) !== "") return;
  sqlite
    .prepare("INSERT OR IGNORE INTO dataset_meta (key, value) VALUES ('database_id', lower(hex(randomblob(16))))")
    .run();
}

/** The database's identity ("" for a file never opened for writing since identities exist). */
export const readDatabaseId = (sqlite: Database): string => readMetaValue(sqlite, "database_id") ?? "";

export const readDatasetVersion = (sqlite: Database): number => Number(readMetaValue(sqlite, "dataset_version") ?? 0);

export const readLastRefreshAt = (sqlite: Database): string | null => readMetaValue(sqlite, "last_refresh_at");

/**
 * Marks a generated dataset (`data:sample`, `data:generate-1m`: invented hosts) with the command
 * that made it: the server never refreshes such a dataset (src/scheduler/refresh-scheduler.ts).
 */
export function markGenerated(sqlite: Database, command: string) {
  sqlite
    .prepare(
      "INSERT INTO dataset_meta (key, value) VALUES ('generated_by', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    )
    .run(command);
}

/** The command that generated this dataset, or null for a real directory (national or ingested). */
export const readGeneratedBy = (sqlite: Database): string | null => readMetaValue(sqlite, "generated_by");
