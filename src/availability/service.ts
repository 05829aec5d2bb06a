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
import type { AvailabilityRecord, RecentProbe } from "./schemas";

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

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const ratio = (up: number, probes: number) => (probes === 0 ? null : Math.round((up / probes) * 10_000) / 10_000);

/**
 * The availability of an entry's URL as of the dataset version `snapshot` pins: windows end at
 * the dataset's last write (or the URL's newest probe, if later), so the answer changes only
 * with the dataset version and its ETag holds. Null for an unknown id.
 */
export function availabilityOf(snapshot: DatasetSnapshot, id: string): AvailabilityRecord | null {
  const url = snapshot.urlOf(id);
  if (url === null) return null;
  const row = snapshot.statement(HISTORY_SQL).values(urlKey(url))[0] as Stored | undefined;
  if (!row) {
    const probed = snapshot.statement(PROBED_AT_SQL).values(url)[0] as [string] | undefined;
    return {
      endpointId: id,
      url,
      lastProbed: probed?.[0] ?? null,
      uptime: { "1d": null, "7d": null, "30d": null, "365d": null },
      responseTimeMs: { median: null, p95: null },
      lastSuccessAt: null,
      lastFailureAt: null,
      recent: [],
    };
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

  // Records are written in time order; sorted here only if a clock ever went back.
  const order = ordered
    ? null
    : Array.from({ length: count }, (_, i) => i).sort((a, b) => recordAt(records, a) - recordAt(records, b));
  const recent: RecentProbe[] = [];
  for (let k = count - 1; k >= 0 && recent.length < RECENT; k--) {
    const r = decodeRecord(records, order === null ? k : order[k]!);
    recent.push({
      at: iso(r.at)!,
      outcome: r.outcome,
      httpStatus: r.httpStatus,
      smartHttpStatus: r.smartHttpStatus,
      responseTimeMs: r.responseTimeMs,
      error: r.error,
    });
  }
  return {
    endpointId: id,
    url,
    lastProbed: iso(lastAt),
    uptime: {
      "1d": ratio(up[0]!, probes[0]!),
      "7d": ratio(up[1]!, probes[1]!),
      "30d": ratio(up[2]!, probes[2]!),
      "365d": ratio(up[3]!, probes[3]!),
    },
    responseTimeMs: { median, p95 },
    lastSuccessAt: iso(lastUpAt),
    lastFailureAt: iso(lastDownAt),
    recent,
  };
}
