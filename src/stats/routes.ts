import { Elysia, t } from "elysia";
import type { Directory } from "../directory/directory";
import { FHIR_VERSIONS } from "../directory/types";
import { dataResponse, successBody } from "../http/data-response";
import { ErrorEnvelope, NoQuery } from "../http/schemas";
import { checkRawQuery, NO_PARAMETERS } from "../http/strict-query";

const StatsSchema = t.Object({
  totalEndpoints: t.Number({
    description:
      "Entries in the directory now; entries removed from their vendor's list are not counted (here or in fhirVersionCounts).",
  }),
  vendorCount: t.Number({ description: "Vendors in the directory (the length of /api/v1/vendors)." }),
  fhirVersionCounts: t.Object(Object.fromEntries(FHIR_VERSIONS.map((version) => [version, t.Number()])), {
    description: "Entries per FHIR version; every key always present.",
  }),
  lastUpdated: t.Union([t.String({ format: "date-time" }), t.Null()], {
    description: "When the dataset was last written by a refresh; null for an empty dataset.",
  }),
});

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
