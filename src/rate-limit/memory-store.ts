import type { RateLimitStore } from "./store";

/** One process's counters. Only the current window is kept: memory is bounded by one window's clients. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly synchronous = true;
  private window = -1;
  private counts = new Map<string, number>();

  hit(client: string, window: number): number {
    if (window !== this.window) {
      if (window < this.window) return 1;
      this.window = window;
      this.counts = new Map();
    }
    const count = (this.counts.get(client) ?? 0) + 1;
    this.counts.set(client, count);
    return count;
  }

  get size(): number {
    return this.counts.size;
  }
}
