import type { Server } from "bun";
import { Elysia } from "elysia";
import type { Config } from "../../config";
import type { ApiKeyLookup } from "../../db/api-key-lookup";
import { ApiError, validationError } from "../http/api-error";
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

/**
 * Fixed-window limits per client (docs/api.md, "Rate limits and API keys"): every response of a
 * limited route (401s included) carries the RateLimit headers; over the quota → 429 with
 * Retry-After. A request with an unknown key counts against its address's anonymous quota (429
 * once it is spent, 401 before).
 * `RATE_LIMIT_MAX=0` turns counting off; API keys are still checked. An entry's parts asked in one
 * window cost one request together (`ENTRY_PARTS`); an entry's counter is only made while the
 * client is under its quota, so a client over it cannot fill the store with them.
 * Returns the Elysia plugin that counts every request, `countNow`, the same count for the
 * direct routes (src/server/bypass/direct-routes.ts), which exist only with a store that answers
 * at once, and `charge`, which counts a request's work beyond the one request it is.
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

  /**
   * Charges a request `units` more requests of its client's quota for its work (a filtered
   * export, by the rows it will write), before the work is done: refused with 429 (and
   * Retry-After) when the quota left this window is smaller, with a 400 when the quota itself is.
   * `what` names the work in the refusal. Nothing when counting is off or the route is not limited.
   */
  const charge = async (exchange: Exchange, server: Server<unknown> | null, units: number, what: string) => {
    if (units <= 0) return;
    const counting = start(exchange, server);
    if (counting === null) return;
    const { identity, window } = counting;
    const cost = `${what} costs ${units + 1} requests of the rate limit`;
    if (units + 1 > identity.limit)
      throw validationError(
        `${cost}, more than the ${identity.limit} a client may make per ${windowSeconds} s; narrow the filters, download the whole directory (the unfiltered export, a file), or use an API key`,
      );
    const used = await store.peek(identity.client, window);
    if (used + units > identity.limit) {
      settle(counting, used);
      const reset = exchange.rateLimit!.reset;
      onRejected?.();
      throw new ApiError(
        429,
        "TOO_MANY_REQUESTS",
        `${cost}, more than the ${Math.max(0, identity.limit - used)} left in this window; retry after ${reset} s`,
        { "retry-after": reset },
      );
    }
    settle(counting, await store.hit(identity.client, window, windowSeconds, units));
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
        const part = store.hitEntry(client, entry, window, windowSeconds) as number;
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
      charge,
      // A block body: Elysia reads `=> f(…)` as maybe asynchronous and would await the hook.
      plugin: plugin.onRequest(({ exchange, server }) => {
        countNow(exchange, server);
      }),
    };
  return {
    countNow,
    charge,
    plugin: plugin.onRequest(async ({ exchange, server }) => {
      const counting = start(exchange, server);
      if (counting === null) return;
      const { identity, window, entry } = counting;
      const client = identity.client;
      if (entry === null || (await store.peek(client, window)) >= identity.limit)
        return settle(counting, await store.hit(client, window, windowSeconds));
      const part = await store.hitEntry(client, entry, window, windowSeconds);
      settle(
        counting,
        part === 1 || part > ENTRY_PARTS
          ? await store.hit(client, window, windowSeconds)
          : await store.peek(client, window),
      );
    }),
  };
};
