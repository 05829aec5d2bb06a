/**
 * Data responses carry an ETag that changes only when the dataset changes: the dataset version
 * plus a short hash of the request target, so two different URLs never share one.
 */
export function datasetEtag(version: number, url: string): string {
  const target = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  return `W/"${version.toString(36)}-${Bun.hash.wyhash(target).toString(36)}"`;
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
