import { releaseOfVersion } from "../../model/fhir-version";
import {
  type DocumentResult,
  type ErrorKind,
  type ProbeOutcomeStatus,
  type ProbeSummary,
  UNREACHABLE_ERROR_KINDS,
} from "../../model/probe";
import type { Audience, FhirVersion } from "../../model/types";

/**
 * The FHIR release of a CapabilityStatement `fhirVersion` (docs/api.md, "FHIR version mapping"):
 * 0.4–1.0.2 → DSTU2; 1.1–3.0.2 → STU3; 3.2–4.0.1 → R4; 4.1, 4.3 → R4B; 4.2, 4.4–5.0.x → R5;
 * anything else → UNKNOWN. Pre-release labels (`4.0.1-cibuild`, `3.5a.0`) count by their numbers.
 */
export function mapFhirVersion(value: unknown): FhirVersion {
  return (typeof value === "string" && releaseOfVersion(value)) || "UNKNOWN";
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** Distinct `rest[].resource[].type`, sorted. */
function supportedResources(statement: Record<string, unknown>): string[] {
  const types = new Set<string>();
  for (const rest of asArray(statement.rest)) {
    for (const resource of asArray(asObject(rest)?.resource)) {
      const type = asObject(resource)?.type;
      if (typeof type === "string" && type.trim() !== "") types.add(type.trim());
    }
  }
  return [...types].sort();
}

/** The strings of a published array, in published order (duplicates dropped). */
function publishedStrings(value: unknown): string[] {
  return [...new Set(asArray(value).filter((v): v is string => typeof v === "string"))];
}

const PATIENT_CAPABILITIES = new Set(["launch-standalone", "context-standalone-patient"]);
const PROVIDER_CAPABILITIES = new Set(["launch-ehr", "context-ehr-patient", "permission-user"]);

/**
 * Audiences from SMART capabilities (docs/api.md, "Access"): patient for `launch-standalone`,
 * `context-standalone-patient` or any `permission-patient`; provider for `launch-ehr`,
 * `context-ehr-patient` or `permission-user`. Null when they name neither.
 */
export function accessFromCapabilities(capabilities: readonly string[]): Audience[] | null {
  const patient = capabilities.some((c) => PATIENT_CAPABILITIES.has(c) || c.startsWith("permission-patient"));
  const provider = capabilities.some((c) => PROVIDER_CAPABILITIES.has(c));
  const access: Audience[] = [];
  if (patient) access.push("patient");
  if (provider) access.push("provider");
  return access.length > 0 ? access : null;
}

export interface Derived {
  summary: ProbeSummary;
  access: Audience[] | null;
  probeStatus: ProbeOutcomeStatus;
  entryStatus: "verified" | "unresponsive" | null;
  errorKind: ErrorKind | null;
}

const UNREACHABLE = new Set<string>(UNREACHABLE_ERROR_KINDS);

/** A document that never got an HTTP response because the server could not be reached. */
function unreachable(doc: Pick<DocumentResult, "httpStatus" | "errorKind">): boolean {
  return doc.httpStatus === null && doc.errorKind !== null && UNREACHABLE.has(doc.errorKind);
}

/** Everything the directory keeps from one probe, from its two documents. Pure. */
export function derive(
  metadata: Pick<DocumentResult, "ok" | "json" | "httpStatus" | "errorKind">,
  smart: Pick<DocumentResult, "ok" | "json" | "httpStatus" | "errorKind">,
): Derived {
  const statement = metadata.ok ? metadata.json : null;
  const configuration = smart.ok ? smart.json : null;
  const software = asObject(statement?.software);
  const resources = statement ? supportedResources(statement) : [];
  const smartCapabilities = configuration ? publishedStrings(configuration.capabilities) : [];
  const summary: ProbeSummary = {
    fhirVersion: statement ? mapFhirVersion(statement.fhirVersion) : "UNKNOWN",
    softwareName: stringOrNull(software?.name),
    softwareVersion: stringOrNull(software?.version),
    supportedResourceCount: resources.length,
    supportedResources: resources,
    smartSupported: configuration !== null,
    smartCapabilities,
    grantTypes: configuration ? publishedStrings(configuration.grant_types_supported) : [],
  };
  const okCount = (statement ? 1 : 0) + (configuration ? 1 : 0);
  const probeStatus: ProbeOutcomeStatus = okCount === 2 ? "success" : okCount === 1 ? "partial" : "failed";
  const entryStatus = statement ? "verified" : unreachable(metadata) && unreachable(smart) ? "unresponsive" : null;
  return {
    summary,
    access: accessFromCapabilities(smartCapabilities),
    probeStatus,
    entryStatus,
    errorKind: metadata.errorKind ?? smart.errorKind ?? null,
  };
}
