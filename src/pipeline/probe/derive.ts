import { boundText, cleanText } from "../../model/clean-text";
import { releaseOfVersion } from "../../model/fhir-version";
import {
  type DocumentResult,
  type ErrorKind,
  type ProbeOutcomeStatus,
  type ProbeSummary,
  UNREACHABLE_ERROR_KINDS,
} from "../../model/probe";
import { resourceTypeNames } from "../../model/resource-types";
import type { Audience, FhirVersion } from "../../model/types";

/**
 * The FHIR release of a CapabilityStatement `fhirVersion` (docs/api.md, "FHIR version mapping"):
 * 0.4–1.0.2 → DSTU2; 1.1–3.0.2 → STU3; 3.2–4.0.1 → R4; 4.1, 4.3 → R4B; 4.2, 4.4–5.0.x → R5;
 * anything else → UNKNOWN. Pre-release labels (`4.0.1-cibuild`, `3.5a.0`) count by their numbers.
 */
export function mapFhirVersion(value: unknown): FhirVersion {
  return (typeof value === "string" && releaseOfVersion(value)) || "UNKNOWN";
}

/**
 * What the summary keeps of a server's text (software name and version, SMART capabilities and
 * grant types): control characters and bidi overrides stripped as list text is, and bounded, so a
 * hostile server cannot reverse or widen the record page or bloat every probe row.
 */
const SUMMARY_TEXT_MAX = 200;
/** The most SMART capabilities or grant types the summary keeps (real servers publish about 30). */
const SUMMARY_LIST_MAX = 100;

function summaryText(value: unknown): string | null {
  const text = cleanText(value);
  return text === null ? null : boundText(text, SUMMARY_TEXT_MAX);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** Distinct `rest[].resource[].type` that have the form of a resource type name, sorted, bounded. */
function supportedResources(statement: Record<string, unknown>): string[] {
  function* types() {
    for (const rest of asArray(statement.rest))
      for (const resource of asArray(asObject(rest)?.resource)) yield asObject(resource)?.type;
  }
  return resourceTypeNames(types());
}

/**
 * The parts of a parsed document derive() reads (top-level scalars, `software`, the resource
 * types it would keep, the SMART lists' strings): fetch.ts keeps only these, so that the whole
 * tree is let go at once instead of living until the URL's other document arrives.
 */
export function whatDeriveReads(json: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) if (value === null || typeof value !== "object") kept[key] = value;
  const software = asObject(json.software);
  if (software) kept.software = { name: software.name, version: software.version };
  if (Array.isArray(json.rest)) kept.rest = [{ resource: supportedResources(json).map((type) => ({ type })) }];
  for (const key of ["capabilities", "grant_types_supported"])
    if (Array.isArray(json[key])) kept[key] = (json[key] as unknown[]).filter((v) => typeof v === "string");
  return kept;
}

/** The strings of a published array, in published order, cleaned (duplicates dropped), at most SUMMARY_LIST_MAX. */
function publishedStrings(value: unknown): string[] {
  const kept = new Set<string>();
  for (const item of asArray(value)) {
    const text = summaryText(item);
    if (text !== null) kept.add(text);
    if (kept.size === SUMMARY_LIST_MAX) break;
  }
  return [...kept];
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
    softwareName: summaryText(software?.name),
    softwareVersion: summaryText(software?.version),
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
