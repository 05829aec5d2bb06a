import { allowHeader } from "./allow";
import { PER_ENTRY, RATE_LIMITED } from "./route-options";

/**
 * Which route a request is for: the one answer the router, the rate limiter, 405 handling, the
 * answers cache and the metrics share. It mirrors Elysia's matching (`RouteTable.resolve`) from
 * the request line's path (`pathOf`, request-target.ts), resolved once per request by
 * `openExchange` (exchange.ts).
 *
 * A route declares itself by being registered (`app.routes`): its path pattern is its metrics
 * label, its methods make the `Allow` header of a 405 and of a CORS preflight (allow.ts), and
 * its route options (route-options.ts) say whether the rate limiter counts it.
 * A handler answers with a Response built by `jsonResponse`, `dataResponse` or with
 * `headersFor(exchange)`: that is how the request id, CORS and RateLimit headers reach the client.
 */
/** What every part of the app knows about a registered route. */
export interface RouteInfo {
  /** The path pattern as registered (`/api/v1/endpoints/:id`): the metrics and log label. */
  readonly pattern: string;
  /** Registered methods, plus HEAD for GET (Elysia answers HEAD with the GET route). */
  readonly methods: ReadonlySet<string>;
  /** The Allow header for this path: its methods and OPTIONS (answered by the CORS preflight). */
  readonly allow: string;
  /** False when the route opted out of rate limiting. */
  readonly rateLimited: boolean;
  /**
   * For a route counted per entry (`rateLimit: "per-entry"`): which segment of the path (split
   * on `/`) is the entry's id; null for every other route.
   */
  readonly entrySegment: number | null;
}

interface RegisteredRoute {
  method: string;
  path: string;
  hooks?: unknown;
}

/** A dynamic pattern split into segments; `null` stands for a `:param` segment (one non-empty segment). */
interface DynamicRoute {
  segments: (string | null)[];
  /** True when the pattern ends in `*` (matches any rest). */
  rest: boolean;
  info: RouteInfo;
}

/**
 * The registered routes by path, built from `app.routes` and rebuilt when a route is added.
 * Matching follows Elysia's router: static paths first, also with the trailing slash toggled;
 * then patterns whose `:param` segments match one non-empty segment each.
 */
export class RouteTable {
  private built = -1;
  private statics = new Map<string, RouteInfo>();
  private dynamics: DynamicRoute[] = [];
  private patterns = new Map<string, RouteInfo>();

  constructor(private readonly routes: () => readonly RegisteredRoute[]) {}

  /** The route serving `path` (any method), or null when no route does. */
  resolve(path: string): RouteInfo | null {
    const routes = this.routes();
    if (routes.length !== this.built) this.build(routes);
    const found = this.statics.get(path);
    if (found !== undefined) return found;
    for (const route of this.dynamics) if (matches(route, path)) return route.info;
    return null;
  }

  /** The route registered under `pattern` (a path as the app declares it), or null. */
  declared(pattern: string): RouteInfo | null {
    const routes = this.routes();
    if (routes.length !== this.built) this.build(routes);
    return this.patterns.get(pattern) ?? null;
  }

  /** Every route (for the allowed methods of a preflight to an unknown path). */
  all(): RouteInfo[] {
    const routes = this.routes();
    if (routes.length !== this.built) this.build(routes);
    return [...new Set([...this.statics.values(), ...this.dynamics.map((route) => route.info)])];
  }

  private build(routes: readonly RegisteredRoute[]) {
    const byPattern = new Map<string, { methods: Set<string>; rateLimited: boolean; perEntry: boolean }>();
    for (const { method, path, hooks } of routes) {
      if (method === "WS") continue;
      let entry = byPattern.get(path);
      if (entry === undefined) {
        entry = { methods: new Set(), rateLimited: true, perEntry: false };
        byPattern.set(path, entry);
      }
      entry.methods.add(method);
      if (method === "GET") entry.methods.add("HEAD");
      const detail = (hooks as { detail?: Record<string, unknown> } | undefined)?.detail;
      if (detail?.[RATE_LIMITED] === false) entry.rateLimited = false;
      if (detail?.[RATE_LIMITED] === PER_ENTRY) entry.perEntry = true;
    }
    const statics = new Map<string, RouteInfo>();
    const dynamics: DynamicRoute[] = [];
    const patterns = new Map<string, RouteInfo>();
    for (const [pattern, { methods, rateLimited, perEntry }] of byPattern) {
      const entrySegment = perEntry ? pattern.split("/").indexOf(":id") : -1;
      const info: RouteInfo = {
        pattern,
        methods,
        allow: allowHeader(methods),
        rateLimited,
        entrySegment: entrySegment === -1 ? null : entrySegment,
      };
      patterns.set(pattern, info);
      if (!pattern.includes(":") && !pattern.includes("*")) {
        statics.set(pattern, info);
        const loose = pattern.endsWith("/") ? pattern.slice(0, -1) : `${pattern}/`;
        if (loose !== "" && !byPattern.has(loose) && !statics.has(loose)) statics.set(loose, info);
        continue;
      }
      const rest = pattern.endsWith("*");
      const segments = (rest ? pattern.slice(0, -1) : pattern)
        .split("/")
        .slice(1)
        .map((segment) => (segment.startsWith(":") ? null : segment));
      if (rest) segments.pop();
      dynamics.push({ segments, rest, info });
    }
    this.statics = statics;
    this.dynamics = dynamics;
    this.patterns = patterns;
    this.built = routes.length;
  }
}

/** Whether `path` matches a dynamic pattern (a trailing slash allowed, as Elysia's loose paths). */
function matches({ segments, rest }: DynamicRoute, path: string): boolean {
  let at = 1;
  for (let i = 0; i < segments.length; i++) {
    if (at > path.length) return false;
    let end = path.indexOf("/", at);
    if (end === -1) end = path.length;
    const segment = segments[i];
    if (segment === null) {
      if (end === at) return false;
    } else if (end - at !== segment!.length || !path.startsWith(segment!, at)) return false;
    at = end + 1;
  }
  if (rest) return true;
  // All segments consumed: the path ends here, or with one trailing slash.
  return at >= path.length;
}
