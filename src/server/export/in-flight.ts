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

/**
 * At most `perClient` exports in flight per client (an API key, else the address the rate
 * limiter identified). A slot is held from the moment the response is created until its body
 * has been sent or the client went away.
 */
export class InFlightExports {
  private readonly running = new Map<string, Set<Running>>();

  constructor(
    readonly perClient = 2,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A slot for this client, or null when it already has `perClient` exports running. */
  acquire(client: string): ExportSlot | null {
    let mine = this.running.get(client);
    if (mine && mine.size >= this.perClient) return null;
    if (!mine) {
      mine = new Set();
      this.running.set(client, mine);
    }
    const entry: Running = { startedAt: this.now(), done: 0, total: 0 };
    mine.add(entry);
    let released = false;
    return {
      progress(done, total) {
        entry.done = done;
        entry.total = total;
      },
      release: () => {
        if (released) return;
        released = true;
        mine.delete(entry);
        if (mine.size === 0 && this.running.get(client) === mine) this.running.delete(client);
      },
    };
  }

  /** Whole seconds until the first of this client's exports is expected to finish, at its pace so far. */
  retryAfterSeconds(client: string): number {
    let soonest = Number.POSITIVE_INFINITY;
    const now = this.now();
    for (const entry of this.running.get(client) ?? []) {
      const elapsed = (now - entry.startedAt) / 1000;
      if (entry.done === 0 || elapsed <= 0) continue;
      soonest = Math.min(soonest, ((entry.total - entry.done) * elapsed) / entry.done);
    }
    if (!Number.isFinite(soonest)) return DEFAULT_RETRY_SECONDS;
    return Math.min(MAX_RETRY_SECONDS, Math.max(1, Math.ceil(soonest)));
  }
}
