import { RedisClient } from "bun";
import type { Logger } from "../../logger";
import { MemoryRateLimitStore } from "./memory-store";
import type { RateLimitStore } from "./store";

// INCRBY and EXPIRE as one atomic step: the first hit of a window sets its expiry.
const HIT_SCRIPT =
  "local n = redis.call('INCRBY', KEYS[1], ARGV[2]) if n == tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n";
const COMMAND_TIMEOUT_MS = 250;
const RECONNECT_EVERY_MS = 5_000;
const WARN_EVERY_MS = 60_000;

/**
 * Counters shared by every instance through Redis. When Redis cannot answer, requests are
 * counted locally instead (the service keeps answering) and a warning is logged once a minute.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly client: RedisClient;
  private readonly local = new MemoryRateLimitStore();
  private lastWarning = 0;
  private lastReconnect = 0;
  private connecting: Promise<void> | null;

  constructor(
    url: string,
    private readonly log: Logger,
    private readonly keyPrefix = "rl",
  ) {
    this.client = new RedisClient(url, {
      enableOfflineQueue: false,
      connectionTimeout: 1_000,
      autoReconnect: true,
      maxRetries: 3,
    });
    this.connecting = this.connect();
  }

  async hit(client: string, window: number, windowSeconds: number, amount = 1): Promise<number> {
    try {
      if (!this.client.connected) await withTimeout(this.connecting ?? this.reconnect(), COMMAND_TIMEOUT_MS * 4);
      const count = await withTimeout(
        this.client.send("EVAL", [
          HIT_SCRIPT,
          "1",
          `${this.keyPrefix}:${window}:${client}`,
          String(windowSeconds + 1),
          String(amount),
        ]),
        COMMAND_TIMEOUT_MS,
      );
      return Number(count);
    } catch (error) {
      this.warn(error);
      return this.local.hit(client, window, windowSeconds, amount);
    }
  }

  async hitEntry(client: string, entry: string, window: number, windowSeconds: number): Promise<number> {
    try {
      if (!this.client.connected) await withTimeout(this.connecting ?? this.reconnect(), COMMAND_TIMEOUT_MS * 4);
      const key = `${this.keyPrefix}:${window}:${client}\nentry\n${entry}`;
      const count = await withTimeout(
        this.client.send("EVAL", [HIT_SCRIPT, "1", key, String(windowSeconds + 1), "1"]),
        COMMAND_TIMEOUT_MS,
      );
      return Number(count);
    } catch (error) {
      this.warn(error);
      return this.local.hitEntry(client, entry, window);
    }
  }

  async peek(client: string, window: number): Promise<number> {
    try {
      if (!this.client.connected) await withTimeout(this.connecting ?? this.reconnect(), COMMAND_TIMEOUT_MS * 4);
      const count = await withTimeout(this.client.get(`${this.keyPrefix}:${window}:${client}`), COMMAND_TIMEOUT_MS);
      return Number(count ?? 0);
    } catch (error) {
      this.warn(error);
      return this.local.peek(client, window);
    }
  }

  close() {
    this.client.close();
  }

  private connect(): Promise<void> {
    const attempt = this.client.connect().finally(() => {
      this.connecting = null;
    });
    attempt.catch(() => {}); // awaited by the next hit, if any; never an unhandled rejection
    return attempt;
  }

  /** At most one reconnection attempt every few seconds; in between, fail fast to the local count. */
  private reconnect(): Promise<void> {
    const now = Date.now();
    if (now - this.lastReconnect < RECONNECT_EVERY_MS) return Promise.reject(new Error("redis is down"));
    this.lastReconnect = now;
    this.connecting = this.connect();
    return this.connecting;
  }

  private warn(error: unknown) {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.log.warn("redis unavailable: rate limits counted per instance until it answers", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`redis did not answer within ${ms} ms`)), ms);
    }),
  ]);
}
