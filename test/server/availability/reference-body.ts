/**
 * The availability answer computed straight from the database, the way the route computed it
 * before answers were precomputed into the directory index: the oracle the index is checked
 * against. Kept deliberately independent of src/directory/availability-data.ts and service.ts.
 */
import type { Database } from "bun:sqlite";
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
} from "../../../src/db/history-format";

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
  const from = WINDOWS.map((d) => end - d * DAY_MS);
  const probes = [0, 0, 0, 0];
  const up = [0, 0, 0, 0];
  const times: number[] = [];
  const count = recordCount(records);
  for (let i = 0; i < count; i++) {
    const at = recordAt(records, i);
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
  // Newest first: a stable sort by time, so records of one millisecond keep their written order.
  const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => recordAt(records, a) - recordAt(records, b));
  for (let k = count - 1, n = 0; k >= 0 && n < RECENT; k--, n++) {
    const r = decodeRecord(records, order[k]!);
    body +=
      `${n === 0 ? "" : ","}{"at":"${new Date(r.at).toISOString()}","outcome":"${r.outcome}","httpStatus":${number(r.httpStatus)},` +
      `"smartHttpStatus":${number(r.smartHttpStatus)},"responseTimeMs":${number(r.responseTimeMs)},"error":${json(r.error)}}`;
  }
  return `${body}]}}`;
}
