/** A host's requests in flight and waiting; `first` of the waiters (at their head) go before the others. */
interface HostState {
  active: number;
  waiters: (() => void)[];
  first: number;
  ready: boolean;
}

/**
 * Limits requests in flight: at most `global` in all, at most `perHost` for any one host.
 * Waiting for a busy host never holds a global slot, and hosts are served round-robin,
 * so one host with thousands of URLs cannot starve the others. A request asked with `first`
 * (one holding room for a large body, fetch.ts) goes ahead of its host's queue, and its host
 * ahead of the others, so it waits only for a slot to end, not for the requests queued before it.
 */
export class HostLimiter {
  private active = 0;
  private readonly hosts = new Map<string, HostState>();
  /** Hosts with waiters and a free host slot, waiting only for a global slot. */
  private readonly ready: string[] = [];
  private readyHead = 0;

  constructor(
    readonly global: number,
    readonly perHost: number,
  ) {
    if (!(global >= 1) || !(perHost >= 1)) throw new RangeError("limits must be at least 1");
  }

  get inFlight(): number {
    return this.active;
  }

  /** Resolves when a slot is granted; call `release(host)` exactly once afterwards. */
  acquire(host: string, first = false): Promise<void> {
    const state = this.host(host);
    if (this.active < this.global && state.active < this.perHost && (state.waiters.length === 0 || first)) {
      this.active++;
      state.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      if (first) {
        state.waiters.splice(state.first++, 0, resolve);
        // Its host moves to the head of the hosts waiting for a global slot.
        if (state.ready) {
          const at = this.ready.indexOf(host, this.readyHead);
          if (at >= 0) this.ready.splice(at, 1);
          state.ready = false;
        }
      } else state.waiters.push(resolve);
      this.markReady(host, state);
    });
  }

  release(host: string): void {
    const state = this.hosts.get(host);
    if (!state || state.active === 0) throw new Error(`release without acquire for ${host}`);
    this.active--;
    state.active--;
    this.markReady(host, state);
    this.pump();
    if (state.active === 0 && state.waiters.length === 0 && !state.ready) this.hosts.delete(host);
  }

  /** Runs `task` inside a slot for `host`. */
  async run<T>(host: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(host);
    try {
      return await task();
    } finally {
      this.release(host);
    }
  }

  private host(host: string) {
    let state = this.hosts.get(host);
    if (!state) {
      state = { active: 0, waiters: [], first: 0, ready: false };
      this.hosts.set(host, state);
    }
    return state;
  }

  private markReady(host: string, state: HostState) {
    this.queue(host, state);
    this.pump();
  }

  /** Puts a host with waiters and a free host slot in line for a global slot: at the head for a `first` waiter. */
  private queue(host: string, state: HostState) {
    if (state.ready || state.waiters.length === 0 || state.active >= this.perHost) return;
    state.ready = true;
    if (state.first > 0) this.ready.splice(this.readyHead, 0, host);
    else this.ready.push(host);
  }

  private pump() {
    while (this.active < this.global && this.readyHead < this.ready.length) {
      const host = this.ready[this.readyHead++]!;
      const state = this.hosts.get(host);
      if (!state) continue;
      state.ready = false;
      const waiter = state.waiters.shift();
      if (waiter) {
        if (state.first > 0) state.first--;
        this.active++;
        state.active++;
        waiter();
      }
      this.queue(host, state);
    }
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready.splice(0, this.readyHead);
      this.readyHead = 0;
    }
  }
}
