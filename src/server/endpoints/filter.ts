import type { Static } from "elysia";
import { cityKey } from "../../directory/lookups";
import type { EndpointFilter } from "../../directory/search";
import { words } from "../../directory/text";
import { READY, SUPPORTS } from "../../model/capability-rules";
import { DEFAULT_RADIUS_MILES, type ListQuery, type ListSort, MAX_RADIUS_MILES } from "../../model/endpoints";
import { canonicalUrl } from "../../model/identity";
import { npiCheckDigitValid } from "../../model/npi";
import { REQUEST_CAPS, WORK } from "../../model/request-caps";
import { RESOURCE_TYPE_NAME } from "../../model/resource-types";
import { zipPlaces } from "../../model/zip-places";
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
  if (query.npi !== undefined) {
    if (!npiCheckDigitValid(query.npi))
      throw validationError(
        `npi: ${query.npi} has a wrong check digit (the Luhn formula over 80840 and its first nine digits)`,
      );
    filter.npi = Number(query.npi);
  }
  if (query.host !== undefined) filter.host = query.host.toLowerCase().replace(/\.$/, "");
  if (query.url !== undefined) filter.url = canonicalUrl(query.url);
  if (query.city !== undefined) {
    const key = cityKey(query.city);
    if (key === "") throw validationError("city: must name a city (letters or digits)");
    filter.city = key;
  }
  if (query.radius !== undefined && query.near === undefined) throw validationError("radius: only beside near");
  if (query.near !== undefined) {
    const zip = query.near.slice(0, 5);
    const place = zipPlaces().get(zip);
    if (place === undefined) throw validationError(`near: ${zip} is not a US ZIP code the directory knows`);
    const radius = query.radius === undefined ? DEFAULT_RADIUS_MILES : Number(query.radius);
    if (radius > MAX_RADIUS_MILES) throw validationError(`radius: at most ${MAX_RADIUS_MILES} miles, not ${radius}`);
    const byDistance = query.sort !== "name";
    filter.near = { zip, latitude: place.latitude, longitude: place.longitude, radius, byDistance };
  }
  return filter;
}

/**
 * Refuses a search over the work budget (src/model/request-caps.ts, WORK) with 400
 * VALIDATION_ERROR, before any of its work, naming what made it costly: the query's words (each
 * a prefix range of the name index) or a lookup filter's many entries (a wide domain or radius).
 */
export function checkSearchCost(units: number, filter: EndpointFilter) {
  if (units <= WORK.budget) return;
  const times = (units / WORK.budget).toFixed(1);
  if (filter.queryWords.length > 0)
    throw validationError(
      `query: its words would read ${times} times the work one request may do; use longer or fewer words`,
    );
  const name = filter.near ? "near" : filter.host !== undefined ? "host" : "city";
  throw validationError(
    `${name}: it would read ${times} times the work one request may do; narrow it (a smaller radius, a longer host name) or add filters`,
  );
}

/**
 * The list's order: `sort=relevance` ranks by how well names match the query, so it needs one
 * (a query of no words, such as `%20`, is none); `distance` needs `near` (whose filter already
 * holds the order: nearest first unless `name` or `relevance` is asked); `name` is the default.
 */
export function listSort(query: Static<typeof ListQuery>, filter: EndpointFilter): ListSort | undefined {
  if (query.sort === undefined) return undefined;
  if (query.sort === "relevance" && filter.queryWords.length === 0)
    throw validationError("sort: relevance needs a query with at least one word");
  if (query.sort === "distance" && filter.near === undefined) throw validationError("sort: distance needs near");
  return query.sort as ListSort; // the schema let only a LIST_SORTS value through
}
