/**
 * The availability answer computed straight from the database, the way the route computed it
 * before answers were precomputed into the directory index: the oracle the index is checked
 * against. Kept deliberately independent of src/directory/availability-data.ts and service.ts.
 */
import type { Database } from "bun:sqlite";
import { DAY_BYTES, DAY_MS, decodeDay, decodeRecord, recordCount, urlKey } from "../../../src/db/history-format";

const HISTORY_SQL =
  "SELECT last_at, last_up_at, last_down_at, records, first_day, days FROM probe_history WHERE url_key = ?1";
const PROBED_AT_SQL = "SELECT probed_at FROM probes WHERE url = ?1";
const RECENT = 20;
const WINDOWS = [1, 7, 30, 365] as const;

type Stored = [number, number | null, number | null, Uint8Array, number | null, Uint8Array | null];

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const ratio = (up: number, probes: number) => (probes === 0 ? null : Math.round((up / probes) * 10_000) / 10_000);
const json = (value: string | null) => (value === null ? "null" : JSON.stringify(value));
const number = (value: number | null) => (value === null ? "null" : String(value));
const EMPTY = `"uptime":{"1d":null,"7d":null,"30d":null,"365d":null},"responseTimeMs":{"median":null,"p95":null},"lastSuccessAt":null,"lastFailureAt":null,"recent":[]}}`;

/** The whole envelope of entry `id` (at `url`) as of a dataset last written at `lastUpdated`. */
export function referenceBody(sqlite: Database, id: string, url: string, lastUpdated: string | null): string {
  const head = `{"success":true,"data":{"endpointId":${json(id)},"url":${json(url)},"lastProbed":`;
  const row = sqlite.prepare(HISTORY_SQL).values(urlKey(url))[0] as Stored | undefined;
  if (!row) {
    const probed = sqlite.prepare(PROBED_AT_SQL).values(url)[0] as [string] | undefined;
    return `${head}${json(probed?.[0] ?? null)},${EMPTY}`;
  }
  const [lastAt, lastUpAt, lastDownAt, records, firstDay, days] = row;
  const end = Math.max(lastUpdated === null ? 0 : Date.parse(lastUpdated), lastAt);
  // Every record decoded, then each window filtered from scratch (no running counters).
  const all = Array.from({ length: recordCount(records) }, (_, i) => decodeRecord(records, i));
  const daily =
    days === null || firstDay === null
      ? []
      : Array.from({ length: days.length / DAY_BYTES }, (_, i) => ({
          start: (firstDay + i) * DAY_MS,
          ...decodeDay(days, i),
        }));
  const after = (windowDays: number) => end - windowDays * DAY_MS;
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  /** Up probes over probes later than the window's start; the 365-day window adds the daily figures. */
  const uptime = (windowDays: (typeof WINDOWS)[number]) => {
    const raw = all.filter((r) => r.at > after(windowDays));
    const older = windowDays === 365 ? daily.filter((d) => d.start > after(windowDays)) : [];
    const up = raw.filter((r) => r.up).length + sum(older.map((d) => d.up));
    return ratio(up, raw.length + sum(older.map((d) => d.probes)));
  };
  const [d1, d7, d30, d365] = WINDOWS.map(uptime);
  const times = all
    .filter((r) => r.up && r.at > after(30) && r.responseTimeMs !== null)
    .map((r) => r.responseTimeMs!)
    .sort((a, b) => a - b);
  // Median: the middle time, or the rounded mean of the two middle ones; p95: the nearest rank.
  const median =
    times.length === 0
      ? null
      : times.length % 2 === 1
        ? times[(times.length - 1) / 2]!
        : Math.round((times[times.length / 2 - 1]! + times[times.length / 2]!) / 2);
  const p95 = times.length === 0 ? null : times[Math.ceil(times.length * 0.95) - 1]!;
  let body =
    `${head}${json(iso(lastAt))},"uptime":{"1d":${number(d1!)},"7d":${number(d7!)},` +
    `"30d":${number(d30!)},"365d":${number(d365!)}},` +
    `"responseTimeMs":{"median":${number(median)},"p95":${number(p95)}},` +
    `"lastSuccessAt":${json(iso(lastUpAt))},"lastFailureAt":${json(iso(lastDownAt))},"recent":[`;
  // Newest first; of records of one millisecond, the one written later first.
  const newestFirst = all.map((r, i) => ({ r, i })).sort((a, b) => b.r.at - a.r.at || b.i - a.i);
  for (const [n, { r }] of newestFirst.slice(0, RECENT).entries()) {
    body +=
      `${n === 0 ? "" : ","}{"at":"${new Date(r.at).toISOString()}","outcome":"${r.outcome}","httpStatus":${number(r.httpStatus)},` +
      `"smartHttpStatus":${number(r.smartHttpStatus)},"responseTimeMs":${number(r.responseTimeMs)},"error":${json(r.error)}}`;
  }
  return `${body}]}}`;
}
