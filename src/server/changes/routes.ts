import { Elysia } from "elysia";
import type { Directory } from "../../directory/directory";
import { dataResponse } from "../http/answers";
import { exchanges } from "../http/exchange";
import { API_ERRORS, ErrorEnvelope, NOT_MODIFIED } from "../http/schemas";
import { checkRawQuery, integerParams } from "../http/strict-query";
import {
  CHANGES_INTEGER_KEYS,
  CHANGES_INTEGER_MESSAGES,
  CHANGES_QUERY_KEYS,
  ChangesQuery,
  ChangesResponse,
} from "./schemas";
import { changesBody } from "./service";

/** `GET /api/v1/changes`: what was added, removed or changed since a dataset version. */
export const changesRoutes = (directory: Directory) =>
  new Elysia({ name: "changes", normalize: false }).use(exchanges).get(
    "/api/v1/changes",
    ({ query, exchange }) => {
      const snapshot = directory.current;
      return dataResponse(exchange, snapshot, () => changesBody(snapshot, query));
    },
    {
      query: ChangesQuery,
      transform: ({ request, query }) => {
        checkRawQuery(request.url, CHANGES_QUERY_KEYS, CHANGES_INTEGER_MESSAGES);
        integerParams(query, CHANGES_INTEGER_KEYS);
      },
      response: { 200: ChangesResponse, ...API_ERRORS, 410: ErrorEnvelope },
      detail: {
        summary: "List changes since a dataset version",
        operationId: "listChanges",
        description:
          "What each dataset version added to the list, removed from it, or changed in a listed entry, oldest first (by version, then by entry); kept 400 days. To keep a copy: `GET /api/v1/changes` (no `since`) gives the current version in `meta.until`; download the export; then ask `since=<until>`, follow `meta.next` until it is null, apply each change (added: fetch `GET /api/v1/endpoints/{id}`; removed: drop it; changed: set each field to `to`), and keep the last `meta.until` for next time. Unknown, repeated or malformed parameters, a `since` above the current version or `limit` out of 1–1000 → 400 VALIDATION_ERROR; a `since` older than the changes kept → 410 CHANGES_EXPIRED.",
        tags: ["Changes"],
        responses: { 304: NOT_MODIFIED },
      },
    },
  );
