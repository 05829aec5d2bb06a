import type { Db } from "../../db/client";
import { answeredAtLastProbe, entryStatusesOf, selectDueUrls, urlsAnsweredAtLastProbe } from "../../db/due-urls";
import { OUTAGE_DEFAULTS, type OutageRule, type ProbeResult } from "../../model/probe";
import { interleaveByHost } from "./due";
import { fetchDocument } from "./fetch";
import { pruneHistory, uptimes30d } from "./history";
import { anyCanaryAnswers, OutageWatch, steadiestUrls } from "./outage";
import { PROBE_DEFAULTS, type ProbeAdvancedOptions, type ProbeOptions, Prober } from "./prober";
import { type ProbeRunSummary, SummaryCollector } from "./summary";
import { BatchWriter } from "./writer";

export interface ProbeDueOptions extends ProbeOptions, ProbeAdvancedOptions {
  vendorId?: string;
  /** At most this many URLs. */
  limit?: number;
  /** A URL probed longer ago than this is due again. Default 24 h. */
  staleAfterMs?: number;
  now?: () => Date;
  onProgress?: (done: number, total: number) => void;
  /** Results are written in transactions of at most this many URLs. Default 50. */
  batchSize?: number;
  /**
   * A result is written on the next tick when the writer is idle; while results stream in,
   * at most one transaction per this many ms (or per batchSize results). Default 100 ms, so a
   * killed run loses the requests in flight and at most the last 100 ms of results.
   */
  flushIntervalMs?: number;
  /**
   * Write results through a worker thread with its own connection (database files only), so
   * SQLite's work stays off the thread driving the requests. Default true.
   */
  writeInWorker?: boolean;
  /**
   * Keep availability history (append each probe, prune, sum up uptime). Default true; false
   * only to measure what it costs (bench/probe.ts --compare).
   */
  history?: boolean;
  /** When a run takes the prober's own outage for the directory's (outage.ts); defaults OUTAGE_DEFAULTS. */
  outage?: Partial<OutageRule>;
}

export const DEFAULT_STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** True as soon as one of `checks` is; false when all are false or failed. */
function firstTrue(checks: Promise<boolean>[]): Promise<boolean> {
  return Promise.any(checks.map(async (check) => (await check) || Promise.reject())).then(
    () => true,
    () => false,
  );
}

/**
 * Probes every distinct URL that is due (never probed, or probed longer ago than staleAfterMs),
 * writing results as they arrive. With `signal` aborted, stops starting URLs, drops the ones in
 * flight (the next run probes them) and returns what was stored. At the end, rolls up the
 * availability history of URLs it did not probe (history retention) and sums up the 30-day
 * uptime of the URLs it did. Throws ProberOutageError when the prober lost the network
 * (outage.ts): what it held back of the last window is then not written.
 */
export async function probeDue(db: Db, opts: ProbeDueOptions = {}): Promise<ProbeRunSummary> {
  const started = performance.now();
  const now = opts.now ?? (() => new Date());
  const urls = interleaveByHost(
    selectDueUrls(db, {
      now: now(),
      staleAfterMs: opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS,
      vendorId: opts.vendorId,
      limit: opts.limit,
    }),
  );
  const summary = new SummaryCollector();
  const total = urls.length;
  opts.onProgress?.(0, total);
  const history = opts.history ?? true;
  if (total === 0) {
    if (history) pruneHistory(db.sqlite, now());
    return summary.finish(now(), [], Math.round(performance.now() - started));
  }
  const statusesOf = entryStatusesOf(db);

  const stop = new AbortController();
  const onOuterAbort = () => stop.abort();
  opts.signal?.addEventListener("abort", onOuterAbort, { once: true });
  if (opts.signal?.aborted) stop.abort();
  const prober = new Prober({ ...opts, signal: stop.signal });
  const writer = new BatchWriter(db, {
    batchSize: opts.batchSize ?? 50,
    intervalMs: opts.flushIntervalMs ?? 100,
    useWorker: opts.writeInWorker ?? true,
    history,
    now,
    onError: () => stop.abort(),
  });
  const rule: OutageRule = { ...OUTAGE_DEFAULTS, ...opts.outage };
  // The directory's own canaries are asked like any probed URL: through the guard and the limiter.
  const directoryAnswers = async (url: string) =>
    (await fetchDocument(url, "metadata", prober.config)).httpStatus !== null;
  const watch = new OutageWatch(
    rule,
    (record) => writer.add(record),
    answeredAtLastProbe(db),
    (directory) =>
      firstTrue([anyCanaryAnswers(rule.canaryUrls, prober.config.timeoutMs), ...directory.map(directoryAnswers)]),
    () => stop.abort(),
    // More than a check asks: those failing in the window are passed over.
    { steady: steadiestUrls(urlsAnsweredAtLastProbe(db), 12), graceMs: prober.config.timeoutMs },
  );

  // Each URL fetches its two documents in parallel, so twice as many URL workers as request slots
  // keep the limiter busy while some workers wait for a busy host.
  const workers = Math.min(total, 2 * Math.floor(opts.concurrency ?? PROBE_DEFAULTS.concurrency));
  let next = 0;
  let done = 0;
  const probedUrls: string[] = [];
  const finish = (url: string, result: ProbeResult) => {
    if (stop.signal.aborted) return;
    summary.add(url, result, statusesOf(url));
    watch.add({ url, result });
    probedUrls.push(url);
    done++;
    opts.onProgress?.(done, total);
  };
  // URLs whose worker went on while a large body of theirs waits for room (body-budget.ts): slow
  // large bodies then hold no worker, and the good URLs behind them go on.
  const waitingForRoom: Promise<void>[] = [];
  const WAITS = Symbol("waits for room");
  const work = async () => {
    while (next < total && !stop.signal.aborted) {
      const url = urls[next++]!;
      let waits!: () => void;
      const waiting = new Promise<typeof WAITS>((resolve) => {
        waits = () => resolve(WAITS);
      });
      const probing = prober.probe(url, waits);
      const first = await Promise.race([probing, waiting]);
      if (first === WAITS) waitingForRoom.push(probing.then((result) => finish(url, result)));
      else finish(url, first);
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, work));
    await Promise.all(waitingForRoom);
  } finally {
    opts.signal?.removeEventListener("abort", onOuterAbort);
    try {
      await watch.close();
    } finally {
      await writer.close();
    }
  }
  if (watch.lost) throw watch.lost;
  const end = now();
  if (history) pruneHistory(db.sqlite, end);
  return summary.finish(
    end,
    history ? uptimes30d(db.sqlite, probedUrls, end) : [],
    Math.round(performance.now() - started),
  );
}
