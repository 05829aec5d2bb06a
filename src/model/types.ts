export const FHIR_VERSIONS = ["DSTU2", "STU3", "R4", "R4B", "R5", "UNKNOWN"] as const;
export type FhirVersion = (typeof FHIR_VERSIONS)[number];
/** The versions a client may filter on (UNKNOWN is not a filter value). */
export const FILTERABLE_FHIR_VERSIONS = ["DSTU2", "STU3", "R4", "R4B", "R5"] as const;

export const AUDIENCES = ["patient", "provider"] as const;
export type Audience = (typeof AUDIENCES)[number];

export const ENDPOINT_STATUSES = ["listed", "verified", "unresponsive", "removed"] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

export const PROBE_STATUSES = ["success", "partial", "failed", "unchecked"] as const;
export type ProbeStatus = (typeof PROBE_STATUSES)[number];
