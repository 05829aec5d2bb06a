import type { Db } from "../db/client";
import { interleaveByHost, selectDueUrls } from "./due";
import { Prober, PROBE_DEFAULTS, type ProbeAdvancedOptions, type ProbeOptions } from "./prober";
import { recordProbes, type ProbeRecord } from "./store";

export interface ProbeRunSummary {
  probed: number;
  success: number;
  partial: number;
  failed: number;
  /** URLs whose server could not be reached at all (also counted in `failed`). */
  unresponsive: number;
  durationMs: number;
}

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
   * How long a result may wait for others to share its transaction. Default 0: results are
   * written on the next timer tick, so those that arrive together share one transaction and a
   * killed run loses little more than the requests in flight.
   */
  flushIntervalMs?: number;
}

export const DEFAULT_STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** Buffers results and writes them in small transactions, so a killed run loses little. */
class BatchWriter {
  private buffer: ProbeRecord[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  error: unknown = null;

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    private readonly batchSize: number,
    private readonly intervalMs: number,
    private readonly onError: () => void,
  ) {}

  add(record: ProbeRecord) {
    this.buffer.push(record);
    if (this.buffer.length >= this.batchSize) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  flush() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer.length === 0 || this.error) return;
    const batch = this.buffer;
    this.buffer = [];
    try {
      recordProbes(this.db, batch, this.now());
    } catch (error) {
      this.error = error;
      this.onError();
    }
  }
}

/**
 * Probes every distinct URL that is due (never probed, or probed longer ago than staleAfterMs),
 * writing results as they arrive. With `signal` aborted, stops starting URLs, drops the ones in
 * flight (the next run probes them) and returns what was stored.
 */
export async function probeDue(db: Db, opts: ProbeDueOptions = {}): Promise<ProbeRunSummary> {
  const started = performance.now();
  const now = opts.now ?? (() => new Date());
  const urls = interleaveByHost(
    selectDueUrls(db, { now: now(), staleAfterMs: opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS, vendorId: opts.vendorId, limit: opts.limit }),
  );
  const summary: ProbeRunSummary = { probed: 0, success: 0, partial: 0, failed: 0, unresponsive: 0, durationMs: 0 };
  const total = urls.length;
  opts.onProgress?.(0, total);
  if (total === 0) return { ...summary, durationMs: Math.round(performance.now() - started) };

  const stop = new AbortController();
  const onOuterAbort = () => stop.abort();
  opts.signal?.addEventListener("abort", onOuterAbort, { once: true });
  if (opts.signal?.aborted) stop.abort();
  const prober = new Prober({ ...opts, signal: stop.signal });
  const writer = new BatchWriter(db, now, opts.batchSize ?? 50, opts.flushIntervalMs ?? 0, () => stop.abort());

  // Each URL fetches its two documents in parallel, so twice as many URL workers as request slots
  // keep the limiter busy while some workers wait for a busy host.
  const workers = Math.min(total, 2 * Math.floor(opts.concurrency ?? PROBE_DEFAULTS.concurrency));
  let next = 0;
  let done = 0;
  const work = async () => {
    while (next < total && !stop.signal.aborted) {
      const url = urls[next++]!;
      const result = await prober.probe(url);
      if (stop.signal.aborted) return;
      writer.add({ url, result });
      summary.probed++;
      summary[result.probeStatus]++;
      if (result.entryStatus === "unresponsive") summary.unresponsive++;
      done++;
      opts.onProgress?.(done, total);
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, work));
  } finally {
    opts.signal?.removeEventListener("abort", onOuterAbort);
    writer.flush();
  }
  if (writer.error) throw writer.error;
  summary.durationMs = Math.round(performance.now() - started);
  return summary;
}
