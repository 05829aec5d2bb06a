import { Elysia } from "elysia";
import { readEntrySource } from "../../db/entry-source";
import type { Directory } from "../../directory/directory";
import type { DatasetSnapshot } from "../../directory/snapshot";
import {
  CapabilitiesResponse,
  EndpointResponse,
  IdParams,
  LIST_INTEGER_KEYS,
  LIST_INTEGER_MESSAGES,
  LIST_QUERY_KEYS,
  ListQuery,
  ListResponse,
  type SourceRecord,
  SourceResponse,
} from "../../model/endpoints";
import { dataResponse, successBody } from "../http/answers";
import { ApiError } from "../http/api-error";
import { type Exchange, exchanges } from "../http/exchange";
import { dataPageText } from "../http/json";
import { PER_ENTRY, routeOptions } from "../http/route-options";
import { API_ERRORS, ErrorEnvelope, NOT_MODIFIED, NoQuery } from "../http/schemas";
import { checkRawQuery, integerParams, NO_PARAMETERS } from "../http/strict-query";
import { capabilitiesBody } from "./capabilities-body";
import { checkSearchCost, listSort, toEndpointFilter } from "./filter";
import { withUnusableMeta } from "./unusable-meta";

/** An id no entry has: 404 ENDPOINT_NOT_FOUND, from every by-id route. */
export const endpointNotFound = (): never => {
  throw new ApiError(404, "ENDPOINT_NOT_FOUND", "No endpoint has this id");
};
/** The error answers of a by-id route: every operation's, and 404 for an unknown id. */
export const BY_ID_ERRORS = { ...API_ERRORS, 404: ErrorEnvelope };

/** The list's last page: page 1000 at most (the list's own bound; the export has every entry). */
const LAST_PAGE = 1000;

/**
 * The list's Link header (RFC 8288): the first, previous, next and last pages of the same query,
 * as references relative to the server (the query as the client sent it, `page` replaced). No
 * `prev` on the first page, no `next` from the last page on.
 */
function pageLinks(url: string, page: number, limit: number, total: number): string {
  const target = new URL(url, "http://localhost");
  const last = Math.min(LAST_PAGE, Math.max(1, Math.ceil(total / limit)));
  const at = (n: number, rel: string) => {
    target.searchParams.set("page", String(n));
    return `<${target.pathname}${target.search}>; rel="${rel}"`;
  };
  const links = [at(1, "first")];
  if (page > 1) links.push(at(Math.min(page - 1, last), "prev"));
  if (page < last) links.push(at(page + 1, "next"));
  links.push(at(last, "last"));
  return links.join(", ");
}

/**
 * An entry's source answer: its record with its environment rule (null when production), looked
 * up once for the record and its `meta`; 404 for an unknown id.
 */
function sourceBody(snapshot: DatasetSnapshot, id: string) {
  const { fields, ...source } = snapshot.read((sqlite) => readEntrySource(sqlite, id)) ?? endpointNotFound();
  const environment = snapshot.environment(id);
  const record: SourceRecord = { ...source, environment, fields };
  return withUnusableMeta(snapshot, id, successBody(record), environment);
}

/** What every by-id route checks: the id, and no query parameters at all. */
export const BY_ID = {
  rateLimit: PER_ENTRY as typeof PER_ENTRY,
  params: IdParams,
  query: NoQuery,
  transform: ({ request }: { request: Request }) => checkRawQuery(request.url, NO_PARAMETERS),
};

/**
 * The answers of an entry and of its capabilities, by id: what the routes below return, and what
 * the direct routes (src/server/bypass/direct-routes.ts) return for the same requests. Built per request
 * (ids are read at random), with an ETag per dataset version and URL.
 */
export const endpointAnswers = (directory: Directory) => ({
  entry(exchange: Exchange, id: string): Response {
    const snapshot = directory.current;
    return dataResponse(
      exchange,
      snapshot,
      () => withUnusableMeta(snapshot, id, successBody(snapshot.endpoint(id) ?? endpointNotFound())),
      { keep: false },
    );
  },
  capabilities(exchange: Exchange, id: string): Response {
    const snapshot = directory.current;
    return dataResponse(
      exchange,
      snapshot,
      () => withUnusableMeta(snapshot, id, capabilitiesBody(snapshot.capabilities(id) ?? endpointNotFound())),
      { keep: false },
    );
  },
});

export const endpointRoutes = (directory: Directory, answers = endpointAnswers(directory)) =>
  new Elysia({ name: "endpoints", prefix: "/api/v1/endpoints", normalize: false })
    .use(routeOptions)
    .use(exchanges)
    .get(
      "",
      ({ query, exchange }) => {
        const snapshot = directory.current;
        // Built only when this URL's body is not cached yet (a cached URL has passed every check).
        return dataResponse(exchange, snapshot, (own) => {
          const filter = toEndpointFilter(query);
          const page = query.page ?? 1;
          const limit = query.limit ?? 25;
          checkSearchCost(snapshot.search.cost(filter, limit), filter);
          const { total, records, wide, bases, ready, distance } = snapshot.list(
            filter,
            (page - 1) * limit,
            limit,
            listSort(query, filter),
          );
          own.link = pageLinks(exchange.request.url, page, limit, total);
          return dataPageText(records, wide, {
            total,
            page,
            limit,
            fhirVersionBasis: bases,
            ready,
            ...(distance ? { distance } : {}),
          });
        });
      },
      {
        query: ListQuery,
        transform: ({ request, query }) => {
          checkRawQuery(request.url, LIST_QUERY_KEYS, LIST_INTEGER_MESSAGES);
          integerParams(query, LIST_INTEGER_KEYS);
        },
        response: { 200: ListResponse, ...API_ERRORS },
        detail: {
          summary: "List endpoints",
          operationId: "listEndpoints",
          description:
            "Filters combine with AND. Ordered by vendorName, then organizationName (entries without one last), then url, then id, case-insensitive (or, with `sort=relevance` beside a `query`, by how well names match it first; with `near`, nearest first unless `sort=name`); the same request always returns the same page. A page past the end returns `data: []` with the true `meta.total`. Unknown, repeated or malformed parameters → 400 VALIDATION_ERROR.",
          tags: ["Endpoints"],
          responses: {
            200: { description: "OK", headers: { Link: { $ref: "#/components/headers/Link" } } },
            304: NOT_MODIFIED,
          },
        },
      },
    )
    .get("/:id", ({ params, exchange }) => answers.entry(exchange, params.id), {
      ...BY_ID,
      response: { 200: EndpointResponse, ...BY_ID_ERRORS },
      detail: {
        summary: "Get one endpoint",
        operationId: "getEndpoint",
        description: "Removed endpoints still answer. Unknown id → 404 ENDPOINT_NOT_FOUND.",
        tags: ["Endpoints"],
        responses: { 304: NOT_MODIFIED },
      },
    })
    .get("/:id/capabilities", ({ params, exchange }) => answers.capabilities(exchange, params.id), {
      ...BY_ID,
      response: { 200: CapabilitiesResponse, ...BY_ID_ERRORS },
      detail: {
        summary: "Get an endpoint's probed capabilities",
        operationId: "getEndpointCapabilities",
        description:
          "The probe result of the endpoint's URL (entries sharing a URL share it): a summary plus the raw CapabilityStatement and SMART configuration, unmodified. Unknown id → 404 ENDPOINT_NOT_FOUND.",
        tags: ["Endpoints"],
        responses: { 304: NOT_MODIFIED },
      },
    })
    .get(
      "/:id/source",
      ({ params, exchange }) => {
        const snapshot = directory.current;
        return dataResponse(exchange, snapshot, () => sourceBody(snapshot, params.id), { keep: false });
      },
      {
        ...BY_ID,
        response: { 200: SourceResponse, ...BY_ID_ERRORS },
        detail: {
          summary: "Where an endpoint's entry comes from",
          operationId: "getEndpointSource",
          description:
            "The vendor list that carries the entry (where the developer publishes it, what was actually read — the list's URL, or ONC Lantern's copy with its repository, path and commit — as of when, and the SHA-256 of the bytes read), when the entry was first and last seen, and how its URL, fhirVersion and state are known (`developer`: inferred from the developer's certification, not seen). Every entry answers, removed and unusable ones too. No query parameters (any → 400 VALIDATION_ERROR); unknown id → 404 ENDPOINT_NOT_FOUND.",
          tags: ["Endpoints"],
          responses: { 304: NOT_MODIFIED },
        },
      },
    );
