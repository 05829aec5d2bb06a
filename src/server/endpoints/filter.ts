import type { Static } from "elysia";
import type { EndpointFilter } from "../../directory/search";
import { words } from "../../directory/text";
import { READY, SUPPORTS } from "../../model/capability-rules";
import type { ListQuery, ListSort } from "../../model/endpoints";
import { REQUEST_CAPS } from "../../model/request-caps";
import { RESOURCE_TYPE_NAME } from "../../model/resource-types";
import { validationError } from "../http/api-error";

const MAX_RESOURCE_TYPES = REQUEST_CAPS.resourceTypes;

function parseResourceTypes(raw: string): string[] {
  const names = raw.split(",").map((name) => name.trim());
  if (names.length > MAX_RESOURCE_TYPES)
    throw validationError(`hasResource: at most ${MAX_RESOURCE_TYPES} resource types`);
  for (const name of names) {
    if (name === "") throw validationError("hasResource: empty resource type name (check the commas)");
    if (!RESOURCE_TYPE_NAME.test(name))
      throw validationError(`hasResource: "${name.slice(0, 64)}" is not a FHIR resource type name`);
  }
  return [...new Set(names)];
}

/** A comma list of known values (spaces around commas ignored), de-duplicated; 400 otherwise. */
function parseValues(name: string, raw: string, allowed: readonly string[]): string[] {
  const values = raw.split(",").map((value) => value.trim());
  if (values.length > allowed.length)
    throw validationError(`${name}: at most ${allowed.length} values, each one of ${allowed.join(", ")}`);
  for (const value of values)
    if (!allowed.includes(value))
      throw validationError(
        value === ""
          ? `${name}: empty value (check the commas)`
          : `${name}: "${value.slice(0, 64)}" is not one of ${allowed.join(", ")}`,
      );
  return [...new Set(values)];
}

/** Turns a validated list query into the filter the directory index answers. */
export function toEndpointFilter(query: Static<typeof ListQuery>): EndpointFilter {
  const queryWords = query.query === undefined ? [] : words(query.query);
  // Each word is a prefix range of the name index: a bounded number keeps a request's cost bounded.
  if (queryWords.length > REQUEST_CAPS.words)
    throw validationError(`query: at most ${REQUEST_CAPS.words} distinct words, not ${queryWords.length}`);
  const filter: EndpointFilter = { queryWords };
  if (query.vendor !== undefined) filter.vendor = query.vendor;
  if (query.kind !== undefined) filter.kind = query.kind;
  if (query.state !== undefined) filter.state = query.state;
  if (query.fhirVersion !== undefined) filter.fhirVersion = query.fhirVersion;
  if (query.access !== undefined) filter.access = query.access;
  if (query.hasResource !== undefined) filter.hasResource = parseResourceTypes(query.hasResource);
  if (query.smartSupported !== undefined) filter.smartSupported = query.smartSupported === "true";
  if (query.supports !== undefined) filter.supports = parseValues("supports", query.supports, SUPPORTS);
  if (query.ready !== undefined) filter.ready = parseValues("ready", query.ready, READY);
  if (query.environment !== undefined) filter.environment = query.environment;
  return filter;
}

/**
 * The list's order: `sort=relevance` ranks by how well names match the query, so it needs one
 * (a query of no words, such as `%20`, is none); undefined for the default order.
 */
export function listSort(query: Static<typeof ListQuery>, filter: EndpointFilter): ListSort | undefined {
  if (query.sort === undefined) return undefined;
  if (filter.queryWords.length === 0) throw validationError("sort: relevance needs a query with at least one word");
  return query.sort as ListSort; // the schema let only a LIST_SORTS value through
}
