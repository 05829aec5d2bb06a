import { Elysia, t } from "elysia";
import type { Directory } from "../directory/directory";
import { dataResponse, successBody } from "../http/data-response";
import { ErrorEnvelope, NoQuery } from "../http/schemas";
import { checkRawQuery, NO_PARAMETERS } from "../http/strict-query";

const VendorRecordSchema = t.Object({
  id: t.String({ description: "Vendor id; the `vendor` filter value of the list operation.", examples: ["epic"] }),
  name: t.String({ description: "Display name.", examples: ["Epic Systems"] }),
  endpointCount: t.Number({
    description: "Entries of this vendor in the directory now; entries removed from its lists are not counted.",
  }),
  endpointListUrl: t.String({
    format: "uri",
    description: "The public page or file where the vendor publishes its endpoint list, as a person would open it.",
  }),
  lastScrapedAt: t.Union([t.String({ format: "date-time" }), t.Null()], {
    description: "ISO 8601 time of the last successful scrape of any of the vendor's lists; null if never scraped.",
  }),
});

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
