import type { Server } from "bun";
import { Elysia } from "elysia";
import type { Config } from "../../config";
import type { ApiKeyLookup } from "../../db/api-keys";
import { ApiError } from "../http/api-error";
import { type Exchange, exchanges } from "../http/exchange";
import { identifyClient } from "./client-identity";
import type { RateLimitStore } from "./store";

export interface RateLimitOptions {
  config: Config;
  store: RateLimitStore;
  keys: ApiKeyLookup;
  clock: () => Date;
  onRejected?: () => void;
}

/**
 * How many requests for one entry's parts (its record, capabilities, availability and source: the
 * routes declared `rateLimit: "per-entry"`) a client's window counts as one: what the search page
 * asks to show an entry. The first is counted, the next three are not, any further ones are. A
 * developer's report card and its history (two parts) are counted the same way, per developer.
 */
const ENTRY_PARTS = 4;

/** An entry id as the API writes it; any other `:id` (unknown to the API) is counted like any request. */
const ENTRY_ID = /^[0-9a-f]{64}$/;
/** A vendor id as the registry writes them (db/vendors.json): lowercase words joined by hyphens. */
const VENDOR_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The entry (or, under /vendors/, the developer) a per-entry route's request is for (its `:id`), else null. */
function entryOf(exchange: Exchange): string | null {
  const segment = exchange.route?.entrySegment;
  if (segment === null || segment === undefined) return null;
  const target = exchange.target;
  const query = target.indexOf("?");
  const parts = (query === -1 ? target : target.slice(0, query)).split("/");
  const id = parts[segment] ?? "";
  if (parts[segment - 1] === "vendors") return id.length <= 100 && VENDOR_ID.test(id) ? `vendor/${id}` : null;
  return ENTRY_ID.test(id) ? id : null;
}

/** The counter of one client's requests for one entry. */
const entryKey = (client: string, entry: string) => `${client}\nentry\n${entry}`;

/**
 * Fixed-window limits per client (docs/api.md, "Rate limits and API keys"): every response of a
 * limited route (401s included) carries the RateLimit headers; over the quota → 429 with
 * Retry-After. A request with an unknown key counts against its address's anonymous quota (429
 * once it is spent, 401 before).
 * `RATE_LIMIT_MAX=0` turns counting off; API keys are still checked. An entry's parts asked in one
 * window cost one request together (`ENTRY_PARTS`); an entry's counter is only made while the
 * client is under its quota, so a client over it cannot fill the store with them.
 * Returns the Elysia plugin that counts every request, and `countNow`, the same count for the
 * direct routes (src/server/bypass/direct-routes.ts), which exist only with a store that answers at once.
 */
export const rateLimiter = ({ config, store, keys, clock, onRejected }: RateLimitOptions) => {
  const { windowSeconds } = config.rateLimit;
  const enabled = config.rateLimit.max > 0;

  /**
   * Identifies the client; returns what counting needs, or null when this request is not
   * counted: CORS preflights, and paths whose route opted out (`rateLimit: false`, see
   * src/server/http/route-options.ts). Paths no route serves are counted.
   */
  const start = (exchange: Exchange, server: Server<unknown> | null) => {
    if (exchange.request.method === "OPTIONS" || exchange.route?.rateLimited === false) return null;
    const identity = identifyClient(exchange.received, server, config, keys);
    exchange.client = identity.tag;
    if (!enabled) {
      if (identity.invalidKey) throw identity.invalidKey;
      return null;
    }
    const nowSeconds = clock().getTime() / 1000;
    return {
      exchange,
      identity,
      nowSeconds,
      window: Math.floor(nowSeconds / windowSeconds),
      entry: entryOf(exchange),
    };
  };

  /** Sets the RateLimit headers for the request's count in its window; throws 429 over the quota. */
  const settle = ({ exchange, identity, nowSeconds, window }: NonNullable<ReturnType<typeof start>>, count: number) => {
    const reset = String(Math.max(1, Math.ceil((window + 1) * windowSeconds - nowSeconds)));
    exchange.rateLimit = {
      limit: String(identity.limit),
      remaining: String(Math.max(0, identity.limit - count)),
      reset,
      policy: `${identity.limit};w=${windowSeconds}`,
    };
    if (count > identity.limit) {
      onRejected?.();
      throw new ApiError(
        429,
        "TOO_MANY_REQUESTS",
        `Rate limit of ${identity.limit} requests per ${windowSeconds} s exceeded; retry after ${reset} s`,
        { "retry-after": reset },
      );
    }
    if (identity.invalidKey) throw identity.invalidKey;
  };

  /** Counts a request at once, when the store answers at once (memory); null for Redis. */
  const countNow = store.synchronous
    ? (exchange: Exchange, server: Server<unknown> | null) => {
        const counting = start(exchange, server);
        if (counting === null) return;
        const { identity, window, entry } = counting;
        const client = identity.client;
        if (entry === null || (store.peek(client, window) as number) >= identity.limit)
          return settle(counting, store.hit(client, window, windowSeconds) as number);
        const part = store.hit(entryKey(client, entry), window, windowSeconds) as number;
        settle(
          counting,
          part === 1 || part > ENTRY_PARTS
            ? (store.hit(client, window, windowSeconds) as number)
            : (store.peek(client, window) as number),
        );
      }
    : null;

  // Elysia awaits every request hook once one is async: with a synchronous store (memory) the
  // hook stays synchronous, so the whole request path does; Redis needs the async one.
  const plugin = new Elysia({ name: "rate-limit" }).use(exchanges);
  if (countNow !== null)
    return {
      countNow,
      // A block body: Elysia reads `=> f(…)` as maybe asynchronous and would await the hook.
      plugin: plugin.onRequest(({ exchange, server }) => {
        countNow(exchange, server);
      }),
    };
  return {
    countNow,
    plugin: plugin.onRequest(async ({ exchange, server }) => {
      const counting = start(exchange, server);
      if (counting === null) return;
      const { identity, window, entry } = counting;
      const client = identity.client;
      if (entry === null || (await store.peek(client, window)) >= identity.limit)
        return settle(counting, await store.hit(client, window, windowSeconds));
      const part = await store.hit(entryKey(client, entry), window, windowSeconds);
      settle(
        counting,
        part === 1 || part > ENTRY_PARTS
          ? await store.hit(client, window, windowSeconds)
          : await store.peek(client, window),
      );
    }),
  };
};
