import type { Db } from "../../db/client";
import { type ProbeRecord, storable } from "./record";
import { recordProbes } from "./store";

/** Where batches go: written in this thread, or posted to the store worker. */
interface Sink {
  write(batch: ProbeRecord[], at: string): void;
  /** Resolves when every batch handed over is written; rejects with the first write error. */
  drain(): Promise<void>;
}

class InlineSink implements Sink {
  constructor(
    private readonly db: Db,
    private readonly history: boolean,
  ) {}
  write(batch: ProbeRecord[], at: string) {
    recordProbes(this.db, batch, at, { history: this.history });
  }
  async drain() {}
}

/** Writes through a worker thread with its own connection to the same database file. */
class WorkerSink implements Sink {
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  private nextId = 0;
  private pending = 0;
  private failure: Error | null = null;
  private waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];

  constructor(
    path: string,
    private readonly history: boolean,
    private readonly onError: (error: Error) => void,
  ) {
    this.worker = new Worker(new URL("./store-worker.ts", import.meta.url).href);
    this.ready = new Promise<void>((resolve, reject) => {
      this.worker.onmessage = (event: MessageEvent<{ type: string; message?: string }>) => {
        const m = event.data;
        if (m.type === "opened") resolve();
        else if (m.type === "written") this.settle();
        else if (m.type === "error") {
          const error = new Error(`probe store worker: ${m.message}`);
          reject(error);
          this.fail(error);
        }
      };
      this.worker.onerror = (event) => {
        const error = new Error(`probe store worker crashed: ${event.message}`);
        reject(error);
        this.fail(error);
      };
    });
    this.ready.catch(() => {});
    this.worker.postMessage({ type: "open", path });
  }

  write(batch: ProbeRecord[], at: string) {
    if (this.failure) throw this.failure;
    this.pending++;
    this.worker.postMessage({ type: "write", id: this.nextId++, records: batch, at, history: this.history });
  }

  private settle() {
    this.pending--;
    if (this.pending === 0) for (const w of this.waiters.splice(0)) w.resolve();
  }

  private fail(error: Error) {
    if (!this.failure) {
      this.failure = error;
      this.onError(error);
    }
    for (const w of this.waiters.splice(0)) w.reject(error);
  }

  async drain() {
    try {
      await this.ready;
      if (this.pending > 0 && !this.failure)
        await new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
      if (this.failure) throw this.failure;
    } finally {
      await this.close();
    }
  }

  private async close() {
    if (!this.failure) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5000);
        this.worker.onmessage = (event: MessageEvent<{ type: string }>) => {
          if (event.data.type === "closed" || event.data.type === "error") {
            clearTimeout(timer);
            resolve();
          }
        };
        this.worker.postMessage({ type: "close" });
      });
    }
    this.worker.terminate();
  }
}

export interface WriterOptions {
  batchSize: number;
  intervalMs: number;
  /** Write through a worker thread (only for a database file). */
  useWorker: boolean;
  /** Also append each result to its URL's availability history (default true). */
  history?: boolean;
  now: () => Date;
  /** Called once with the first write error; the run then stops. */
  onError: (error: unknown) => void;
}

/**
 * Buffers results and writes them in small transactions, so a killed run loses little: when idle
 * a result is written on the next tick; while results stream in, at most one transaction per
 * `intervalMs` or per `batchSize` results.
 */
export class BatchWriter {
  private buffer: ProbeRecord[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastFlush = 0;
  private readonly sink: Sink;
  error: unknown = null;

  constructor(
    db: Db,
    private readonly options: WriterOptions,
  ) {
    const file = db.path !== "" && db.path !== ":memory:" && !db.path.startsWith("file::memory:");
    const history = options.history ?? true;
    this.sink =
      options.useWorker && file ? new WorkerSink(db.path, history, (e) => this.fail(e)) : new InlineSink(db, history);
  }

  add(record: ProbeRecord) {
    if (this.error) return;
    this.buffer.push({ url: record.url, result: storable(record.result) });
    if (this.buffer.length >= this.options.batchSize) this.flush();
    else if (!this.timer) {
      const wait = Math.max(0, this.lastFlush + this.options.intervalMs - performance.now());
      this.timer = setTimeout(() => this.flush(), wait);
    }
  }

  flush() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer.length === 0 || this.error) return;
    this.lastFlush = performance.now();
    const batch = this.buffer;
    this.buffer = [];
    try {
      this.sink.write(batch, this.options.now().toISOString());
    } catch (error) {
      this.fail(error);
    }
  }

  /** Writes what is buffered and waits until everything is stored. Throws the first write error. */
  async close(): Promise<void> {
    this.flush();
    try {
      await this.sink.drain();
    } catch (error) {
      this.fail(error);
    }
    if (this.error) throw this.error;
  }

  private fail(error: unknown) {
    if (this.error) return;
    this.error = error;
    this.options.onError(error);
  }
}
