/**
 * The availability answers of one dataset version, computed when its directory index is built
 * (so the route reads no SQLite): per URL of the index's URL table, the answer's ingredients in
 * a few hundred bytes. An answer depends only on its URL's history and on the dataset version
 * (windows end at the dataset's last write or the URL's newest probe), so it is fixed per version.
 *
 * `bytes[offsets[u] .. offsets[u + 1])` for URL `u`:
 * - empty: never probed (no history, no probe).
 * - KIND_PROBED_AT, then the UTF-8 text of `probes.probed_at`: probed, but no history kept.
 * - KIND_HISTORY, then (little-endian) lastProbed · lastSuccessAt · lastFailureAt (u48 ms each,
 *   NO_TIME = null) · uptime 1d, 7d, 30d, 365d (u16 each, ten-thousandths, NO_VALUE = null) ·
 *   median and p95 response time (u16 ms, NO_VALUE = null) · count of recent probes (u8) · the
 *   recent probes, newest first, as 14-byte history records (history-format.ts).
 */
import type { Database } from "bun:sqlite";
import {
  DAY_BYTES,
  DAY_MS,
  medianAndP95,
  RECORD_BYTES,
  recordAt,
  recordCount,
  recordTime,
  recordUp,
  urlKey,
  writeU16,
  writeU48,
} from "../db/history-format";
import { scanHistory } from "../db/probe-history-statements";

export interface AvailabilityData {
  /** Per URL (index into the URL table), where its bytes start; one more entry than URLs. */
  offsets: Uint32Array;
  bytes: Uint8Array;
}

export const KIND_PROBED_AT = 0;
const KIND_HISTORY = 1;
export const NO_TIME = 2 ** 48 - 1;
export const NO_VALUE = 0xffff;
/** Byte offsets inside a KIND_HISTORY entry. */
export const AT = { lastProbed: 1, lastSuccess: 7, lastFailure: 13, uptime: 19, median: 27, p95: 29, count: 31 };
export const HISTORY_HEADER = 32;
const RECENT = 20;
const WINDOWS = [1, 7, 30, 365] as const;

/** A u16 field of an answer, `NO_VALUE` for null. */
const writeU16OrNone = (out: Uint8Array, o: number, value: number | null) => writeU16(out, o, value ?? NO_VALUE);

/**
 * The KIND_HISTORY entry of one probe_history row as of a dataset written at `datasetMs` (0 when
 * never): the counting the route did per request, done once.
 */
export function historyEntry(
  lastAt: number,
  lastUpAt: number | null,
  lastDownAt: number | null,
  records: Uint8Array,
  firstDay: number | null,
  days: Uint8Array | null,
  datasetMs: number,
): Uint8Array {
  const end = Math.max(datasetMs, lastAt);
  const from = WINDOWS.map((d) => end - d * DAY_MS);
  const probes = [0, 0, 0, 0];
  const up = [0, 0, 0, 0];
  const times: number[] = [];
  const count = recordCount(records);
  let ordered = true;
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const at = recordAt(records, i);
    if (at < previous) ordered = false;
    previous = at;
    const isUp = recordUp(records, i);
    for (let w = 0; w < WINDOWS.length; w++) {
      if (at <= from[w]!) continue;
      probes[w]!++;
      if (isUp) up[w]!++;
    }
    if (isUp && at > from[2]!) {
      const ms = recordTime(records, i);
      if (ms >= 0) times.push(ms);
    }
  }
  // Before the raw records: daily figures of whole UTC days inside the 365-day window.
  if (days !== null && firstDay !== null) {
    for (let i = 0, o = 0; o < days.length; i++, o += DAY_BYTES) {
      if ((firstDay + i) * DAY_MS <= from[3]!) continue;
      probes[3]! += days[o]!;
      up[3]! += days[o + 1]!;
    }
  }
  times.sort((a, b) => a - b);
  const { median, p95 } = medianAndP95(times);
  const recent = Math.min(RECENT, count);
  const out = new Uint8Array(HISTORY_HEADER + recent * RECORD_BYTES);
  out[0] = KIND_HISTORY;
  writeU48(out, AT.lastProbed, lastAt);
  writeU48(out, AT.lastSuccess, lastUpAt ?? NO_TIME);
  writeU48(out, AT.lastFailure, lastDownAt ?? NO_TIME);
  for (let w = 0; w < WINDOWS.length; w++)
    writeU16OrNone(out, AT.uptime + 2 * w, probes[w] === 0 ? null : Math.round((up[w]! / probes[w]!) * 10_000));
  writeU16OrNone(out, AT.median, median);
  writeU16OrNone(out, AT.p95, p95);
  out[AT.count] = recent;
  // Records are written in time order; sorted here only if a clock ever went back.
  const order = ordered
    ? null
    : Array.from({ length: count }, (_, i) => i).sort((a, b) => recordAt(records, a) - recordAt(records, b));
  for (let k = count - 1, n = 0; n < recent; k--, n++) {
    const i = order === null ? k : order[k]!;
    out.set(records.subarray(i * RECORD_BYTES, (i + 1) * RECORD_BYTES), HISTORY_HEADER + n * RECORD_BYTES);
  }
  return out;
}

const orNull = (value: bigint | null) => (value === null ? null : Number(value));

/**
 * Reads every probe_history row (call inside the index build's read transaction) and lays out
 * the entries of `urls`; `probedAt` gives the stored probe time of a URL without history.
 */
export function buildAvailabilityData(
  sqlite: Database,
  urls: readonly string[],
  probedAt: (url: string) => string | null,
  lastUpdated: string | null,
): AvailabilityData {
  const datasetMs = lastUpdated === null ? 0 : Date.parse(lastUpdated);
  const entries = new Map<bigint, Uint8Array>();
  for (const [key, lastAt, lastUpAt, lastDownAt, records, firstDay, days] of scanHistory(sqlite))
    entries.set(
      key,
      historyEntry(Number(lastAt), orNull(lastUpAt), orNull(lastDownAt), records, orNull(firstDay), days, datasetMs),
    );
  const encoder = new TextEncoder();
  const perUrl: (Uint8Array | null)[] = new Array(urls.length);
  let total = 0;
  for (let u = 0; u < urls.length; u++) {
    let entry = entries.get(urlKey(urls[u]!)) ?? null;
    if (entry === null) {
      const text = probedAt(urls[u]!);
      if (text !== null) {
        const utf8 = encoder.encode(text);
        entry = new Uint8Array(1 + utf8.length);
        entry[0] = KIND_PROBED_AT;
        entry.set(utf8, 1);
      }
    }
    perUrl[u] = entry;
    total += entry?.length ?? 0;
  }
  const offsets = new Uint32Array(urls.length + 1);
  const bytes = new Uint8Array(total);
  let at = 0;
  for (let u = 0; u < urls.length; u++) {
    offsets[u] = at;
    const entry = perUrl[u];
    if (entry) {
      bytes.set(entry, at);
      at += entry.length;
    }
  }
  offsets[urls.length] = at;
  return { offsets, bytes };
}
