/**
 * How many large bodies a probe run reads at once. Every body up to `freeBytes` is read freely
 * (every real statement is: the largest known is 900 KB); a body past it needs one of `permits`
 * permits first, and keeps it until it is read, decoded and checked (its parsed tree is let go
 * then; the text of a body that is kept goes on to the store). While a body waits for a permit
 * its request's time-out is paused (the server's bytes wait in the socket). A permit is never
 * held while waiting for anything but its own body, so permits and request slots cannot wait on
 * each other.
 */
export class BodyBudget {
  private inUse = 0;
  private waiting: { turn: () => void }[] = [];

  constructor(
    readonly freeBytes: number,
    readonly permits: number,
  ) {}

  /** What one document holds: its permit, if it needed one, given back when it is done. */
  lease(): BodyLease {
    return new BodyLease(this);
  }

  /** Takes a permit now when one is free; else waits its turn (in order). False when `signal` aborted first. */
  take(lease: BodyLease, signal?: AbortSignal): Promise<boolean> {
    if (this.inUse < this.permits) {
      this.grant(lease);
      return Promise.resolve(true);
    }
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        turn: () => {
          signal?.removeEventListener("abort", onAbort);
          this.grant(lease);
          resolve(true);
        },
      };
      const onAbort = () => {
        this.waiting = this.waiting.filter((w) => w !== waiter);
        resolve(false);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Gives back the permits of `lease`, and lets the next waiters in. */
  giveBack(lease: BodyLease) {
    this.inUse -= lease.permits;
    lease.permits = 0;
    while (this.inUse < this.permits && this.waiting.length > 0) this.waiting.shift()!.turn();
  }

  private grant(lease: BodyLease) {
    this.inUse++;
    lease.permits++;
  }
}

export class BodyLease {
  permits = 0;
  constructor(private readonly budget: BodyBudget) {}
  /** A permit for one large body (see BodyBudget). */
  take(signal?: AbortSignal): Promise<boolean> {
    return this.budget.take(this, signal);
  }
  release() {
    this.budget.giveBack(this);
  }
}
