import { Elysia, t } from "elysia";
import type { Directory } from "../../directory/directory";
import { VendorRecordSchema } from "../../model/vendors";
import { dataResponse, successBody } from "../fast-lane/data-response";
import { ErrorEnvelope, NoQuery } from "../http/schemas";
import { checkRawQuery, NO_PARAMETERS } from "../http/strict-query";

export const vendorRoutes = (directory: Directory) =>
  new Elysia({ name: "vendors", normalize: false }).get(
    "/api/v1/vendors",
    ({ request }) => {
      const snapshot = directory.current;
      return dataResponse(request, snapshot, () => successBody(snapshot.vendors));
    },
    {
      query: NoQuery,
      transform: ({ request }) => checkRawQuery(request.url, NO_PARAMETERS),
      response: {
        200: t.Object({ success: t.Literal(true), data: t.Array(VendorRecordSchema) }),
        400: ErrorEnvelope,
        429: ErrorEnvelope,
      },
      detail: {
        summary: "List vendors",
        description: "All vendors, sorted alphabetically by name, without pagination. Any query parameter → 400.",
        tags: ["Vendors"],
      },
    },
  );
