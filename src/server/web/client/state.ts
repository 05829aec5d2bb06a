/**
 * What the address bar carries: the list operation's own filters (same names as the API), the
 * page, and the endpoint open in the detail view. Pure functions, shared by the page and tests.
 */
export const FILTER_KEYS = [
  "query",
  "vendor",
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

export interface SearchState {
  filters: Filters;
  page: number;
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
  return {
    filters,
    page: Number.isInteger(page) && page >= 1 ? Math.min(page, MAX_PAGE) : 1,
    id: id !== null && id !== "" ? id : null,
  };
}

function searchParams(state: SearchState): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = normaliseFilter(key, state.filters[key]);
    if (value !== "") params.set(key, value);
  }
  if (state.page > 1) params.set("page", String(state.page));
  return params;
}

/** The page's own address for a state: `/?query=mercy&state=OH&page=2`. */
export function pageUrl(state: SearchState): string {
  const params = searchParams(state);
  if (state.id !== null) params.set("id", state.id);
  const text = params.toString();
  return text === "" ? "/" : `/?${text}`;
}

/**
 * The list operation for a state's filters and page. A typed name is searched by relevance
 * (`sort=relevance`): the whole name first, as a person typing it expects; the address bar keeps
 * the filters alone.
 */
export function listUrl(state: SearchState): string {
  const params = searchParams(state);
  if (/[\p{L}\p{N}]/u.test(params.get("query") ?? "")) params.set("sort", "relevance");
  const text = params.toString();
  return text === "" ? "/api/v1/endpoints" : `/api/v1/endpoints?${text}`;
}

/** The export of a state's filters (every match, no pages) in one format. */
export function exportUrl(state: SearchState, format: "csv" | "ndjson" | "fhir"): string {
  const params = searchParams({ ...state, page: 1 });
  return `/api/v1/export?format=${format}${params.size > 0 ? `&${params.toString()}` : ""}`;
}

export const endpointUrl = (id: string, part = "") => `/api/v1/endpoints/${encodeURIComponent(id)}${part}`;

export const sameFilters = (a: Filters, b: Filters) =>
  FILTER_KEYS.every((key) => normaliseFilter(key, a[key]) === normaliseFilter(key, b[key]));

export const pageCount = (total: number) => Math.max(1, Math.min(MAX_PAGE, Math.ceil(total / PAGE_SIZE)));
