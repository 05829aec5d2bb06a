import type { RouteInfo } from "./route-table";

/** The RateLimit header values of a counted request (docs/api.md, "Rate limits and API keys"). */
interface RateLimitHeaders {
  limit: string;
  remaining: string;
  reset: string;
  policy: string;
}

/**
 * What the hooks learn about a request (its id, when it started, which route it is for, who the
 * client is, its RateLimit headers), kept beside the Request rather than in Elysia's
 * `set.headers`: merging `set.headers` into each response costs more than the route itself.
 * Response builders take the headers from here (`headersFor`) when they construct the Response.
 */
export interface RequestContext {
  id: string;
  startedAt: number;
  /** The request line's path and query (no Host): keys cached answers and ETags. */
  target: string;
  /** The registered route serving the request's path (any method), null when none does. */
  route: RouteInfo | null;
  /** Set by the rate limiter when it counted the request. */
  rateLimit?: RateLimitHeaders;
  /** A short non-reversible client tag for logs. */
  client?: string;
  /** Set when absolute URLs go under another origin than the request URL's: the scheme a trusted proxy reported (public-origin.ts). */
  origin?: string;
}

const contexts = new WeakMap<Request, RequestContext>();

export function openContext(request: Request, context: RequestContext) {
  contexts.set(request, context);
}

export const contextOf = (request: Request): RequestContext | undefined => contexts.get(request);

const EXPOSED =
  "ETag, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After, Content-Disposition, Allow, Link";

/** What every response carries, whatever the request: CORS for any origin, and nosniff. */
const EVERY_RESPONSE = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED,
  "x-content-type-options": "nosniff",
};

/**
 * The fixed headers of one kind of response (every response's own, plus `fixed`), built once:
 * `headersFor` copies a template, which costs a fraction of building the same headers from an
 * object on every request.
 */
export const headerTemplate = (fixed: Record<string, string> = {}): Headers =>
  new Headers({ ...EVERY_RESPONSE, ...fixed });

const BARE = headerTemplate();

/**
 * The headers of a response to `request`: a copy of `template`, the request id and RateLimit
 * headers, then `extra`. Each call returns a new object the caller may change.
 */
export function headersFor(request: Request, template: Headers = BARE, extra?: Record<string, string>): Headers {
  const headers = new Headers(template);
  const context = contexts.get(request);
  if (context !== undefined) {
    headers.set("x-request-id", context.id);
    const rateLimit = context.rateLimit;
    if (rateLimit !== undefined) {
      headers.set("ratelimit-limit", rateLimit.limit);
      headers.set("ratelimit-remaining", rateLimit.remaining);
      headers.set("ratelimit-reset", rateLimit.reset);
      headers.set("ratelimit-policy", rateLimit.policy);
    }
  }
  if (extra !== undefined) for (const name in extra) headers.set(name, extra[name]!);
  return headers;
}
