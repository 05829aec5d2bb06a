import type { Database } from "bun:sqlite";
import { bodyText } from "./probe-bodies";
import type { entries, probes, vendors } from "./schema";

/**
 * What the directory index build reads (src/directory/build-data.ts), inside one read
 * transaction. Rows are tuples (`.values()`: no object per row at 1M entries) whose element types
 * come from the Drizzle schema, so a column renamed or retyped in schema.ts breaks them at
 * compile time.
 */
type Entry = typeof entries.$inferSelect;
type Probe = typeof probes.$inferSelect;
type Vendor = typeof vendors.$inferSelect;
/** A column as bun:sqlite returns it: a boolean column is 0 or 1. */
type Raw<T> = T extends boolean ? number : T;

/** Every vendor's id and name. */
export const vendorNameRows = (sqlite: Database) =>
  sqlite.prepare("SELECT id, name FROM vendors").values() as [id: Vendor["id"], name: Vendor["name"]][];

/** Each vendor's kind (`ehr`, `payer`). */
export const vendorKindRows = (sqlite: Database) =>
  sqlite.prepare("SELECT id, kind FROM vendors").values() as [id: Vendor["id"], kind: Vendor["kind"]][];

/**
 * Per probed URL: its row id, the resources, SMART flag, supports and verdict the filters use,
 * when it was probed, and 1 when its CapabilityStatement named a version (the served version is
 * then the probe's, src/db/effective-fields.ts).
 */
export const probeFactRows = (sqlite: Database) =>
  sqlite
    .prepare(
      `SELECT rowid, url, supported_resources, smart_supported, probed_at,
         metadata_body_id IS NOT NULL AND fhir_version != 'UNKNOWN', supports, verdict FROM probes`,
    )
    .values() as [
    rowId: number,
    url: Probe["url"],
    supportedResources: Probe["supportedResources"],
    smartSupported: Raw<Probe["smartSupported"]>,
    probedAt: Probe["probedAt"],
    versionSeen: number,
    supports: Probe["supports"],
    verdict: Probe["verdict"],
  ][];

/** Every probe's URL, body ids and TLS facts, and a stored body's text (the capability statistics). */
export function probeBodyReads(sqlite: Database) {
  return {
    probeBodies: () =>
      sqlite
        .prepare(
          `SELECT url, metadata_body_id, smart_body_id, probed_at, tls_protocol, tls_certificate_expires_at,
             tls_issuer, tls_verified, final_url, redirect_count FROM probes`,
        )
        .values() as [
        url: Probe["url"],
        metadataBodyId: Probe["metadataBodyId"],
        smartBodyId: Probe["smartBodyId"],
        probedAt: Probe["probedAt"],
        tlsProtocol: Probe["tlsProtocol"],
        tlsCertificateExpiresAt: Probe["tlsCertificateExpiresAt"],
        tlsIssuer: Probe["tlsIssuer"],
        tlsVerified: number | null,
        finalUrl: Probe["finalUrl"],
        redirectCount: Probe["redirectCount"],
      ][],
    body: (id: number) => bodyText(sqlite, id),
  };
}

type EntryRow = [
  rowId: Entry["rowId"],
  id: Entry["id"],
  url: Entry["url"],
  vendorId: Entry["vendorId"],
  organizationName: Entry["organizationName"],
  npi: Entry["npi"],
  tenantId: Entry["tenantId"],
  city: Entry["city"],
  state: Entry["state"],
  zipCode: Entry["zipCode"],
  fhirVersion: Entry["fhirVersion"],
  access: Entry["access"],
  status: Entry["status"],
  lastUpdated: Entry["lastUpdated"],
  /** 1 when the entry is unusable (kept out of the listings). */
  unusable: number,
  versionEvidence: Entry["versionEvidence"],
  /** The release the entry's list or URL states (`list_fhir_version` when its evidence is list or url), else null. */
  statedVersion: Entry["listFhirVersion"] | null,
  urlEvidence: Entry["urlEvidence"],
  /** 1 when the entry's state (and city, ZIP) came from its organization name (state evidence `name-place`). */
  namePlace: number,
];

/** Entries in row-id order, `limit` at a time after row id `after` (call `.values(after)` repeatedly). */
export function entryChunks(sqlite: Database, limit: number): (after: number) => EntryRow[] {
  const chunk = sqlite.prepare(
    `SELECT row_id, id, url, vendor_id, organization_name, npi, tenant_id, city, state, zip_code, fhir_version, access, status, last_updated,
       unusable IS NOT NULL, version_evidence,
       CASE WHEN version_evidence IN ('list', 'url') THEN list_fhir_version END, url_evidence,
       state_evidence IS 'name-place'
     FROM entries WHERE row_id > ? ORDER BY row_id LIMIT ${limit}`,
  );
  return (after) => chunk.values(after) as EntryRow[];
}
