/**
 * The filters the list operation and the export both take (docs/api.md, "Filters"), written out
 * here rather than read from the code.
 */
export const FILTER_PARAMETERS = [
  "access",
  "city",
  "environment",
  "fhirVersion",
  "hasResource",
  "host",
  "kind",
  "near",
  "npi",
  "query",
  "radius",
  "ready",
  "smartSupported",
  "state",
  "supports",
  "url",
  "vendor",
] as const;
