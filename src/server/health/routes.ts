import { Elysia } from "elysia";
import { exchanges } from "../http/exchange";
import { jsonResponse } from "../http/json";
import { routeOptions } from "../http/route-options";
import { ErrorEnvelope } from "../http/schemas";
import { HealthResponse } from "./schemas";

/** Liveness only: never touches the database, ignores query parameters, never rate limited. */
export const healthRoutes = (clock: () => Date) =>
  new Elysia({ name: "health" })
    .use(exchanges)
    .use(routeOptions)
    .get(
      "/health",
      ({ exchange }) =>
        jsonResponse(
          exchange,
          200,
          JSON.stringify({ success: true, data: { status: "ok", timestamp: clock().toISOString() } }),
          { "cache-control": "no-store" },
        ),
      {
        rateLimit: false,
        response: { 200: HealthResponse, 405: ErrorEnvelope, 500: ErrorEnvelope },
        detail: {
          summary: "Liveness probe",
          operationId: "getHealth",
          security: [],
          responses: {
            200: { description: "OK", headers: { "Cache-Control": { $ref: "#/components/headers/Cache-Control" } } },
          },
          description:
            "200 means the API process is running; it says nothing about the dataset's freshness. Query parameters are ignored (monitors add cache-busters). Not rate limited.",
          tags: ["Health"],
        },
      },
    );
