import { Database } from "bun:sqlite";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fillCapabilityColumns } from "./capability-columns";
import { ensureDatabaseId } from "./dataset-meta";
import { fillBodyHashes } from "./probe-bodies";

export interface Db {
  sqlite: Database;
  path: string;
}

export const MIGRATIONS_FOLDER = join(import.meta.dir, "..", "..", "db", "migrations");

let newestMigration: number | undefined;

/**
 * When the newest migration of the journal was written (Drizzle records it as the migration's
 * `created_at`): read once per process, the journal being part of the code.
 */
function newestMigrationMillis(): number {
  if (newestMigration === undefined) {
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
      entries: { when: number }[];
    };
    newestMigration = Math.max(...journal.entries.map((entry) => entry.when));
  }
  return newestMigration;
}

/** The `created_at` of the newest migration applied to the database (Drizzle's table), or null for none. */
function newestAppliedMillis(sqlite: Database): number | null {
  const table = sqlite
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .values();
  if (table.length === 0) return null;
  const row = sqlite
    .prepare("SELECT created_at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1")
    .values()[0];
  return row ? Number(row[0]) : null;
}

/**
 * Applies the migrations the database lacks, with Drizzle's migrator. Drizzle applies each one
 * newer than the newest it recorded; when none is newer (most opens: the server's, every
 * command's on an existing file), its migrator and query builder (~110 modules, some 40 ms of CPU
 * at each process start) are not even loaded.
 */
function migrate(sqlite: Database) {
  const applied = newestAppliedMillis(sqlite);
  if (applied !== null && applied >= newestMigrationMillis()) return;
  const { applyMigrations } = require("./migrate") as typeof import("./migrate");
  applyMigrations(sqlite, MIGRATIONS_FOLDER);
}

function configure(sqlite: Database) {
  sqlite.exec("PRAGMA busy_timeout = 10000");
  sqlite.exec("PRAGMA foreign_keys = ON");
}

/**
 * Pages of a new database file. Probe rows carry whole CapabilityStatements (7-50 KB and more):
 * with SQLite's default 4 KB pages each is a chain of overflow pages, one read apiece; 16 KB
 * pages read a typical row in one. It applies only while the file is empty; existing files keep
 * theirs (`VACUUM` outside WAL mode converts one).
 */
const NEW_FILE_PAGE_SIZE = 16_384;

/** Opens (creating if needed) the database file, in WAL mode, with every migration applied. */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  configure(sqlite);
  sqlite.exec(`PRAGMA page_size = ${NEW_FILE_PAGE_SIZE}`);
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  // Writes to `entries` fire the change feed's trigger, which makes SQLite keep a statement
  // journal for each UPDATE; in a temporary file that added 7-15 % to a national refresh's
  // writes, in memory (one page per statement) nothing measurable (bench/changes.ts).
  sqlite.exec("PRAGMA temp_store = MEMORY");
  migrate(sqlite);
  fillBodyHashes(sqlite);
  fillCapabilityColumns(sqlite);
  ensureDatabaseId(sqlite);
  return { sqlite, path };
}

/**
 * Runs `work` with the page cache of `sqlite` raised to `kib` KiB, then sets the connection's own
 * size back (the memory given back): for bulk writes to a database that fits in it, which with
 * the default 2 MB read index pages back from the file again and again.
 */
export async function withPageCache<T>(sqlite: Database, kib: number, work: () => Promise<T>): Promise<T> {
  const own = (sqlite.query("PRAGMA cache_size").get() as { cache_size: number }).cache_size;
  sqlite.exec(`PRAGMA cache_size = -${kib}`);
  try {
    return await work();
  } finally {
    sqlite.exec(`PRAGMA cache_size = ${own}`);
  }
}

/** A second connection to an existing database, for readers that pin a snapshot. */
export function openReader(path: string): Database {
  const sqlite = new Database(path, { strict: true });
  configure(sqlite);
  sqlite.exec("PRAGMA query_only = ON");
  return sqlite;
}

/** A read-only connection that waits up to `busyTimeoutMs` for a writer (the index build's). */
export function openReadOnly(path: string, busyTimeoutMs: number): Database {
  const sqlite = new Database(path, { readonly: true });
  sqlite.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  return sqlite;
}

/**
 * Pins a version: a (deferred) read transaction on `sqlite`, so that everything read through it
 * until the connection closes sees the database as it was at the first read.
 */
export function beginRead(sqlite: Database) {
  sqlite.exec("BEGIN");
}

/**
 * Ends the read transaction `beginRead` opened, then closes the connection. Bun's close leaves a
 * connection whose prepared statements are not finalized yet open until they are collected, with
 * its transaction: until then the version it pinned would keep the write-ahead log from being
 * folded into the file (a checkpoint reports it busy, and the log grows with every write).
 */
export function closeReader(sqlite: Database) {
  if (sqlite.inTransaction) sqlite.exec("COMMIT");
  sqlite.close();
}
