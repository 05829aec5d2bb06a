/**
 * Availability history, written with the probes: every probe appends one raw record to its URL's
 * `probe_history` row, inside the same transaction as the probes row, and rolls that row up as
 * of the probe's time (records older than 30 days become daily figures, figures older than 400
 * days go). Rows of URLs the run did not probe are rolled up by `pruneHistory` at the end of the
 * run. Layout and rules: src/db/history-format.ts.
 */
import type { Database } from "bun:sqlite";
import { markDatasetChanged } from "../../db/dataset-meta";
import {
  DAY_MS,
  dayOf,
  encodeRecord,
  type HistoryRow,
  RECORD_BYTES,
  recordAt,
  recordCount,
  recordUp,
  rollUp,
  urlKey,
} from "../../db/history-format";
import { historyStatements } from "../../db/probe-history-statements";
import type { ProbeRecord } from "./record";

/** Appends one record per probe result to its URL's history (call inside the probes' transaction). */
export function recordHistory(sqlite: Database, records: readonly ProbeRecord[], at: string) {
  const s = historyStatements(sqlite);
  const ms = Date.parse(at);
  for (const { url, result } of records) {
    const up = result.metadata.ok;
    const record = encodeRecord({
      at: ms,
      outcome: result.probeStatus,
      up,
      error: up ? null : (result.metadata.errorKind ?? null),
      httpStatus: result.metadata.httpStatus,
      smartHttpStatus: result.smart.httpStatus,
      responseTimeMs: result.metadata.httpStatus === null ? null : (result.metadata.durationMs ?? null),
    });
    const key = urlKey(url);
    const before = s.read(key);
    const appended = new Uint8Array((before?.records.length ?? 0) + RECORD_BYTES);
    if (before) appended.set(before.records);
    appended.set(record, appended.length - RECORD_BYTES);
    const row: HistoryRow = {
      lastAt: Math.max(ms, before?.lastAt ?? ms),
      lastUpAt: up ? Math.max(ms, before?.lastUpAt ?? ms) : (before?.lastUpAt ?? null),
      lastDownAt: up ? (before?.lastDownAt ?? null) : Math.max(ms, before?.lastDownAt ?? ms),
      records: appended,
      firstDay: before?.firstDay ?? null,
      days: before?.days ?? null,
    };
    const rolled = rollUp(row, ms);
    if (rolled) s.write(key, rolled, dayOf(ms));
    else s.remove(key);
  }
}

export interface PruneResult {
  /** Rows rolled up or trimmed. */
  changed: number;
  /** Rows deleted (no history left in the kept windows). */
  deleted: number;
}

/**
 * Rolls up, as of `now`, every history row not yet pruned today (URLs this run did not probe:
 * removed entries, other vendors, URLs no longer due), in transactions of `chunk` rows. A
 * transaction that changes what the API would answer also bumps the dataset version, so ETags
 * follow.
 */
export function pruneHistory(sqlite: Database, now: Date, chunk = 2_000): PruneResult {
  const s = historyStatements(sqlite);
  const nowMs = now.getTime();
  const today = dayOf(nowMs);
  const at = now.toISOString();
  const result: PruneResult = { changed: 0, deleted: 0 };
  const step = sqlite.transaction(() => {
    const keys = s.due(today, chunk);
    let changed = false;
    for (const key of keys) {
      const row = s.read(key)!;
      const rolled = rollUp(row, nowMs);
      if (rolled === null) {
        s.remove(key);
        result.deleted++;
        changed = true;
        continue;
      }
      if (rolled !== row) {
        result.changed++;
        changed = true;
      }
      s.write(key, rolled, today);
    }
    if (changed) markDatasetChanged(sqlite, at);
    return keys.length;
  });
  while (step.immediate() === chunk) {}
  return result;
}

/** 30-day uptime of each URL as of `now` (null: no probe in the window), for the run summary. */
export function uptimes30d(sqlite: Database, urls: readonly string[], now: Date): (number | null)[] {
  const s = historyStatements(sqlite);
  const from = now.getTime() - 30 * DAY_MS;
  return urls.map((url) => {
    const row = s.read(urlKey(url));
    if (!row) return null;
    let probes = 0;
    let up = 0;
    for (let i = 0; i < recordCount(row.records); i++) {
      if (recordAt(row.records, i) <= from) continue;
      probes++;
      if (recordUp(row.records, i)) up++;
    }
    return probes === 0 ? null : up / probes;
  });
}
