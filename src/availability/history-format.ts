/**
 * The stored form of availability history (table `probe_history`, one row per probed URL) and
 * the roll-up that keeps it bounded. Pure functions: the probe writer, the pruning sweep, the
 * generator and the API all go through them.
 *
 * - `records`: one raw record per probe, 14 bytes, little-endian, in the order written:
 *   at (u48, ms since the epoch) · flags (u8: bits 0–1 outcome 0 failed / 1 partial / 2 success,
 *   bit 2 /metadata returned a CapabilityStatement) · error (u8, index in ERROR_CODES, 0 = none) ·
 *   /metadata HTTP status (u16, 0 = no response) · SMART HTTP status (u16, 0 = no response) ·
 *   /metadata response time (u16 ms, 65535 = no response, longer times saturate at 65534).
 *   Kept for the current UTC day and the RAW_DAYS days before it.
 * - `days`: daily figures of the days before that, 4 bytes per UTC day from `first_day`:
 *   probes (u8) · probes whose /metadata returned a CapabilityStatement (u8) · median and p95 of
 *   their response times (u8 each on a logarithmic scale, ±2.3 %; 0 = none). Kept DAILY_DAYS days.
 *   A day with more than 255 probes keeps its ratio: both counts are scaled down to fit.
 */
import type { ErrorKind, ProbeOutcomeStatus } from "../probe/types";

export const DAY_MS = 86_400_000;
export const RECORD_BYTES = 14;
export const DAY_BYTES = 4;
/** Raw records are kept for the current UTC day and this many days before it. */
export const RAW_DAYS = 30;
/** Daily figures are kept for this many days before the current UTC day. */
export const DAILY_DAYS = 400;

/** Stored as indexes: append only, never reorder. */
export const ERROR_CODES: readonly (ErrorKind | null)[] = [
  null,
  "dns",
  "refused",
  "tls",
  "timeout",
  "network",
  "invalid_url",
  "blocked",
  "too_many_redirects",
  "bad_redirect",
  "http_status",
  "body_timeout",
  "body_too_large",
  "invalid_json",
  "not_json_object",
  "not_capability_statement",
  "not_smart_configuration",
];
const ERROR_INDEX = new Map(ERROR_CODES.map((kind, i) => [kind, i]));
const OUTCOMES: readonly ProbeOutcomeStatus[] = ["failed", "partial", "success"];
const NO_TIME = 0xffff;

export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** One probe of a URL, as kept for RAW_DAYS days. */
export interface HistoryRecord {
  /** ms since the epoch. */
  at: number;
  outcome: ProbeOutcomeStatus;
  /** /metadata returned a CapabilityStatement (or DSTU2 Conformance). */
  up: boolean;
  /** Why /metadata did not: the probe's error class for that document; null when it did. */
  error: ErrorKind | null;
  httpStatus: number | null;
  smartHttpStatus: number | null;
  /** /metadata response time; null when no response arrived. */
  responseTimeMs: number | null;
}

/** One UTC day of one URL, as kept for DAILY_DAYS days after its raw records are gone. */
export interface DayFigures {
  probes: number;
  up: number;
  medianMs: number | null;
  p95Ms: number | null;
}

/** A probe_history row, decoded enough to roll it up. */
export interface HistoryRow {
  lastAt: number;
  lastUpAt: number | null;
  lastDownAt: number | null;
  records: Uint8Array;
  firstDay: number | null;
  days: Uint8Array | null;
}

/** The history key of a URL: a 64-bit hash, signed to fit SQLite's integer (the row id). */
export const urlKey = (url: string): bigint => BigInt.asIntN(64, BigInt(Bun.hash.wyhash(url)));

export function encodeRecord(record: HistoryRecord): Uint8Array {
  const bytes = new Uint8Array(RECORD_BYTES);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, record.at % 2 ** 32, true);
  view.setUint16(4, Math.floor(record.at / 2 ** 32), true);
  bytes[6] = OUTCOMES.indexOf(record.outcome) | (record.up ? 4 : 0);
  bytes[7] = ERROR_INDEX.get(record.error) ?? 0;
  view.setUint16(8, record.httpStatus ?? 0, true);
  view.setUint16(10, record.smartHttpStatus ?? 0, true);
  const ms = record.responseTimeMs;
  view.setUint16(12, ms === null ? NO_TIME : Math.min(NO_TIME - 1, Math.max(0, Math.round(ms))), true);
  return bytes;
}

export const recordCount = (records: Uint8Array) => Math.floor(records.length / RECORD_BYTES);

function viewOf(bytes: Uint8Array) {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The time of record `i` (ms). */
export function recordAt(records: Uint8Array, i: number): number {
  const view = viewOf(records);
  const o = i * RECORD_BYTES;
  return view.getUint32(o, true) + view.getUint16(o + 4, true) * 2 ** 32;
}

export function decodeRecord(records: Uint8Array, i: number): HistoryRecord {
  const view = viewOf(records);
  const o = i * RECORD_BYTES;
  const flags = records[o + 6]!;
  const http = view.getUint16(o + 8, true);
  const smart = view.getUint16(o + 10, true);
  const ms = view.getUint16(o + 12, true);
  return {
    at: recordAt(records, i),
    outcome: OUTCOMES[flags & 3] ?? "failed",
    up: (flags & 4) !== 0,
    error: ERROR_CODES[records[o + 7]!] ?? null,
    httpStatus: http === 0 ? null : http,
    smartHttpStatus: smart === 0 ? null : smart,
    responseTimeMs: ms === NO_TIME ? null : ms,
  };
}

/** Whether record `i` counts as up, and its response time (-1 when none): without decoding the rest. */
export const recordUp = (records: Uint8Array, i: number) => (records[i * RECORD_BYTES + 6]! & 4) !== 0;
export function recordTime(records: Uint8Array, i: number): number {
  const o = i * RECORD_BYTES + 12;
  const ms = records[o]! | (records[o + 1]! << 8);
  return ms === NO_TIME ? -1 : ms;
}

// Response times on a byte: code 1 + round(ln(1 + ms) / STEP), up to 65,535 ms.
const STEP = Math.log(65_536) / 254;
export const timeCode = (ms: number) => Math.min(255, 1 + Math.round(Math.log(1 + Math.max(0, ms)) / STEP));
export const codeTime = (code: number) => Math.round(Math.exp((code - 1) * STEP) - 1);

export function decodeDay(days: Uint8Array, i: number): DayFigures {
  const o = i * DAY_BYTES;
  return {
    probes: days[o]!,
    up: days[o + 1]!,
    medianMs: days[o + 2] === 0 ? null : codeTime(days[o + 2]!),
    p95Ms: days[o + 3] === 0 ? null : codeTime(days[o + 3]!),
  };
}

function encodeDay(days: Uint8Array, i: number, f: DayFigures) {
  let { probes, up } = f;
  if (probes > 255) {
    up = Math.round((up * 255) / probes);
    probes = 255;
  }
  const o = i * DAY_BYTES;
  days[o] = probes;
  days[o + 1] = up;
  days[o + 2] = f.medianMs === null ? 0 : timeCode(f.medianMs);
  days[o + 3] = f.p95Ms === null ? 0 : timeCode(f.p95Ms);
}

/** Median (mean of the two middle values when even, rounded) and p95 (nearest rank) of sorted values. */
export function medianAndP95(sorted: readonly number[]): { median: number | null; p95: number | null } {
  const n = sorted.length;
  if (n === 0) return { median: null, p95: null };
  const median = n % 2 === 1 ? sorted[(n - 1) / 2]! : Math.round((sorted[n / 2 - 1]! + sorted[n / 2]!) / 2);
  return { median, p95: sorted[Math.max(0, Math.ceil(0.95 * n) - 1)]! };
}

/**
 * The row as of `nowMs`: raw records of days before the current UTC day − RAW_DAYS become daily
 * figures, figures of days before the current day − DAILY_DAYS go, and so do last-up/last-down
 * times older than that. Returns null when nothing is left (the row is deleted), the same object
 * when nothing changed.
 */
export function rollUp(row: HistoryRow, nowMs: number): HistoryRow | null {
  const today = dayOf(nowMs);
  const rawFrom = today - RAW_DAYS;
  const dailyFrom = today - DAILY_DAYS;
  const count = recordCount(row.records);
  const expired = new Map<number, number[]>();
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const day = dayOf(recordAt(row.records, i));
    if (day >= rawFrom) kept++;
    else {
      const list = expired.get(day);
      if (list) list.push(i);
      else expired.set(day, [i]);
    }
  }
  const dayCount = row.days ? Math.floor(row.days.length / DAY_BYTES) : 0;
  const keepFrom = dailyFrom * DAY_MS;
  const lastUpAt = row.lastUpAt !== null && row.lastUpAt >= keepFrom ? row.lastUpAt : null;
  const lastDownAt = row.lastDownAt !== null && row.lastDownAt >= keepFrom ? row.lastDownAt : null;
  const daysStale = dayCount > 0 && row.firstDay! < dailyFrom;
  if (expired.size === 0 && !daysStale && lastUpAt === row.lastUpAt && lastDownAt === row.lastDownAt) return row;

  // Figures by day: the stored ones, then the expired records' (merged into a stored day, which
  // only happens when the clock went back).
  const figures = new Map<number, DayFigures>();
  for (let i = 0; i < dayCount; i++) {
    const f = decodeDay(row.days!, i);
    if (f.probes > 0) figures.set(row.firstDay! + i, f);
  }
  for (const [day, indexes] of expired) {
    const times: number[] = [];
    let up = 0;
    for (const i of indexes) {
      if (!recordUp(row.records, i)) continue;
      up++;
      const ms = recordTime(row.records, i);
      if (ms >= 0) times.push(ms);
    }
    times.sort((a, b) => a - b);
    const { median, p95 } = medianAndP95(times);
    const before = figures.get(day);
    figures.set(
      day,
      before && before.probes >= indexes.length
        ? { ...before, probes: before.probes + indexes.length, up: before.up + up }
        : {
            probes: indexes.length + (before?.probes ?? 0),
            up: up + (before?.up ?? 0),
            medianMs: median,
            p95Ms: p95,
          },
    );
  }
  const keptDays = [...figures.keys()].filter((day) => day >= dailyFrom && day < rawFrom).sort((a, b) => a - b);
  let firstDay: number | null = null;
  let days: Uint8Array | null = null;
  if (keptDays.length > 0) {
    firstDay = keptDays[0]!;
    days = new Uint8Array((keptDays.at(-1)! - firstDay + 1) * DAY_BYTES);
    for (const day of keptDays) encodeDay(days, day - firstDay, figures.get(day)!);
  }
  let records = row.records;
  if (kept < count) {
    records = new Uint8Array(kept * RECORD_BYTES);
    let at = 0;
    for (let i = 0; i < count; i++) {
      if (dayOf(recordAt(row.records, i)) < rawFrom) continue;
      records.set(row.records.subarray(i * RECORD_BYTES, (i + 1) * RECORD_BYTES), at);
      at += RECORD_BYTES;
    }
  }
  if (records.length === 0 && days === null) return null;
  return { lastAt: row.lastAt, lastUpAt, lastDownAt, records, firstDay, days };
}
