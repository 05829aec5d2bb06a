/**
 * `data:generate-1m --history-days <n>`: availability history for every generated probe, in the
 * stored form the probe run writes (src/db/history-format.ts), rolled up as of the
 * generation instant. One probe a day per URL going back `days` days from its probes row; the
 * newest record is that probe. Hosts behave as real ones do: most answer almost always, some are
 * slow, some have outages of days (every URL on the host at once), some are flaky; URLs whose
 * latest probe got no response have been down for a while, URLs answering with an HTTP error
 * have always done so.
 */
import type { Database } from "bun:sqlite";
import {
  DAILY_DAYS,
  DAY_MS,
  dayOf,
  type HistoryRecord,
  RAW_DAYS,
  RECORD_BYTES,
  rollUp,
  urlKey,
  writeRecord,
} from "../../src/db/history-format";
import type { ErrorKind, ProbeOutcomeStatus } from "../../src/model/probe";
import { hashLabel, Rng } from "./prng";

/** More days than raw + daily retention would be rolled up and dropped at once. */
export const MAX_HISTORY_DAYS = RAW_DAYS + DAILY_DAYS + 1;

interface ProbeRow {
  url: string;
  probedAt: string;
  probeStatus: ProbeOutcomeStatus;
  metadataHttpStatus: number | null;
  smartHttpStatus: number | null;
  errorKind: string | null;
  durationMs: number | null;
}

interface Host {
  /** Typical /metadata time (ms). */
  baseMs: number;
  /** Chance that a probe on an ordinary day fails. */
  flakiness: number;
  /** Days (counted back from the newest probe) on which the host was down. */
  outage: Set<number>;
}

function hostOf(seed: number, host: string, days: number): Host {
  const rng = new Rng(hashLabel(`${seed}:host:${host}`));
  const kind = rng.next();
  const outage = new Set<number>();
  if (kind >= 0.85 && kind < 0.92) {
    for (let n = 1 + rng.int(3); n > 0; n--) {
      const start = 1 + rng.int(Math.max(1, days - 1));
      const length = 1 + rng.int(14);
      for (let d = start; d < start + length; d++) outage.add(d);
    }
  }
  return {
    baseMs: kind >= 0.92 && kind < 0.97 ? 2_000 + rng.int(6_000) : 80 + rng.int(520),
    flakiness: kind >= 0.97 ? 0.15 : 0.002,
    outage,
  };
}

/** Writes `days` days of history for every probes row, in transactions of 25,000 URLs. Returns the rows written. */
export function writeHistory(sqlite: Database, options: { days: number; seed: number; now: number }): number {
  const days = Math.min(options.days, MAX_HISTORY_DAYS);
  if (days <= 0) return 0;
  const probes = sqlite
    .prepare(
      `SELECT url, probed_at AS probedAt, probe_status AS probeStatus, metadata_http_status AS metadataHttpStatus,
        smart_http_status AS smartHttpStatus, error_kind AS errorKind, duration_ms AS durationMs FROM probes`,
    )
    .all() as ProbeRow[];
  const insert = sqlite.prepare(
    `INSERT INTO probe_history (url_key, last_at, last_up_at, last_down_at, pruned_day, records, first_day, days)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`,
  );
  const hosts = new Map<string, Host>();
  const buffer = new Uint8Array(days * RECORD_BYTES);
  const today = dayOf(options.now);
  let written = 0;
  sqlite.exec("BEGIN");
  for (const probe of probes) {
    const hostName = URL.canParse(probe.url) ? new URL(probe.url).host : "";
    let host = hosts.get(hostName);
    if (!host) {
      host = hostOf(options.seed, hostName, days);
      hosts.set(hostName, host);
    }
    const rng = new Rng(hashLabel(`${options.seed}:history:${probe.url}`));
    const newest = Date.parse(probe.probedAt);
    const answersNow = probe.metadataHttpStatus !== null && probe.metadataHttpStatus < 300;
    const unreachable = probe.metadataHttpStatus === null;
    // Unreachable now: down since some day in the last 200; before that like any URL on its host.
    const downSince = unreachable ? rng.int(Math.min(days, 200)) : -1;
    let lastUpAt: number | null = null;
    let lastDownAt: number | null = null;
    for (let k = days - 1, i = 0; k >= 0; k--, i++) {
      const at = k === 0 ? newest : newest - k * DAY_MS + rng.int(1_200_000) - 600_000;
      let record: HistoryRecord;
      if (k === 0) {
        record = {
          at,
          outcome: probe.probeStatus,
          up: answersNow,
          error: answersNow ? null : ((probe.errorKind as ErrorKind | null) ?? "http_status"),
          httpStatus: probe.metadataHttpStatus,
          smartHttpStatus: probe.smartHttpStatus,
          responseTimeMs: unreachable ? null : (probe.durationMs ?? host.baseMs),
        };
      } else {
        const down = (unreachable && k <= downSince) || host.outage.has(k) || rng.chance(host.flakiness);
        const slow = host.baseMs * (0.7 + rng.next() * (rng.chance(0.05) ? 4 : 0.8));
        if (!answersNow && !unreachable) {
          // Answers with an HTTP error (401, 403, 5xx) now: always has.
          record = {
            at,
            outcome: probe.probeStatus,
            up: false,
            error: "http_status",
            httpStatus: probe.metadataHttpStatus,
            smartHttpStatus: probe.smartHttpStatus,
            responseTimeMs: Math.round(slow / 4),
          };
        } else if (down) {
          const timeout = rng.chance(0.5);
          record = {
            at,
            outcome: "failed",
            up: false,
            error: timeout ? "timeout" : rng.pick(["dns", "refused", "tls"] as const),
            httpStatus: null,
            smartHttpStatus: null,
            responseTimeMs: null,
          };
        } else {
          record = {
            at,
            outcome: probe.smartHttpStatus === 200 ? "success" : "partial",
            up: true,
            error: null,
            httpStatus: 200,
            smartHttpStatus: probe.smartHttpStatus ?? 404,
            responseTimeMs: Math.round(slow),
          };
        }
      }
      if (record.up) lastUpAt = at;
      else lastDownAt = at;
      writeRecord(buffer, i, record);
    }
    const rolled = rollUp(
      {
        lastAt: newest,
        lastUpAt,
        lastDownAt,
        records: buffer.slice(0, days * RECORD_BYTES),
        firstDay: null,
        days: null,
      },
      options.now,
    );
    if (!rolled) continue;
    insert.run(
      urlKey(probe.url),
      rolled.lastAt,
      rolled.lastUpAt,
      rolled.lastDownAt,
      today,
      rolled.records,
      rolled.firstDay,
      rolled.days,
    );
    if (++written % 25_000 === 0) {
      sqlite.exec("COMMIT");
      sqlite.exec("BEGIN");
    }
  }
  sqlite.exec("COMMIT");
  return written;
}
