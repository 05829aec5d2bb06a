import type { Database } from "bun:sqlite";

/**
 * `build(sqlite)` run once per connection and kept while the connection lives: the statements of
 * src/db are prepared once, then only bound and run (Drizzle's session would prepare again).
 */
export function perConnection<T>(build: (sqlite: Database) => T): (sqlite: Database) => T {
  const kept = new WeakMap<Database, T>();
  return (sqlite) => {
    let value = kept.get(sqlite);
    if (value === undefined) {
      value = build(sqlite);
      kept.set(sqlite, value);
    }
    return value;
  };
}
