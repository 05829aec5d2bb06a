import type { Database } from "bun:sqlite";
import type { HistoryRow } from "./history-format";
import { perConnection } from "./per-connection";

/**
 * The probe_history reads and writes of a connection, as typed functions over statements
 * prepared once (src/pipeline/probe/history.ts uses them).
 */
export interface HistoryStatements {
  /** The row under `key`, or null. */
  read(key: bigint): HistoryRow | null;
  /** Writes the row under `key`, rolled up as of `prunedDay`. */
  write(key: bigint, row: HistoryRow, prunedDay: number): void;
  remove(key: bigint): void;
  /** At most `limit` keys of rows last rolled up before `today`. */
  due(today: number, limit: number): bigint[];
}

export const historyStatements = perConnection((sqlite): HistoryStatements => {
  const read = sqlite.prepare(
    "SELECT last_at, last_up_at, last_down_at, records, first_day, days FROM probe_history WHERE url_key = ?1",
  );
  const write = sqlite.prepare(
    `INSERT INTO probe_history (url_key, last_at, last_up_at, last_down_at, pruned_day, records, first_day, days)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
     ON CONFLICT(url_key) DO UPDATE SET last_at = excluded.last_at, last_up_at = excluded.last_up_at,
       last_down_at = excluded.last_down_at, pruned_day = excluded.pruned_day, records = excluded.records,
       first_day = excluded.first_day, days = excluded.days`,
  );
  const remove = sqlite.prepare("DELETE FROM probe_history WHERE url_key = ?1");
  const due = sqlite.prepare("SELECT url_key FROM probe_history WHERE pruned_day < ?1 LIMIT ?2").safeIntegers(true);
  return {
    read(key) {
      const row = read.values(key)[0] as
        | [number, number | null, number | null, Uint8Array, number | null, Uint8Array | null]
        | undefined;
      if (!row) return null;
      const [lastAt, lastUpAt, lastDownAt, records, firstDay, days] = row;
      return { lastAt, lastUpAt, lastDownAt, records, firstDay, days };
    },
    write: (key, row, prunedDay) =>
      void write.run(key, row.lastAt, row.lastUpAt, row.lastDownAt, prunedDay, row.records, row.firstDay, row.days),
    remove: (key) => void remove.run(key),
    due: (today, limit) => (due.values(today, limit) as [bigint][]).map(([key]) => key),
  };
});

/** url_key, last_at, last_up_at, last_down_at, records, first_day, days (schema.ts, probeHistory). */
export type HistoryScan = [bigint, bigint, bigint | null, bigint | null, Uint8Array, bigint | null, Uint8Array | null];

const SCAN_CHUNK = 5_000;
const scanStatement = perConnection((sqlite) =>
  sqlite
    .prepare(
      "SELECT url_key, last_at, last_up_at, last_down_at, records, first_day, days FROM probe_history WHERE url_key >= ?1 ORDER BY url_key LIMIT ?2",
    )
    .safeIntegers(true),
);

/**
 * Every probe_history row in key order, read a chunk at a time (call inside a read transaction):
 * all rows at once would hold every URL's raw history in memory.
 */
export function* scanHistory(sqlite: Database): Generator<HistoryScan> {
  const scan = scanStatement(sqlite);
  for (let from = -(2n ** 63n); ; ) {
    const rows = scan.values(from, SCAN_CHUNK) as HistoryScan[];
    yield* rows;
    const last = rows[rows.length - 1]?.[0];
    if (rows.length < SCAN_CHUNK || last === 2n ** 63n - 1n) return;
    from = last! + 1n;
  }
}
