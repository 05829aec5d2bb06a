import type { DatasetSnapshot } from "../directory/snapshot";
import {
  DAY_BYTES,
  DAY_MS,
  decodeRecord,
  medianAndP95,
  recordAt,
  recordCount,
  recordTime,
  recordUp,
  urlKey,
} from "./history-format";

const HISTORY_SQL =
  "SELECT last_at, last_up_at, last_down_at, records, first_day, days FROM probe_history WHERE url_key = ?1";
const PROBED_AT_SQL = "SELECT probed_at FROM probes WHERE url = ?1";
const RECENT = 20;
const WINDOWS = [1, 7, 30, 365] as const;

type Stored = [number, number | null, number | null, Uint8Array, number | null, Uint8Array | null];

const datasetTimes = new WeakMap<DatasetSnapshot, number>();
/** When the pinned dataset version was written (ms); 0 when never. */
function datasetTime(snapshot: DatasetSnapshot): number {
  let ms = datasetTimes.get(snapshot);
  if (ms === undefined) {
    ms = snapshot.stats.lastUpdated === null ? 0 : Date.parse(snapshot.stats.lastUpdated);
    datasetTimes.set(snapshot, ms);
  }
  return ms;
}

/** "YYYY-MM-DDT" of a UTC day: history spans a few hundred days, so a small cache holds them all. */
const dayPrefixes = new Map<number, string>();
const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** `Date.prototype.toISOString` for times of years 1970–9999, without a Date per call (a hot path: 20+ per answer). */
function isoTime(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    if (dayPrefixes.size >= 4_096) dayPrefixes.clear();
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    dayPrefixes.set(day, prefix);
  }
  const t = ms - day * DAY_MS;
  const h = Math.floor(t / 3_600_000);
  const m = Math.floor((t % 3_600_000) / 60_000);
  const sec = Math.floor((t % 60_000) / 1000);
  return `${prefix}${pad(h, 2)}:${pad(m, 2)}:${pad(sec, 2)}.${pad(t % 1000, 3)}Z`;
}

const iso = (ms: number | null) => (ms === null ? null : isoTime(ms));
const ratio = (up: number, probes: number) => (probes === 0 ? null : Math.round((up / probes) * 10_000) / 10_000);

const json = (value: string | null) => (value === null ? "null" : JSON.stringify(value));
const number = (value: number | null) => (value === null ? "null" : String(value));
const EMPTY = `"uptime":{"1d":null,"7d":null,"30d":null,"365d":null},"responseTimeMs":{"median":null,"p95":null},"lastSuccessAt":null,"lastFailureAt":null,"recent":[]}}`;

/**
 * The availability answer (the whole envelope, in the order of the response schema) of an
 * entry's URL as of the dataset version `snapshot` pins: windows end at the dataset's last write
 * (or the URL's newest probe, if later), so the answer changes only with the dataset version and
 * its ETag holds. Null for an unknown id. Written out directly: its 20 recent probes are most of
 * the body, and this is a hot path.
 */
export function availabilityBody(snapshot: DatasetSnapshot, id: string): string | null {
  const url = snapshot.urlOf(id);
  if (url === null) return null;
  const head = `{"success":true,"data":{"endpointId":${json(id)},"url":${json(url)},"lastProbed":`;
  const row = snapshot.statement(HISTORY_SQL).values(urlKey(url))[0] as Stored | undefined;
  if (!row) {
    const probed = snapshot.statement(PROBED_AT_SQL).values(url)[0] as [string] | undefined;
    return `${head}${json(probed?.[0] ?? null)},${EMPTY}`;
  }
  const [lastAt, lastUpAt, lastDownAt, records, firstDay, days] = row;
  const end = Math.max(datasetTime(snapshot), lastAt);
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
  let body =
    `${head}${json(iso(lastAt))},"uptime":{"1d":${number(ratio(up[0]!, probes[0]!))},"7d":${number(ratio(up[1]!, probes[1]!))},` +
    `"30d":${number(ratio(up[2]!, probes[2]!))},"365d":${number(ratio(up[3]!, probes[3]!))}},` +
    `"responseTimeMs":{"median":${number(median)},"p95":${number(p95)}},` +
    `"lastSuccessAt":${json(iso(lastUpAt))},"lastFailureAt":${json(iso(lastDownAt))},"recent":[`;
  // Records are written in time order; sorted here only if a clock ever went back.
  const order = ordered
    ? null
    : Array.from({ length: count }, (_, i) => i).sort((a, b) => recordAt(records, a) - recordAt(records, b));
  for (let k = count - 1, n = 0; k >= 0 && n < RECENT; k--, n++) {
    const r = decodeRecord(records, order === null ? k : order[k]!);
    body +=
      `${n === 0 ? "" : ","}{"at":"${isoTime(r.at)}","outcome":"${r.outcome}","httpStatus":${number(r.httpStatus)},` +
      `"smartHttpStatus":${number(r.smartHttpStatus)},"responseTimeMs":${number(r.responseTimeMs)},"error":${json(r.error)}}`;
  }
  return `${body}]}}`;
}
