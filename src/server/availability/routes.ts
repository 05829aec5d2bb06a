import { Elysia } from "elysia";
import type { Directory } from "../../directory/directory";
import { BY_ID, BY_ID_ERRORS, endpointNotFound } from "../endpoints/routes";
import { withUnusableMeta } from "../endpoints/unusable-meta";
import { dataResponse } from "../http/answers";
import { type Exchange, exchanges } from "../http/exchange";
import { routeOptions } from "../http/route-options";
import { NOT_MODIFIED } from "../http/schemas";
import { AvailabilityResponse } from "./schemas";
import { availabilityBody } from "./service";

/**
 * An entry's availability, by id: what the route below returns, and what the direct route
 * (src/server/bypass/direct-routes.ts) returns for the same request. Built per request (ids are read at
 * random), ETag per dataset version and id.
 */
export const availabilityAnswer = (directory: Directory) => (exchange: Exchange, id: string) => {
  const snapshot = directory.current;
  return dataResponse(
    exchange,
    snapshot,
    () => withUnusableMeta(snapshot, id, availabilityBody(snapshot, id) ?? endpointNotFound()),
    { keep: false },
  );
};

/** `GET /api/v1/endpoints/:id/availability`. */
export const availabilityRoutes = (directory: Directory, answer = availabilityAnswer(directory)) =>
  new Elysia({ name: "availability", prefix: "/api/v1/endpoints", normalize: false })
    .use(exchanges)
    .use(routeOptions)
    .get("/:id/availability", ({ params, exchange }) => answer(exchange, params.id), {
      ...BY_ID,
      response: { 200: AvailabilityResponse, ...BY_ID_ERRORS },
      detail: {
        summary: "Get an endpoint's availability history",
        operationId: "getEndpointAvailability",
        description:
          "Does the endpoint's URL usually answer, and how fast: uptime over 1, 7, 30 and 365 days (probes whose /metadata returned a CapabilityStatement ÷ probes in the window), /metadata response times over 30 days, the last success and failure, and the last 20 probes. Entries sharing a URL share it. Every probe is kept 30 days, then as daily figures for 400 days. No query parameters (any → 400 VALIDATION_ERROR); unknown id → 404 ENDPOINT_NOT_FOUND.",
        tags: ["Endpoints"],
        responses: { 304: NOT_MODIFIED },
      },
    });
