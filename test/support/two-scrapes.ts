import type { Db } from "../../src/db/client";
import { readDatasetVersion } from "../../src/db/dataset-meta";
import { entryId } from "../../src/model/identity";
import type { ProbeResult } from "../../src/model/probe";
import { ingestContent, syncVendorRegistry } from "../../src/pipeline/ingest";
import { bareSummary } from "../pipeline/probe/helpers";
import { acmeRegistry } from "./acme";

/**
 * Two scrapes of one developer's list, through the real ingest code: the first has Alpha, Beta,
 * Gamma and Delta; the second loses Gamma, moves Beta from Raleigh, NC to Dallas, TX, and adds
 * Epsilon. The change feed's and FHIR `_lastUpdated`'s tests read what they changed.
 */
const REGISTRY = acmeRegistry(
  [{ id: "acme-list", url: "https://acme.example/developers/endpoints.json", format: "lantern-json" }],
  { defaultFhirVersion: "R4" },
);

const item = (key: string, OrganizationName: string, OrganizationZipCode: string) => ({
  URL: `https://fhir.acme.example/r4/${key}`,
  OrganizationName,
  NPIID: "",
  OrganizationZipCode,
});
export const ALPHA = item("alpha", "Alpha Clinic", "02114");
export const BETA = item("beta", "Beta Practice", "27601");
export const GAMMA = item("gamma", "Gamma Health", "60601");
export const DELTA = item("delta", "Delta Eye Care", "98101");
export const EPSILON = item("epsilon", "Epsilon Care", "30301");
const BETA_MOVED = { ...BETA, OrganizationZipCode: "75201" };
export const idOf = (entry: { URL: string; OrganizationName: string }) =>
  entryId("acme", entry.URL, null, entry.OrganizationName);

export const FIRST_AT = "2026-11-01T00:00:00.000Z";
export const SECOND_AT = "2026-11-02T00:00:00.000Z";
export const PROBE_AT = "2026-11-03T00:00:00.000Z";

/** Both scrapes into `db`; returns the dataset version after the first. */
export async function scrapeTwice(db: Db): Promise<number> {
  syncVendorRegistry(db, REGISTRY);
  const ingest = async (Endpoints: object[], now: string) => {
    const content = JSON.stringify({ Endpoints });
    const summary = await ingestContent(db, { vendorId: "acme", listId: "acme-list", content, now }, REGISTRY);
    if (!summary.ok) throw new Error(`scrape of ${now} failed`);
  };
  await ingest([ALPHA, BETA, GAMMA, DELTA], FIRST_AT);
  const first = readDatasetVersion(db.sqlite);
  await ingest([ALPHA, BETA_MOVED, DELTA, EPSILON], SECOND_AT);
  return first;
}

const document = (ok: boolean, body: string | null) => ({
  ok,
  httpStatus: ok ? 200 : null,
  body,
  json: body === null ? null : JSON.parse(body),
  errorKind: ok ? null : ("timeout" as const),
  errorMessage: null,
  finalUrl: "",
  redirects: 0,
  requests: 1,
  durationMs: 5,
});

/** A probe whose /metadata returned an R4 CapabilityStatement: its entries become verified. */
export const answered = (url: string): ProbeResult => ({
  url,
  startedAt: PROBE_AT,
  tls: null,
  durationMs: 5,
  probeStatus: "partial",
  entryStatus: "verified",
  errorKind: null,
  metadata: document(true, '{"resourceType":"CapabilityStatement","fhirVersion":"4.0.1"}'),
  smart: document(false, null),
  summary: bareSummary("R4"),
  access: null,
});

/** A probe that timed out: its entries become unresponsive. */
export const silent = (url: string): ProbeResult => ({
  ...answered(url),
  probeStatus: "failed",
  entryStatus: "unresponsive",
  errorKind: "timeout",
  metadata: document(false, null),
  summary: bareSummary("UNKNOWN"),
});
