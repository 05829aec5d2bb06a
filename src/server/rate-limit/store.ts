/** Counts requests per client in fixed windows. Windows are aligned: window n covers [n·w, (n+1)·w) seconds. */
export interface RateLimitStore {
  /** True when `hit` always returns a number, never a Promise. */
  readonly synchronous?: boolean;
  /** Adds `amount` (default one) requests for `client` in window `window` and returns the count so far in that window. */
  hit(client: string, window: number, windowSeconds: number, amount?: number): number | Promise<number>;
  /** The count so far for `client` in window `window`, without adding one (0 when none). */
  peek(client: string, window: number): number | Promise<number>;
  /**
   * Adds one request of `client` for entry `entry` (an entry's parts: plugin.ts) and returns the
   * count so far; kept apart from the clients' counters, so entries read never take their place.
   */
  hitEntry(client: string, entry: string, window: number, windowSeconds: number): number | Promise<number>;
}
