/**
 * Limits requests in flight: at most `global` in all, at most `perHost` for any one host.
 * Waiting for a busy host never holds a global slot, and hosts are served round-robin,
 * so one host with thousands of URLs cannot starve the others.
 */
export class HostLimiter {
  private active = 0;
  private readonly hosts = new Map<string, { active: number; waiters: (() => void)[]; ready: boolean }>();
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
  acquire(host: string): Promise<void> {
    const state = this.host(host);
    if (this.active < this.global && state.active < this.perHost && state.waiters.length === 0) {
      this.active++;
      state.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      state.waiters.push(resolve);
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
      state = { active: 0, waiters: [], ready: false };
      this.hosts.set(host, state);
    }
    return state;
  }

  private markReady(host: string, state: { active: number; waiters: (() => void)[]; ready: boolean }) {
    if (!state.ready && state.waiters.length > 0 && state.active < this.perHost) {
      state.ready = true;
      this.ready.push(host);
    }
    this.pump();
  }

  private pump() {
    while (this.active < this.global && this.readyHead < this.ready.length) {
      const host = this.ready[this.readyHead++]!;
      const state = this.hosts.get(host);
      if (!state) continue;
      state.ready = false;
      const waiter = state.waiters.shift();
      if (waiter) {
        this.active++;
        state.active++;
        waiter();
      }
      if (state.waiters.length > 0 && state.active < this.perHost) {
        state.ready = true;
        this.ready.push(host);
      }
    }
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready.splice(0, this.readyHead);
      this.readyHead = 0;
    }
  }
}
