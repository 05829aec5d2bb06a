import { Elysia } from "elysia";
import type { Directory } from "../directory/directory";
import { ApiError } from "../http/api-error";
import { dataResponse, successBody } from "../http/data-response";
import { ErrorEnvelope, NoQuery } from "../http/schemas";
import { checkRawQuery, integerParams, NO_PARAMETERS } from "../http/strict-query";
import { capabilitiesBody } from "./capabilities-body";
import { toEndpointFilter } from "./filter";
import {
  CapabilitiesResponse,
  EndpointResponse,
  IdParams,
  LIST_INTEGER_KEYS,
  LIST_INTEGER_MESSAGES,
  LIST_QUERY_KEYS,
  ListQuery,
  ListResponse,
  SourceResponse,
} from "./schemas";
import { readEntrySource } from "./source";

/** An id no entry has: 404 ENDPOINT_NOT_FOUND, from every by-id route. */
export const notFound = (): never => {
  throw new ApiError(404, "ENDPOINT_NOT_FOUND", "No endpoint has this id");
};
export const ERROR_RESPONSES = { 400: ErrorEnvelope, 404: ErrorEnvelope, 429: ErrorEnvelope };

/** What every by-id route checks: the id, and no query parameters at all. */
export const BY_ID = {
  params: IdParams,
  query: NoQuery,
  transform: ({ request }: { request: Request }) => checkRawQuery(request.url, NO_PARAMETERS),
};

/**
 * The answers of an entry and of its capabilities, by id: what the routes below return, and what
 * the direct routes (src/http/direct-routes.ts) return for the same requests. Built per request
 * (ids are read at random), with an ETag per dataset version and URL.
 */
export const endpointAnswers = (directory: Directory) => ({
  entry(request: Request, id: string): Response {
    const snapshot = directory.current;
    return dataResponse(request, snapshot, () => successBody(snapshot.endpoint(id) ?? notFound()), { cached: false });
  },
  capabilities(request: Request, id: string): Response {
    const snapshot = directory.current;
    return dataResponse(request, snapshot, () => capabilitiesBody(snapshot.capabilities(id) ?? notFound()), {
      cached: false,
    });
  },
});

export const endpointRoutes = (directory: Directory, answers = endpointAnswers(directory)) =>
  new Elysia({ name: "endpoints", prefix: "/api/v1/endpoints", normalize: false })
    .get(
      "",
      ({ query, request }) => {
        const snapshot = directory.current;
        // Built only when this URL's body is not cached yet (a cached URL has passed every check).
        return dataResponse(request, snapshot, () => {
          const filter = toEndpointFilter(query);
          const page = query.page ?? 1;
          const limit = query.limit ?? 25;
          const { total, records } = snapshot.list(filter, (page - 1) * limit, limit);
          return JSON.stringify({ success: true, data: records, meta: { total, page, limit } });
        });
      },
      {
        query: ListQuery,
        transform: ({ request, query }) => {
          checkRawQuery(request.url, LIST_QUERY_KEYS, LIST_INTEGER_MESSAGES);
          integerParams(query, LIST_INTEGER_KEYS);
        },
        response: { 200: ListResponse, ...ERROR_RESPONSES },
        detail: {
          summary: "List endpoints",
          description:
            "Filters combine with AND. Ordered by vendorName, then organizationName (entries without one last), then url, then id, case-insensitive; the same request always returns the same page. A page past the end returns `data: []` with the true `meta.total`. Unknown, repeated or malformed parameters → 400 VALIDATION_ERROR.",
          tags: ["Endpoints"],
        },
      },
    )
    .get("/:id", ({ params, request }) => answers.entry(request, params.id), {
      ...BY_ID,
      response: { 200: EndpointResponse, ...ERROR_RESPONSES },
      detail: {
        summary: "Get one endpoint",
        description: "Removed endpoints still answer. Unknown id → 404 ENDPOINT_NOT_FOUND.",
        tags: ["Endpoints"],
      },
    })
    .get("/:id/capabilities", ({ params, request }) => answers.capabilities(request, params.id), {
      ...BY_ID,
      response: { 200: CapabilitiesResponse, ...ERROR_RESPONSES },
      detail: {
        summary: "Get an endpoint's probed capabilities",
        description:
          "The probe result of the endpoint's URL (entries sharing a URL share it): a summary plus the raw CapabilityStatement and SMART configuration, unmodified. Unknown id → 404 ENDPOINT_NOT_FOUND.",
        tags: ["Endpoints"],
      },
    })
    .get(
      "/:id/source",
      ({ params, request }) => {
        const snapshot = directory.current;
        return dataResponse(
          request,
          snapshot,
          () => successBody(snapshot.read((sqlite) => readEntrySource(sqlite, params.id)) ?? notFound()),
          { cached: false },
        );
      },
      {
        ...BY_ID,
        response: { 200: SourceResponse, ...ERROR_RESPONSES },
        detail: {
          summary: "Where an endpoint's entry comes from",
          description:
            "The vendor list that carries the entry (where the developer publishes it, what was actually read — the list's URL, or ONC Lantern's copy with its repository, path and commit — as of when, and the SHA-256 of the bytes read), when the entry was first and last seen, and how its URL, fhirVersion and state are known (`developer`: inferred from the developer's certification, not seen). Every entry answers, removed and unusable ones too. No query parameters (any → 400 VALIDATION_ERROR); unknown id → 404 ENDPOINT_NOT_FOUND.",
          tags: ["Endpoints"],
        },
      },
    );
