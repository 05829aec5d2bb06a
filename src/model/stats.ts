import type { Static, TNumber } from "@sinclair/typebox";
import { t } from "elysia";
import { FHIR_VERSIONS, type FhirVersion } from "./types";

/** The dataset statistics /api/v1/stats serves; `StatsRecord` is its static type. */
export const StatsSchema = t.Object({
  totalEndpoints: t.Number({
    description:
      "Entries in the directory now; entries removed from their vendor's list are not counted (here or in fhirVersionCounts).",
  }),
  vendorCount: t.Number({ description: "Vendors in the directory (the length of /api/v1/vendors)." }),
  fhirVersionCounts: t.Object(
    Object.fromEntries(FHIR_VERSIONS.map((version) => [version, t.Number()])) as Record<FhirVersion, TNumber>,
    {
      description: "Entries per FHIR version; every key always present.",
    },
  ),
  lastUpdated: t.Union([t.String({ format: "date-time" }), t.Null()], {
    description: "When the dataset was last written by a refresh; null for an empty dataset.",
  }),
});

/** The record the API serves: the static type of its response schema, never a second copy. */
export type StatsRecord = Static<typeof StatsSchema>;
