import { Elysia } from "elysia";
import type { Directory } from "../../directory/directory";
import { StatsResponse } from "../../model/stats";
import { dataResponse, successBody } from "../http/answers";
import { API_ERRORS, NOT_MODIFIED, NoQuery } from "../http/schemas";
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
      response: { 200: StatsResponse, ...API_ERRORS },
      detail: {
        summary: "Dataset statistics",
        description: "Any query parameter → 400.",
        operationId: "getStats",
        tags: ["Statistics"],
        responses: { 304: NOT_MODIFIED },
      },
    },
  );
