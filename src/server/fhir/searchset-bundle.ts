import type { FhirIndex } from "./fhir-index";
import { endpointResource, organizationResource } from "./resources";
import type { SearchResult } from "./search";
import { queryString, type SearchRequest } from "./search-params";

/** A resource's absolute URL: `<base>/<type>/<id>` (base: the request's origin and `/fhir`). */
const fullUrl = (base: string, resource: { resourceType: string; id: string }) =>
  `${base}/${resource.resourceType}/${resource.id}`;

/**
 * The searchset Bundle of a search: `total` (unless `_total=none`), absolute `self` (the
 * parameters understood, as given) and, for pages, `first`/`previous`/`next`/`last` links that
 * carry `_count`, `_offset` and `_snapshot` (the dataset version: a link outliving it answers
 * 410), and every entry with its absolute `fullUrl` and `search.mode`.
 */
export function searchBundle(base: string, index: FhirIndex, request: SearchRequest, result: SearchResult): string {
  const { type, kept, count, offset } = request;
  const at = (pairs: [string, string][]) => `${base}/${type}${pairs.length === 0 ? "" : `?${queryString(pairs)}`}`;
  const self: [string, string][] = [...kept];
  if (request.countGiven) self.push(["_count", String(count)]);
  if (offset > 0) self.push(["_offset", String(offset)]);
  if (request.snapshot !== null) self.push(["_snapshot", String(request.snapshot)]);
  const link = [{ relation: "self", url: at(self) }];
  if (!request.summaryCount && count > 0) {
    const page = (from: number) =>
      at([...kept, ["_count", String(count)], ["_offset", String(from)], ["_snapshot", String(index.version)]]);
    const last = Math.floor(Math.max(result.total - 1, 0) / count) * count;
    link.push({ relation: "first", url: page(0) });
    if (offset > 0) link.push({ relation: "previous", url: page(Math.max(0, Math.min(offset, last + count) - count)) });
    if (offset + count < result.total) link.push({ relation: "next", url: page(offset + count) });
    link.push({ relation: "last", url: page(last) });
  }
  const match = type === "Endpoint" ? endpointResource : organizationResource;
  const include = type === "Endpoint" ? organizationResource : endpointResource;
  const entry = [
    ...result.matches.map((n) => {
      const resource = match(index, n);
      return { fullUrl: fullUrl(base, resource), resource, search: { mode: "match" } };
    }),
    ...result.included.map((n) => {
      const resource = include(index, n);
      return { fullUrl: fullUrl(base, resource), resource, search: { mode: "include" } };
    }),
  ];
  return JSON.stringify({
    resourceType: "Bundle",
    type: "searchset",
    ...(request.total ? { total: result.total } : {}),
    link,
    ...(entry.length === 0 ? {} : { entry }),
  });
}
