/** The API's routes, for answers given before Elysia routes a request (405s, 429s, metrics labels). */
const KNOWN_ROUTES: [RegExp, string][] = [
  [/^\/health$/, "/health"],
  [/^\/api\/v1\/endpoints$/, "/api/v1/endpoints"],
  [/^\/api\/v1\/endpoints\/[^/]+$/, "/api/v1/endpoints/:id"],
  [/^\/api\/v1\/endpoints\/[^/]+\/capabilities$/, "/api/v1/endpoints/:id/capabilities"],
  [/^\/api\/v1\/export$/, "/api/v1/export"],
  [/^\/api\/v1\/vendors$/, "/api/v1/vendors"],
  [/^\/api\/v1\/stats$/, "/api/v1/stats"],
  [/^\/docs$/, "/docs"],
  [/^\/docs\/json$/, "/docs/json"],
  [/^\/metrics$/, "/metrics"],
];

export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.indexOf("?", start);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

/** The route pattern a path belongs to, or null for paths no route serves. */
export function knownRoute(path: string): string | null {
  for (const [pattern, route] of KNOWN_ROUTES) if (pattern.test(path)) return route;
  return null;
}
