/**
 * Relative paths in a list (`api/eyesite/R4`: First Insight publishes 17 beside some 300
 * `https://fhir.maximeyes.com/api/<practice>/R4`): a path without scheme or host is resolved
 * against the one origin on which the same list publishes nearly all of its URLs of the same
 * shape — the same number of segments, the same first and last segment (case-sensitive, as paths
 * are) — and only then. "Nearly all" is at least MIN_SHARE of them and at least MIN_URLS URLs:
 * a list that spreads such paths over several hosts, or has few, leaves the host unknown, and the
 * item is dropped with that reason.
 */
export type RelativeResolution = { url: string; repair: string; kind: "host-guessed" } | { reason: string };

const MIN_SHARE = 0.9;
const MIN_URLS = 5;

/** A relative path: segments of URL path characters, the first without a dot (else it is a host name). */
const RELATIVE_PATH = /^\/?[A-Za-z0-9_~%-]+(?:\/[A-Za-z0-9._~%-]+)*\/?$/;

/** The shape of a path: its number of segments, its first and its last segment. */
function shapeOf(path: string): string | null {
  const segments = path.replace(/^\/+|\/+$/g, "").split("/");
  if (segments.length < 2 || segments.some((s) => s === "")) return null;
  return `${segments.length}\n${segments[0]}\n${segments.at(-1)}`;
}

/** Whether a published URL is a relative path (this resolver's to judge). */
export const isRelativePath = (text: string): boolean => RELATIVE_PATH.test(text.trim());

/**
 * For one list, from its absolute (validated) URLs: a function resolving a relative path, or
 * telling why it cannot be.
 */
export function relativeUrlResolver(absoluteUrls: readonly string[]): (path: string) => RelativeResolution {
  const originsByShape = new Map<string, Map<string, number>>();
  for (const text of absoluteUrls) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      continue;
    }
    const shape = shapeOf(url.pathname);
    if (shape === null) continue;
    const origins = originsByShape.get(shape) ?? new Map<string, number>();
    origins.set(url.origin, (origins.get(url.origin) ?? 0) + 1);
    originsByShape.set(shape, origins);
  }
  return (published) => {
    const path = published.trim().replace(/^\/+/, "");
    const shape = shapeOf(path);
    const origins = shape === null ? undefined : originsByShape.get(shape);
    if (origins === undefined)
      return { reason: "a relative path without a host, and the list has no URL of the same shape to take one from" };
    const total = [...origins.values()].reduce((sum, n) => sum + n, 0);
    const [origin, count] = [...origins].sort((a, b) => b[1] - a[1])[0]!;
    if (count < MIN_URLS || count < total * MIN_SHARE)
      return {
        reason: `a relative path without a host; of the list's ${total} URLs of the same shape ${count} are on ${origin}: not enough to take it as the host (at least ${MIN_URLS}, and ${MIN_SHARE * 10} in 10)`,
      };
    return {
      url: `${origin}/${path}`,
      repair: `relative path resolved against ${origin}, the host of ${count} of the list's ${total} URLs of the same shape`,
      kind: "host-guessed",
    };
  };
}
