/**
 * How many large bodies a probe run reads at once. Every body up to `freeBytes` is read freely
 * (every real statement is: the largest known is 900 KB); a body past it needs one of `permits`
 * permits, and keeps it until it is read, decoded and checked (its parsed tree is let go then;
 * the text of a body that is kept goes on to the store). A request that meets a large body when
 * no permit is free does not wait with the body in hand (Bun's fetch goes on buffering a body
 * nobody reads): it drops the request, waits for a permit outside its host's slot, and asks
 * again holding it (fetch.ts). A permit is never held while waiting for anything but its own
 * body and its host's slot, and nobody holding a slot waits for a permit, so the two cannot wait
 * on each other. A permit is held only while its body keeps `pace` (fetch.ts cuts a body that
 * falls behind it), so slow servers cannot hold the permits, and every worker waiting for one, for
 * their whole time-out.
 */
export class BodyBudget {
  private inUse = 0;
  private waiting: { turn: () => void }[] = [];

  constructor(
    readonly freeBytes: number,
    readonly permits: number,
    /** The least a body holding a permit must have received: `bytesPerSecond` after `graceMs`. */
    readonly pace: { bytesPerSecond: number; graceMs: number },
  ) {}

  /** What one document holds: its permit, if it needed one, given back when it is done. */
  lease(): BodyLease {
    return new BodyLease(this);
  }

  /** Takes a permit when one is free and nobody waits for one; false otherwise. */
  tryTake(lease: BodyLease): boolean {
    if (this.inUse >= this.permits || this.waiting.length > 0) return false;
    this.grant(lease);
    return true;
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

  /** Gives back the permit of `lease`, if it holds one, and lets the next waiters in. */
  giveBack(lease: BodyLease) {
    if (lease.held) this.inUse--;
    lease.held = false;
    while (this.inUse < this.permits && this.waiting.length > 0) this.waiting.shift()!.turn();
  }

  private grant(lease: BodyLease) {
    this.inUse++;
    lease.held = true;
  }
}

export class BodyLease {
  /** Whether it holds a permit: at most one, taken only while it holds none (fetch.ts). */
  held = false;
  constructor(private readonly budget: BodyBudget) {}
  /** A permit for one large body (see BodyBudget). */
  take(signal?: AbortSignal): Promise<boolean> {
    return this.budget.take(this, signal);
  }
  /** A permit now, or false (see BodyBudget.tryTake). */
  tryTake(): boolean {
    return this.budget.tryTake(this);
  }
  release() {
    this.budget.giveBack(this);
  }
}
