import type { RateLimitStore } from "./store";

/** Counters kept per window before new clients share overflow counters. */
const MAX_CLIENTS = 200_000;
/** Overflow counters: a client seen once the window is full counts in one of these, by hash. */
const OVERFLOW_BUCKETS = 4096;

/**
 * One process's counters. Only the current window is kept, and within it at most `maxClients`
 * clients have a counter of their own: once that many are counted, a new client (say, one of a
 * flood of rotated addresses) is counted in one of `OVERFLOW_BUCKETS` shared counters picked by
 * a hash of its name. Memory stays bounded, every request is still counted, and clients seen
 * before the flood keep their own quota; clients arriving during it may share theirs.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly synchronous = true;
  private window = -1;
  private counts = new Map<string, number>();

  constructor(private readonly maxClients = MAX_CLIENTS) {}

  hit(client: string, window: number): number {
    if (window !== this.window) {
      if (window < this.window) return 1;
      this.window = window;
      this.counts = new Map();
    }
    let key = client;
    let count = this.counts.get(key);
    if (count === undefined && this.counts.size >= this.maxClients) {
      key = `overflow:${Number(Bun.hash.wyhash(client) % BigInt(OVERFLOW_BUCKETS))}`;
      count = this.counts.get(key);
    }
    count = (count ?? 0) + 1;
    this.counts.set(key, count);
    return count;
  }

  peek(client: string, window: number): number {
    if (window !== this.window) return 0;
    const count = this.counts.get(client);
    if (count !== undefined || this.counts.size < this.maxClients) return count ?? 0;
    return this.counts.get(`overflow:${Number(Bun.hash.wyhash(client) % BigInt(OVERFLOW_BUCKETS))}`) ?? 0;
  }

  get size(): number {
    return this.counts.size;
  }
}
