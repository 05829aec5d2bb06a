import { Elysia } from "elysia";
import type { Server } from "bun";
import type { Config } from "../config";
import { ApiError } from "../http/api-error";
import { pathOf } from "../http/known-routes";
import type { ApiKeyLookup } from "../keys/store";
import { contextOf } from "../http/request-context";
import { identifyClient } from "./client-identity";
import type { RateLimitStore } from "./store";

export interface RateLimitOptions {
  config: Config;
  /** The listening server (for socket addresses), null when not listening (app.handle in tests). */
  server: () => Server<unknown> | null;
  store: RateLimitStore;
  keys: ApiKeyLookup;
  clock: () => Date;
  onRejected?: () => void;
}

const UNLIMITED_PATHS = /^\/(?:health|docs|metrics)(?:\/|$)/;

/**
 * Fixed-window limits per client (CONTRACT.md "Rate limits"): every response of a limited
 * route carries the RateLimit headers; over the quota → 429 with Retry-After.
 * `RATE_LIMIT_MAX=0` turns counting off; API keys are still checked.
 */
export const rateLimit = ({ config, server, store, keys, clock, onRejected }: RateLimitOptions) => {
  const { windowSeconds } = config.rateLimit;
  const enabled = config.rateLimit.max > 0;
  // The server comes from `server()` rather than the hook context: a hook that reads
  // `server` makes Elysia define a getter on every request's context, in every route.
  return new Elysia({ name: "rate-limit" }).onRequest(async ({ request }) => {
    if (request.method === "OPTIONS" || UNLIMITED_PATHS.test(pathOf(request.url))) return;
    const context = contextOf(request);
    const identity = identifyClient(request, server(), config, keys);
    if (context) context.client = identity.tag;
    if (!enabled) return;
    const nowSeconds = clock().getTime() / 1000;
    const window = Math.floor(nowSeconds / windowSeconds);
    const count = await store.hit(identity.client, window, windowSeconds);
    const reset = String(Math.max(1, Math.ceil((window + 1) * windowSeconds - nowSeconds)));
    if (context) {
      context.headers["ratelimit-limit"] = String(identity.limit);
      context.headers["ratelimit-remaining"] = String(Math.max(0, identity.limit - count));
      context.headers["ratelimit-reset"] = reset;
      context.headers["ratelimit-policy"] = `${identity.limit};w=${windowSeconds}`;
    }
    if (count > identity.limit) {
      onRejected?.();
      throw new ApiError(429, "TOO_MANY_REQUESTS", `Rate limit of ${identity.limit} requests per ${windowSeconds} s exceeded; retry after ${reset} s`, { "retry-after": reset });
    }
  });
};
