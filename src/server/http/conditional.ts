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
