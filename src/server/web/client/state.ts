/**
 * What the address bar carries: the list operation's own filters (same names as the API), the
 * page, and the endpoint open in the detail view. Pure functions, shared by the page and tests.
 */
export const FILTER_KEYS = [
  "query",
  "vendor",
  "kind",
  "state",
  "fhirVersion",
  "access",
  "smartSupported",
  "hasResource",
  "supports",
  "ready",
  "environment",
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Record<FilterKey, string>;

/** The orders a person can choose (`sort=`), "" for the page's default: best match, or nearest first. */
const SORTS = ["", "relevance", "name", "distance"] as const;
export type Sort = (typeof SORTS)[number];

export interface SearchState {
  filters: Filters;
  page: number;
  /** The chosen order; "" for the default. Optional: a state without it has the default. */
  sort?: Sort;
  /** The endpoint shown in the detail view, or null for the results. */
  id: string | null;
}

/** The API's page limit. */
export const MAX_PAGE = 1000;
/** Results per page: the API's default, so the page's requests are the ones a client makes. */
export const PAGE_SIZE = 25;

export const emptyFilters = (): Filters => ({
  query: "",
  vendor: "",
  kind: "",
  state: "",
  fhirVersion: "",
  access: "",
  smartSupported: "",
  hasResource: "",
  supports: "",
  ready: "",
  environment: "",
});

/**
 * A filter value as sent: words separated by single spaces; state and FHIR version upper case;
 * resource names capitalised and comma-separated.
 */
export function normaliseFilter(key: FilterKey, value: string): string {
  if (key === "hasResource")
    return value
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "")
      .map((name) => name[0]!.toUpperCase() + name.slice(1))
      .join(",");
  if (key === "supports" || key === "ready")
    return value
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "")
      .join(",");
  const words = value.trim().replace(/\s+/g, " ");
  return key === "state" || key === "fhirVersion" ? words.toUpperCase() : words;
}

export function parseState(search: string): SearchState {
  const params = new URLSearchParams(search);
  const filters = emptyFilters();
  for (const key of FILTER_KEYS) filters[key] = normaliseFilter(key, params.get(key) ?? "");
  const page = Number(params.get("page"));
  const id = params.get("id");
  const sort = params.get("sort") ?? "";
  return {
    filters,
    page: Number.isInteger(page) && page >= 1 ? Math.min(page, MAX_PAGE) : 1,
    sort: (SORTS as readonly string[]).includes(sort) ? (sort as Sort) : "",
    id: id !== null && id !== "" ? id : null,
  };
}

/** What the one search box was understood as: the list filter it becomes, and its value. */
export interface BoxSearch {
  kind: "query" | "npi" | "url" | "host" | "near";
  value: string;
}

/**
 * What a person typed in the one box, read as they mean it: ten digits are an NPI; five digits,
 * or "near" and five digits, a ZIP to search near; an absolute URL a FHIR base URL; a host name
 * (`epic.com`, `fhir.example.org`) a host or domain; anything else words of a name.
 */
export function readBox(text: string): BoxSearch {
  const value = text.trim();
  if (/^\d{10}$/.test(value)) return { kind: "npi", value };
  const zip = /^(?:near\s+)?(\d{5})(?:-\d{4})?$/i.exec(value);
  if (zip) return { kind: "near", value: zip[1]! };
  if (/^https?:\/\/\S+$/i.test(value)) return { kind: "url", value };
  if (/^(?:[a-z0-9-]+\.)+[a-z][a-z0-9-]*\.?$/i.test(value) && !/^\d/.test(value.split(".").at(-1)!))
    return { kind: "host", value: value.toLowerCase() };
  return { kind: "query", value };
}

/** The API parameters of a state's filters: the box as what it was read as, then the others. */
function searchParams(state: SearchState): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = normaliseFilter(key, state.filters[key]);
    if (value === "") continue;
    if (key === "query") {
      const box = readBox(value);
      params.set(box.kind, box.value);
    } else params.set(key, value);
  }
  return params;
}

/** The page's own address for a state: `/?query=mercy&state=OH&page=2` (the box as typed). */
export function pageUrl(state: SearchState): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = normaliseFilter(key, state.filters[key]);
    if (value !== "") params.set(key, value);
  }
  if (state.sort) params.set("sort", state.sort);
  if (state.page > 1) params.set("page", String(state.page));
  if (state.id !== null) params.set("id", state.id);
  const text = params.toString();
  return text === "" ? "/" : `/?${text}`;
}

/**
 * The home page as a newcomer opens it: no search, no filter, no order chosen, the first page.
 * It shows the developers and what to search by instead of rows: the list's default order
 * (developer, then organization name) would open on developer-wide entries without a name.
 */
export const isBareView = (state: SearchState) =>
  state.id === null &&
  state.page === 1 &&
  !state.sort &&
  FILTER_KEYS.every((key) => normaliseFilter(key, state.filters[key]) === "");

/** The orders a state's search can be put in: relevance with words of a name, distance near a ZIP, name always. */
export function sortsFor(state: SearchState): Sort[] {
  const params = searchParams(state);
  const named = /[\p{L}\p{N}]/u.test(params.get("query") ?? "");
  return [...(named ? (["relevance"] as const) : []), "name", ...(params.has("near") ? (["distance"] as const) : [])];
}

/**
 * The list operation for a state's filters, order and page. A typed name is searched by
 * relevance (`sort=relevance`) unless another order is chosen: the whole name first, as a person
 * typing it expects; near a ZIP, nearest first (the API's own order there).
 */
export function listUrl(state: SearchState): string {
  const params = searchParams(state);
  if (state.page > 1) params.set("page", String(state.page));
  const sorts = sortsFor(state);
  const chosen = state.sort && sorts.includes(state.sort) ? state.sort : "";
  if (chosen !== "" && chosen !== "distance") params.set("sort", chosen);
  else if (chosen === "" && sorts.includes("relevance")) params.set("sort", "relevance");
  const text = params.toString();
  return text === "" ? "/api/v1/endpoints" : `/api/v1/endpoints?${text}`;
}

/** The export of a state's filters (every match, no pages) in one format. */
export function exportUrl(state: SearchState, format: "csv" | "ndjson" | "fhir"): string {
  const params = searchParams(state);
  return `/api/v1/export?format=${format}${params.size > 0 ? `&${params.toString()}` : ""}`;
}

export const endpointUrl = (id: string, part = "") => `/api/v1/endpoints/${encodeURIComponent(id)}${part}`;

export const sameFilters = (a: Filters, b: Filters) =>
  FILTER_KEYS.every((key) => normaliseFilter(key, a[key]) === normaliseFilter(key, b[key]));

export const pageCount = (total: number) => Math.max(1, Math.min(MAX_PAGE, Math.ceil(total / PAGE_SIZE)));
