/**
 * Data responses carry an ETag that changes only when the dataset changes: the dataset version
 * and a hash of the dataset's last refresh time (so a rebuilt database that reaches the same
 * version number does not match) and of the request target, path and query as the request line
 * has them (so two URLs never share one, and the Host plays no part).
 */
export function datasetEtag(version: number, refreshedAt: string | null, target: string): string {
  return `W/"${version.toString(36)}-${Bun.hash.wyhash(`${refreshedAt}\n${target}`).toString(36)}"`;
}

export function matchesIfNoneMatch(request: Request, etag: string): boolean {
  const header = request.headers.get("if-none-match");
  if (header === null) return false;
  if (header.trim() === "*") return true;
  const bare = etag.slice(2);
  return header.split(",").some((candidate) => {
    const value = candidate.trim();
    return value === etag || value === bare || value === `W/${bare}`;
  });
}

/** The dataset's refresh time as an HTTP date (Last-Modified), one string per time. */
const httpDates = new Map<string, string>();
export function httpDate(iso: string | null): string | null {
  if (iso === null) return null;
  let date = httpDates.get(iso);
  if (date === undefined) {
    if (httpDates.size > 16) httpDates.clear();
    date = new Date(iso).toUTCString();
    httpDates.set(iso, date);
  }
  return date;
}

/**
 * Whether the client's copy is current: by If-None-Match when it sent one (RFC 9110 13.1.3: it
 * then ignores If-Modified-Since), else by If-Modified-Since against the dataset's last refresh
 * (HTTP dates have whole seconds).
 */
export function notModified(request: Request, etag: string, lastModified: string | null): boolean {
  if (request.headers.has("if-none-match")) return matchesIfNoneMatch(request, etag);
  const since = request.headers.get("if-modified-since");
  if (since === null || lastModified === null) return false;
  const sinceMs = Date.parse(since);
  return !Number.isNaN(sinceMs) && Date.parse(lastModified) <= sinceMs;
}
