/** One export being sent: its progress (for Retry-After) and how to give its place back. */
export interface ExportSlot {
  /** Entries written so far, of `total`. */
  progress(done: number, total: number): void;
  /** Idempotent: the stream ended, failed or was cancelled. */
  release(): void;
}

interface Running {
  startedAt: number;
  done: number;
  total: number;
}

const DEFAULT_RETRY_SECONDS = 5;
const MAX_RETRY_SECONDS = 300;

/** Why no slot was given: the client already runs its share, or the server runs its most. */
export type ExportRefusal = "client" | "server";

/**
 * At most `perClient` exports in flight per client (an API key, else the address the rate
 * limiter identified), and at most `maxRunning` in the whole server (each holds a compressor
 * and its dataset version). A slot is held from the moment the response is created until its
 * body has been sent or the client went away.
 */
export class InFlightExports {
  private readonly running = new Map<string, Set<Running>>();
  /** Slots held, every client together. */
  private count = 0;

  constructor(
    readonly perClient = 2,
    private readonly now: () => number = () => performance.now(),
    readonly maxRunning = Number.POSITIVE_INFINITY,
  ) {}

  /** Exports running now, every client together. */
  get runningCount(): number {
    return this.count;
  }

  /** A slot for this client, or why there is none: it runs `perClient` exports, or the server `maxRunning`. */
  acquire(client: string): ExportSlot | ExportRefusal {
    let mine = this.running.get(client);
    if (mine && mine.size >= this.perClient) return "client";
    if (this.count >= this.maxRunning) return "server";
    if (!mine) {
      mine = new Set();
      this.running.set(client, mine);
    }
    const entry: Running = { startedAt: this.now(), done: 0, total: 0 };
    mine.add(entry);
    this.count++;
    let released = false;
    return {
      progress(done, total) {
        entry.done = done;
        entry.total = total;
      },
      release: () => {
        if (released) return;
        released = true;
        this.count--;
        mine.delete(entry);
        if (mine.size === 0 && this.running.get(client) === mine) this.running.delete(client);
      },
    };
  }

  /**
   * Whole seconds until the first of this client's exports (of every client's, for `null`) is
   * expected to finish, at its pace so far.
   */
  retryAfterSeconds(client: string | null): number {
    let soonest = Number.POSITIVE_INFINITY;
    const now = this.now();
    const groups = client === null ? [...this.running.values()] : [this.running.get(client) ?? []];
    for (const group of groups)
      for (const entry of group) {
        const elapsed = (now - entry.startedAt) / 1000;
        if (entry.done === 0 || elapsed <= 0) continue;
        soonest = Math.min(soonest, ((entry.total - entry.done) * elapsed) / entry.done);
      }
    if (!Number.isFinite(soonest)) return DEFAULT_RETRY_SECONDS;
    return Math.min(MAX_RETRY_SECONDS, Math.max(1, Math.ceil(soonest)));
  }
}
