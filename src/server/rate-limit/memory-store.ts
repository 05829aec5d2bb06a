import type { RateLimitStore } from "./store";

/** Clients with a counter of their own per window, before new clients share overflow counters. */
export const MAX_CLIENTS = 200_000;
/**
 * Overflow counters: a client first seen once MAX_CLIENTS are counted counts in one of these,
 * by a keyed hash of its name. Filling all of them takes more than 65,536 × the anonymous quota
 * (4 million) requests beyond the first MAX_CLIENTS clients in one window.
 */
export const OVERFLOW_BUCKETS = 65_536;
/** Per-entry counters kept per window; beyond, the oldest is forgotten (which only ever counts more). */
export const MAX_ENTRY_COUNTERS = 200_000;

/** A random 64-bit key per store: an outsider cannot tell which names share a counter. */
const randomKey = () => crypto.getRandomValues(new BigUint64Array(1))[0]!;

/**
 * One process's counters. Only the current window is kept. Clients and their per-entry counters
 * live apart, so entries read never take a client's place:
 * - clients: at most `maxClients` have a counter of their own; once that many are counted, a new
 *   client (one of a flood of rotated addresses) is counted in one of OVERFLOW_BUCKETS shared
 *   counters picked by a hash keyed with a random per-process key, so no one can choose
 *   addresses that reach every shared counter. Memory stays bounded, every request is counted,
 *   and clients seen before the flood keep their own quota.
 * - entries (src/server/rate-limit/plugin.ts: an entry's parts cost one request): at most
 *   `maxEntries` counters, keyed by a 53-bit keyed hash of the client and the entry; when full,
 *   the oldest is dropped. A dropped counter starts again at one, whose request is counted: it can
 *   make a client pay again for an entry, never less.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly synchronous = true;
  private window = -1;
  private counts = new Map<string, number>();
  private entries = new Map<number, number>();
  private readonly key = randomKey();

  constructor(
    private readonly maxClients = MAX_CLIENTS,
    private readonly maxEntries = MAX_ENTRY_COUNTERS,
  ) {}

  hit(client: string, window: number, _windowSeconds?: number, amount = 1): number {
    if (!this.enter(window)) return amount;
    let key = client;
    let count = this.counts.get(key);
    if (count === undefined && this.counts.size >= this.maxClients) {
      key = this.overflowOf(client);
      count = this.counts.get(key);
    }
    count = (count ?? 0) + amount;
    this.counts.set(key, count);
    return count;
  }

  peek(client: string, window: number): number {
    if (window !== this.window) return 0;
    const count = this.counts.get(client);
    if (count !== undefined || this.counts.size < this.maxClients) return count ?? 0;
    return this.counts.get(this.overflowOf(client)) ?? 0;
  }

  hitEntry(client: string, entry: string, window: number): number {
    if (!this.enter(window)) return 1;
    const key = Number(Bun.hash.wyhash(`${client}\n${entry}`, this.key) & 0x1f_ffff_ffff_ffffn);
    const count = (this.entries.get(key) ?? 0) + 1;
    if (count === 1 && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, count);
    return count;
  }

  /** Clients' counters (own and shared) of the current window. */
  get size(): number {
    return this.counts.size;
  }

  /** Per-entry counters of the current window. */
  get entryCounters(): number {
    return this.entries.size;
  }

  /** Moves to `window` (dropping the last one's counters); false for an earlier window. */
  private enter(window: number): boolean {
    if (window === this.window) return true;
    if (window < this.window) return false;
    this.window = window;
    this.counts = new Map();
    this.entries = new Map();
    return true;
  }

  private overflowOf(client: string): string {
    return `overflow:${Number(Bun.hash.wyhash(client, this.key) % BigInt(OVERFLOW_BUCKETS))}`;
  }
}
