import type { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";

/**
 * Applies every migration of `folder` (Drizzle's journal and SQL files) that the database has not
 * recorded yet, in one transaction. openDatabase loads this module only when one is due.
 */
export function applyMigrations(sqlite: Database, folder: string) {
  migrate(drizzle(sqlite), { migrationsFolder: folder });
}
