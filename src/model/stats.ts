import { type Static, type TInteger, Type } from "@sinclair/typebox";
import { FHIR_VERSIONS, type FhirVersion } from "./types";

const count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });

/** The dataset statistics /api/v1/stats serves; `StatsRecord` is its static type. */
export const StatsSchema = Type.Object({
  totalEndpoints: count(
    "Entries in the directory now; entries removed from their vendor's list are not counted (here or in fhirVersionCounts).",
  ),
  vendorCount: count("Vendors in the directory (the length of /api/v1/vendors)."),
  fhirVersionCounts: Type.Object(
    Object.fromEntries(FHIR_VERSIONS.map((version) => [version, count()])) as Record<FhirVersion, TInteger>,
    {
      description: "Entries per FHIR version; every key always present.",
    },
  ),
  lastUpdated: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
    description: "When the dataset was last written by a refresh; null for an empty dataset.",
  }),
});

export const StatsResponse = Type.Object(
  { success: Type.Literal(true), data: StatsSchema },
  {
    examples: [
      {
        success: true,
        data: {
          totalEndpoints: 3,
          vendorCount: 2,
          fhirVersionCounts: Object.fromEntries(
            FHIR_VERSIONS.map((version) => [version, version === "R4" ? 2 : version === "DSTU2" ? 1 : 0]),
          ),
          lastUpdated: "2026-11-25T04:00:00.000Z",
        },
      },
    ],
  },
);

/** The record the API serves: the static type of its response schema, never a second copy. */
export type StatsRecord = Static<typeof StatsSchema>;
