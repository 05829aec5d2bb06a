import { Elysia, t } from "elysia";
import type { Directory } from "../../directory/directory";
import { StatsSchema } from "../../model/stats";
import { dataResponse, successBody } from "../fast-lane/data-response";
import { ErrorEnvelope, NoQuery } from "../http/schemas";
import { checkRawQuery, NO_PARAMETERS } from "../http/strict-query";

export const statsRoutes = (directory: Directory) =>
  new Elysia({ name: "stats", normalize: false }).get(
    "/api/v1/stats",
    ({ request }) => {
      const snapshot = directory.current;
      return dataResponse(request, snapshot, () => successBody(snapshot.stats));
    },
    {
      query: NoQuery,
      transform: ({ request }) => checkRawQuery(request.url, NO_PARAMETERS),
      response: {
        200: t.Object({ success: t.Literal(true), data: StatsSchema }),
        400: ErrorEnvelope,
        429: ErrorEnvelope,
      },
      detail: { summary: "Dataset statistics", description: "Any query parameter → 400.", tags: ["Statistics"] },
    },
  );
