/**
 * The filters the list operation and the export both take (docs/api.md, "Filters"), written out
 * here rather than read from the code.
 */
export const FILTER_PARAMETERS = [
  "access",
  "environment",
  "fhirVersion",
  "hasResource",
  "kind",
  "query",
  "ready",
  "smartSupported",
  "state",
  "supports",
  "vendor",
] as const;
