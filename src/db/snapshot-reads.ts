import type { Database } from "bun:sqlite";
import type { entries, probeBodies, probes, vendors } from "./schema";

/**
 * The reads of one dataset snapshot (src/directory/snapshot.ts), prepared once on the
 * snapshot's connection. Rows are tuples (`.values()`: no object per row on the capabilities
 * path) whose element types come from the Drizzle schema, so a column renamed or retyped in
 * schema.ts breaks them at compile time.
 */
type Probe = typeof probes.$inferSelect;
type Body = typeof probeBodies.$inferSelect;
type Vendor = typeof vendors.$inferSelect;
type Entry = typeof entries.$inferSelect;
/** A column as bun:sqlite returns it: a boolean column is 0 or 1. */
type Raw<T> = T extends boolean ? number : T;

/** The summary fields a probe stores beside its bodies. */
type SummaryRow = [
  fhirVersion: Probe["fhirVersion"],
  softwareName: Probe["softwareName"],
  softwareVersion: Probe["softwareVersion"],
  supportedResources: Probe["supportedResources"],
  smartSupported: Raw<Probe["smartSupported"]>,
  smartCapabilities: Probe["smartCapabilities"],
  grantTypes: Probe["grantTypes"],
];

/** Where a URL's server really is: its host's TLS facts and where /metadata finally answered. */
type PlaceRow = [
  tlsProtocol: Probe["tlsProtocol"],
  tlsCertificateExpiresAt: Probe["tlsCertificateExpiresAt"],
  tlsIssuer: Probe["tlsIssuer"],
  tlsVerified: Raw<Probe["tlsVerified"]>,
  finalUrl: Probe["finalUrl"],
  redirectCount: Probe["redirectCount"],
];

/** Why /metadata gave no CapabilityStatement (the verdict's `unknown` reason when neither body was kept). */
type FailureRow = [errorKind: Probe["errorKind"], metadataHttpStatus: Probe["metadataHttpStatus"]];

/** A URL's probe: outcome, its two bodies' ids and hashes, its row id, where it is, why it failed, then the summary. */
export type ProbeRefRow = [
  url: Probe["url"],
  probedAt: Probe["probedAt"],
  probeStatus: Probe["probeStatus"],
  metadataBodyId: Probe["metadataBodyId"],
  smartBodyId: Probe["smartBodyId"],
  metadataSha256: Body["sha256"],
  smartSha256: Body["sha256"],
  rowId: number,
  ...PlaceRow,
  ...FailureRow,
  ...SummaryRow,
];

type VendorRow = [
  id: Vendor["id"],
  name: Vendor["name"],
  endpointListUrl: Vendor["endpointListUrl"],
  lastScrapedAt: Vendor["lastScrapedAt"],
  kind: Vendor["kind"],
];

const SUMMARY_COLUMNS =
  "fhir_version, software_name, software_version, supported_resources, smart_supported, smart_capabilities, grant_types";
const PLACE_COLUMNS =
  "p.tls_protocol, p.tls_certificate_expires_at, p.tls_issuer, p.tls_verified, p.final_url, p.redirect_count";
const PROBE_REF = `SELECT p.url, p.probed_at, p.probe_status, p.metadata_body_id, p.smart_body_id, m.sha256, s.sha256, p.rowid,
  ${PLACE_COLUMNS}, p.error_kind, p.metadata_http_status, ${SUMMARY_COLUMNS.replace(/(\w+)/g, "p.$1")}
  FROM probes p LEFT JOIN probe_bodies m ON m.id = p.metadata_body_id LEFT JOIN probe_bodies s ON s.id = p.smart_body_id`;

export function snapshotReads(sqlite: Database) {
  const probeByUrl = sqlite.prepare(`${PROBE_REF} WHERE p.url = ?`);
  const probeByRowId = sqlite.prepare(`${PROBE_REF} WHERE p.rowid = ?`);
  const summaryByRowId = sqlite.prepare(`SELECT ${SUMMARY_COLUMNS} FROM probes WHERE rowid = ?`);
  const bodyById = sqlite.prepare("SELECT CAST(body AS BLOB) FROM probe_bodies WHERE id = ?");
  const unusableById = sqlite.prepare(
    "SELECT unusable, unusable_detail FROM entries WHERE id = ? AND unusable IS NOT NULL",
  );
  return {
    probeByUrl: (url: string) => probeByUrl.values(url)[0] as ProbeRefRow | undefined,
    probeByRowId: (rowId: number) => probeByRowId.values(rowId)[0] as ProbeRefRow | undefined,
    summaryByRowId: (rowId: number) => summaryByRowId.values(rowId)[0] as SummaryRow,
    /** A stored body's exact bytes, null when there is no such row. */
    bodyById: (id: number) => (bodyById.values(id)[0] as [Uint8Array<ArrayBuffer>] | undefined)?.[0] ?? null,
    /** Why an entry is unusable and what its rule found; undefined when it is not (or unknown). */
    unusableById: (id: string) =>
      unusableById.values(id)[0] as
        | [reason: NonNullable<Entry["unusable"]>, detail: Entry["unusableDetail"]]
        | undefined,
    /** Every vendor, in the order the API lists them (by name, case-insensitive, then id). */
    vendors: () =>
      sqlite
        .prepare("SELECT id, name, endpoint_list_url, last_scraped_at, kind FROM vendors ORDER BY lower(name), id")
        .values() as VendorRow[],
  };
}
