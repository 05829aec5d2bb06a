import type { RouteInfo } from "./routes";

/**
 * What the hooks learn about a request (its id, when it started, which route it is for, who the
 * client is, the headers every response to it carries), kept beside the Request rather than in
 * Elysia's `set.headers`: merging `set.headers` into each response costs more than the route
 * itself. Response builders take these headers when they construct the Response.
 */
export interface RequestContext {
  id: string;
  startedAt: number;
  /** The request line's path and query (no Host): keys cached answers and ETags. */
  target: string;
  /** The registered route serving the request's path (any method), null when none does. */
  route: RouteInfo | null;
  /** Headers for every response to this request (request id, CORS, nosniff, RateLimit-*). */
  headers: Record<string, string>;
  /** A short non-reversible client tag for logs. */
  client?: string;
}

const contexts = new WeakMap<Request, RequestContext>();

export function openContext(request: Request, context: RequestContext) {
  contexts.set(request, context);
}

export const contextOf = (request: Request): RequestContext | undefined => contexts.get(request);

/** The request's common response headers plus `extra`. */
export function headersFor(request: Request, extra?: Record<string, string>): Record<string, string> {
  const common = contexts.get(request)?.headers;
  return common ? (extra ? { ...common, ...extra } : common) : (extra ?? {});
}
