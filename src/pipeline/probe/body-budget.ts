/**
 * The room a probe run gives large bodies. Every body up to `freeBytes` is read freely (every
 * real statement is: the largest known is 900 KB). Past it, a body holds room for every byte it
 * has read, taken as the bytes arrive out of `roomBytes` for the whole run, and keeps it until it
 * is read, decoded and checked (its parsed tree is let go then; the text of a body that is kept
 * goes on to the store). From the moment it is large it must also keep `pace` (fetch.ts cuts it
 * otherwise), so a body holds its room for at most `graceMs` + cap / `bytesPerSecond`, and many
 * slow servers at once hold only the bytes they sent: a run reads as many slow large bodies at
 * once as its room holds of them, not a fixed few.
 *
 * A read that finds no room does not wait with the body in hand (Bun's fetch goes on buffering a
 * body nobody reads): the request is dropped and asked again holding room for a whole body
 * (`reserveBytes`, the body cap), reserved in turn outside its host's slot (so requests waiting
 * for room hold no slot that good URLs need); holding it, the request goes first for its host's
 * next slot (limiter.ts), so the room waits only for one of that host's requests in flight. While
 * a reservation waits, bodies being read take no room that it needs, so it is served as soon as
 * the paced bodies ahead of it end. Nobody holding a slot waits for room (a read without room is
 * dropped), so the two cannot wait on each other.
 */
export class BodyBudget {
  private used = 0;
  private waiting: { grant: () => void }[] = [];

  constructor(
    readonly freeBytes: number,
    readonly roomBytes: number,
    /** The room a request asked again reserves: a whole body at the cap. At most `roomBytes`. */
    readonly reserveBytes: number,
    /** The least a large body must have received: `bytesPerSecond` after `graceMs`. */
    readonly pace: { bytesPerSecond: number; graceMs: number },
  ) {
    if (!(reserveBytes <= roomBytes)) throw new RangeError("a reservation must fit in the room");
  }

  /** What one document holds: its room, if it needed any, given back when it is done. `onWait`: see BodyLease. */
  lease(onWait?: () => void): BodyLease {
    return new BodyLease(this, onWait);
  }

  /** Room for `total` bytes of `lease`'s body now, or false; never takes what a reservation waits for. */
  tryGrow(lease: BodyLease, total: number): boolean {
    const more = total - lease.room;
    if (more <= 0) return true;
    const claimed = this.waiting.length > 0 ? this.reserveBytes : 0;
    if (this.used + more + claimed > this.roomBytes) return false;
    this.used += more;
    lease.room = total;
    return true;
  }

  /** Reserves room for a whole body, in turn. False when `signal` aborted first. */
  reserve(lease: BodyLease, signal?: AbortSignal): Promise<boolean> {
    const more = this.reserveBytes - lease.room;
    if (more <= 0) return Promise.resolve(true);
    if (this.waiting.length === 0 && this.used + more <= this.roomBytes) {
      this.used += more;
      lease.room = this.reserveBytes;
      return Promise.resolve(true);
    }
    if (signal?.aborted) return Promise.resolve(false);
    lease.onWait?.();
    return new Promise((resolve) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          this.used += this.reserveBytes - lease.room;
          lease.room = this.reserveBytes;
          resolve(true);
        },
      };
      const onAbort = () => {
        this.waiting = this.waiting.filter((w) => w !== waiter);
        this.serve();
        resolve(false);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Gives back the room of `lease` and serves the reservations that now fit. */
  giveBack(lease: BodyLease) {
    this.used -= lease.room;
    lease.room = 0;
    this.serve();
  }

  /** Bytes of room held now. */
  get inUse(): number {
    return this.used;
  }

  private serve() {
    while (this.waiting.length > 0 && this.used + this.reserveBytes <= this.roomBytes) this.waiting.shift()!.grant();
  }
}

export class BodyLease {
  /** The bytes of room it holds. */
  room = 0;
  constructor(
    private readonly budget: BodyBudget,
    /** Called when a reservation has to wait its turn (so a probe run's worker can go on). */
    readonly onWait?: () => void,
  ) {}
  /** Room for `total` bytes of its body, now or false (see BodyBudget.tryGrow). */
  grow(total: number): boolean {
    return this.budget.tryGrow(this, total);
  }
  /** Room for a whole body, in turn (see BodyBudget.reserve). */
  reserve(signal?: AbortSignal): Promise<boolean> {
    return this.budget.reserve(this, signal);
  }
  release() {
    this.budget.giveBack(this);
  }
}
