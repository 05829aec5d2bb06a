import type { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";

/**
 * Applies every migration of `folder` (Drizzle's journal and SQL files) that the database has not
 * recorded yet, in one transaction. openDatabase loads this module only when one is due.
 */
export function applyMigrations(sqlite: Database, folder: string) {
  // The schema type given, not inferred: inferring it from drizzle()'s return type costs tsc ~4 s.
  migrate<Record<string, never>>(drizzle(sqlite), { migrationsFolder: folder });
}
