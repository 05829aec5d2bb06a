import { Elysia } from "elysia";
import type { Config } from "../config";
import { ApiError } from "../http/api-error";
import { clientIp } from "../http/client-ip";
import type { RateLimitStore } from "./store";

export interface RateLimitOptions {
  config: Config;
  store: RateLimitStore;
  clock: () => Date;
}

const UNLIMITED_PATHS = /^\/(?:health|docs)(?:\/|$)/;

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const end = url.indexOf("?", start);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

/**
 * Fixed-window limits per client (CONTRACT.md "Rate limits"): every response of a limited
 * route carries the RateLimit headers; over the quota → 429 with Retry-After.
 */
export const rateLimit = ({ config, store, clock }: RateLimitOptions) => {
  const { max, windowSeconds } = config.rateLimit;
  const plugin = new Elysia({ name: "rate-limit" });
  if (max === 0) return plugin;
  const policy = `${max};w=${windowSeconds}`;
  return plugin.onRequest(async ({ request, server, set }) => {
    if (request.method === "OPTIONS" || UNLIMITED_PATHS.test(pathOf(request.url))) return;
    const nowSeconds = clock().getTime() / 1000;
    const window = Math.floor(nowSeconds / windowSeconds);
    const count = await store.hit(`ip:${clientIp(request, server, config.trustProxy)}`, window, windowSeconds);
    const reset = String(Math.max(1, Math.ceil((window + 1) * windowSeconds - nowSeconds)));
    set.headers["ratelimit-limit"] = String(max);
    set.headers["ratelimit-remaining"] = String(Math.max(0, max - count));
    set.headers["ratelimit-reset"] = reset;
    set.headers["ratelimit-policy"] = policy;
    if (count > max) {
      throw new ApiError(429, "TOO_MANY_REQUESTS", `Rate limit of ${max} requests per ${windowSeconds} s exceeded; retry after ${reset} s`, { "retry-after": reset });
    }
  });
};
