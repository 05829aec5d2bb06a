import { Elysia } from "elysia";
import type { FreshnessReader } from "../../db/freshness";
import { FreshnessResponse } from "../../model/freshness";
import { exchanges } from "../http/exchange";
import { jsonResponse } from "../http/json";
import { API_ERRORS, NoQuery } from "../http/schemas";
import { checkRawQuery, NO_PARAMETERS } from "../http/strict-query";

/**
 * GET /api/v1/freshness: how fresh the directory is (model/freshness.ts). It changes while a
 * refresh runs, without a new dataset version, so it is answered fresh every time (no ETag,
 * `no-store`); a few small reads of the database, no scan.
 */
export const freshnessRoutes = (freshness: FreshnessReader, clock: () => Date) =>
  new Elysia({ name: "freshness", normalize: false }).use(exchanges).get(
    "/api/v1/freshness",
    ({ exchange }) =>
      jsonResponse(exchange, 200, JSON.stringify({ success: true, data: freshness.read(clock()) }), {
        "cache-control": "no-store",
      }),
    {
      query: NoQuery,
      transform: ({ request }) => checkRawQuery(request.url, NO_PARAMETERS),
      response: { 200: FreshnessResponse, ...API_ERRORS },
      detail: {
        summary: "How fresh the directory is",
        description:
          "Where and when the lists were read (the bundled copy, Lantern's copy, the developer's own), the refresh running now (URLs asked of its total), how the last one ended, and when the next is due (docs/api.md, Freshness). Changes while a refresh runs: answered with `Cache-Control: no-store` and no ETag. Any query parameter → 400.",
        operationId: "getFreshness",
        tags: ["Statistics"],
        responses: {
          200: {
            description: "OK",
            headers: { "Cache-Control": { $ref: "#/components/headers/Cache-Control" } },
          },
        },
      },
    },
  );
