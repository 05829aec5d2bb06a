/**
 * src/db/schema.ts describes the tables the migrations make: every table it declares exists in a
 * freshly migrated database with the same columns, each as nullable as declared, and no table of
 * that database (but Drizzle's own record and SQLite's) is missing from it.
 */
import { expect, test } from "bun:test";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../../src/db/schema";
import { tempDatabase } from "../support/temp-db";

test("schema.ts declares the tables and columns the migrations make", () => {
  const { db, cleanup } = tempDatabase();
  try {
    // Typed as the tables' common class: inferred, tsc would check each call on every table's type.
    const declared: SQLiteTable[] = Object.values<unknown>(schema).filter((value) => is(value, SQLiteTable));
    expect(declared.length).toBeGreaterThan(10);
    const migrated = db.sqlite
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations'",
      )
      .values()
      .map(([name]) => name as string);
    expect(declared.map((table) => getTableConfig(table).name).sort()).toEqual(migrated.sort());
    for (const table of declared) {
      const config = getTableConfig(table);
      const columns = db.sqlite.prepare('SELECT name, "notnull" FROM pragma_table_info(?)').values(config.name);
      const actual = columns.map(([name, notNull]) => `${name}${notNull ? " not null" : ""}`).sort();
      const expected = config.columns.map((column) => `${column.name}${column.notNull ? " not null" : ""}`).sort();
      expect({ table: config.name, columns: actual }).toEqual({ table: config.name, columns: expected });
    }
  } finally {
    cleanup();
  }
});
