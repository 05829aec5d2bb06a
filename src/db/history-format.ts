/**
 * The stored form of availability history (table `probe_history`, one row per probed URL) and
 * the roll-up that keeps it bounded. Pure functions: the probe writer, the pruning sweep, the
 * generator and the API all go through them.
 *
 * - `records`: one raw record per probe, 14 bytes, little-endian, in the order written:
 *   at (u48, ms since the epoch) · flags (u8: bits 0–1 outcome 0 failed / 1 partial / 2 success,
 *   bit 2 /metadata returned a CapabilityStatement) · error (u8, index in STORED_ERROR_KINDS, 0 = none) ·
 *   /metadata HTTP status (u16, 0 = no response) · SMART HTTP status (u16, 0 = no response) ·
 *   /metadata response time (u16 ms, 65535 = no response, longer times saturate at 65534).
 *   Kept for the current UTC day and the RAW_DAYS days before it.
 * - `days`: daily figures of the days before that, 4 bytes per UTC day from `first_day`:
 *   probes (u8) · probes whose /metadata returned a CapabilityStatement (u8) · median and p95 of
 *   their response times (u8 each on a logarithmic scale, ±2.3 %; 0 = none). Kept DAILY_DAYS days.
 *   A day with more than 255 probes keeps its ratio: both counts are scaled down to fit.
 */
import type { ErrorKind, ProbeOutcomeStatus } from "../model/probe";

export const DAY_MS = 86_400_000;
export const RECORD_BYTES = 14;
export const DAY_BYTES = 4;
/** Raw records are kept for the current UTC day and this many days before it. */
export const RAW_DAYS = 30;
/** Daily figures are kept for this many days before the current UTC day. */
export const DAILY_DAYS = 400;

/** Stored as indexes: append only, never reorder. */
export const STORED_ERROR_KINDS: readonly (ErrorKind | null)[] = [
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
  "certificate_expired",
  "certificate_self_signed",
  "certificate_untrusted",
  "certificate_name_mismatch",
  "body_too_complex",
];
const ERROR_INDEX = new Map(STORED_ERROR_KINDS.map((kind, i) => [kind, i]));
const OUTCOMES: readonly ProbeOutcomeStatus[] = ["failed", "partial", "success"];
/** A record's response time when no response arrived. */
export const NO_RESPONSE_TIME = 0xffff;

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

/** Little-endian unsigned integers of 16 and 48 bits: the records' fields and the index's answers. */
export const readU16 = (b: Uint8Array, o: number) => b[o]! | (b[o + 1]! << 8);

export const readU48 = (b: Uint8Array, o: number) =>
  ((b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0) + readU16(b, o + 4) * 2 ** 32;

export function writeU16(b: Uint8Array, o: number, value: number) {
  b[o] = value & 0xff;
  b[o + 1] = value >>> 8;
}

export function writeU48(b: Uint8Array, o: number, value: number) {
  const low = value % 2 ** 32;
  b[o] = low & 0xff;
  b[o + 1] = (low >>> 8) & 0xff;
  b[o + 2] = (low >>> 16) & 0xff;
  b[o + 3] = low >>> 24;
  writeU16(b, o + 4, Math.floor(value / 2 ** 32));
}

export function encodeRecord(record: HistoryRecord): Uint8Array {
  const bytes = new Uint8Array(RECORD_BYTES);
  writeRecord(bytes, 0, record);
  return bytes;
}

/** Writes `record` as record `i` of `records`. */
export function writeRecord(records: Uint8Array, i: number, record: HistoryRecord) {
  const o = i * RECORD_BYTES;
  const ms = record.responseTimeMs;
  writeU48(records, o, record.at);
  records[o + 6] = OUTCOMES.indexOf(record.outcome) | (record.up ? 4 : 0);
  records[o + 7] = ERROR_INDEX.get(record.error) ?? 0;
  writeU16(records, o + 8, record.httpStatus ?? 0);
  writeU16(records, o + 10, record.smartHttpStatus ?? 0);
  writeU16(
    records,
    o + 12,
    ms === null ? NO_RESPONSE_TIME : Math.min(NO_RESPONSE_TIME - 1, Math.max(0, Math.round(ms))),
  );
}

export const recordCount = (records: Uint8Array) => Math.floor(records.length / RECORD_BYTES);

/** The time of record `i` (ms). */
export const recordAt = (records: Uint8Array, i: number): number => readU48(records, i * RECORD_BYTES);

export function decodeRecord(records: Uint8Array, i: number): HistoryRecord {
  const o = i * RECORD_BYTES;
  const flags = records[o + 6]!;
  const http = readU16(records, o + 8);
  const smart = readU16(records, o + 10);
  const ms = readU16(records, o + 12);
  return {
    at: recordAt(records, i),
    outcome: OUTCOMES[flags & 3] ?? "failed",
    up: (flags & 4) !== 0,
    error: STORED_ERROR_KINDS[records[o + 7]!] ?? null,
    httpStatus: http === 0 ? null : http,
    smartHttpStatus: smart === 0 ? null : smart,
    responseTimeMs: ms === NO_RESPONSE_TIME ? null : ms,
  };
}

/** Whether record `i` counts as up, and its response time (-1 when none): without decoding the rest. */
export const recordUp = (records: Uint8Array, i: number) => (records[i * RECORD_BYTES + 6]! & 4) !== 0;
export function recordTime(records: Uint8Array, i: number): number {
  const ms = readU16(records, i * RECORD_BYTES + 12);
  return ms === NO_RESPONSE_TIME ? -1 : ms;
}

// Response times on a byte: code 1 + round(ln(1 + ms) / STEP), up to 65,535 ms.
const STEP = Math.log(65_536) / 254;
const timeCode = (ms: number) => Math.min(255, 1 + Math.round(Math.log(1 + Math.max(0, ms)) / STEP));
const codeTime = (code: number) => Math.round(Math.exp((code - 1) * STEP) - 1);

export function decodeDay(days: Uint8Array, i: number): DayFigures {
  const o = i * DAY_BYTES;
  return {
    probes: days[o]!,
    up: days[o + 1]!,
    medianMs: days[o + 2] === 0 ? null : codeTime(days[o + 2]!),
    p95Ms: days[o + 3] === 0 ? null : codeTime(days[o + 3]!),
  };
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
  const records = row.records;
  const count = recordCount(records);
  let expired = 0;
  let minDay = Number.POSITIVE_INFINITY;
  let maxDay = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < count; i++) {
    const day = dayOf(recordAt(records, i));
    if (day >= rawFrom) continue;
    expired++;
    if (day < minDay) minDay = day;
    if (day > maxDay) maxDay = day;
  }
  const stored = row.days !== null && row.firstDay !== null ? Math.floor(row.days.length / DAY_BYTES) : 0;
  const keepFrom = dailyFrom * DAY_MS;
  const lastUpAt = row.lastUpAt !== null && row.lastUpAt >= keepFrom ? row.lastUpAt : null;
  const lastDownAt = row.lastDownAt !== null && row.lastDownAt >= keepFrom ? row.lastDownAt : null;
  const daysStale = stored > 0 && row.firstDay! < dailyFrom;
  if (expired === 0 && !daysStale && lastUpAt === row.lastUpAt && lastDownAt === row.lastDownAt) return row;

  // Daily figures over [lo, hi]: the stored ones, plus the expired records' (a day both stored and
  // expired only happens when the clock went back: counts add up, stored times stay).
  const lo = Math.max(dailyFrom, Math.min(minDay, stored > 0 ? row.firstDay! : Number.POSITIVE_INFINITY));
  const hi = Math.min(
    rawFrom - 1,
    Math.max(maxDay, stored > 0 ? row.firstDay! + stored - 1 : Number.NEGATIVE_INFINITY),
  );
  let firstDay: number | null = null;
  let days: Uint8Array | null = null;
  if (hi >= lo) {
    const span = hi - lo + 1;
    const probes = new Int32Array(span);
    const up = new Int32Array(span);
    const codes = new Uint8Array(span * 2);
    for (let i = 0; i < stored; i++) {
      const d = row.firstDay! + i - lo;
      if (d < 0 || d >= span) continue;
      const o = i * DAY_BYTES;
      probes[d] = row.days![o]!;
      up[d] = row.days![o + 1]!;
      codes[d * 2] = row.days![o + 2]!;
      codes[d * 2 + 1] = row.days![o + 3]!;
    }
    // Response times of the expired up records, keyed day * 65536 + ms so one sort groups and orders them.
    const keys = new Float64Array(expired);
    let n = 0;
    for (let i = 0; i < count; i++) {
      const d = dayOf(recordAt(records, i)) - lo;
      if (d < 0 || d >= span) continue;
      probes[d]!++;
      if (!recordUp(records, i)) continue;
      up[d]!++;
      const ms = recordTime(records, i);
      if (ms >= 0) keys[n++] = d * 65_536 + ms;
    }
    const sorted = keys.subarray(0, n).sort();
    for (let start = 0; start < n; ) {
      const d = Math.floor(sorted[start]! / 65_536);
      let end = start;
      while (end < n && Math.floor(sorted[end]! / 65_536) === d) end++;
      if (codes[d * 2] === 0) {
        const k = end - start;
        const at = (j: number) => sorted[start + j]! - d * 65_536;
        const median = k % 2 === 1 ? at((k - 1) / 2) : Math.round((at(k / 2 - 1) + at(k / 2)) / 2);
        codes[d * 2] = timeCode(median);
        codes[d * 2 + 1] = timeCode(at(Math.max(0, Math.ceil(0.95 * k) - 1)));
      }
      start = end;
    }
    let first = 0;
    let last = span - 1;
    while (first <= last && probes[first] === 0) first++;
    while (last >= first && probes[last] === 0) last--;
    if (first <= last) {
      firstDay = lo + first;
      days = new Uint8Array((last - first + 1) * DAY_BYTES);
      for (let d = first; d <= last; d++) {
        let p = probes[d]!;
        let u = up[d]!;
        if (p > 255) {
          u = Math.round((u * 255) / p);
          p = 255;
        }
        const o = (d - first) * DAY_BYTES;
        days[o] = p;
        days[o + 1] = u;
        days[o + 2] = codes[d * 2]!;
        days[o + 3] = codes[d * 2 + 1]!;
      }
    }
  }
  let kept = records;
  if (expired > 0) {
    kept = new Uint8Array((count - expired) * RECORD_BYTES);
    let at = 0;
    for (let i = 0; i < count; i++) {
      if (dayOf(recordAt(records, i)) < rawFrom) continue;
      kept.set(records.subarray(i * RECORD_BYTES, (i + 1) * RECORD_BYTES), at);
      at += RECORD_BYTES;
    }
  }
  if (kept.length === 0 && days === null) return null;
  return { lastAt: row.lastAt, lastUpAt, lastDownAt, records: kept, firstDay, days };
}
