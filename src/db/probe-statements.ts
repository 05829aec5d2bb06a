import type { Statement } from "bun:sqlite";
import { perConnection } from "./per-connection";
import type { probes } from "./schema";

/** A probes row as the probe writes it (the schema's columns, JSON arrays as text). */
type ProbeRow = typeof probes.$inferSelect;

const COLUMNS = [
  ["url", "url"],
  ["probed_at", "probedAt"],
  ["probe_status", "probeStatus"],
  ["metadata_http_status", "metadataHttpStatus"],
  ["metadata_body_id", "metadataBodyId"],
  ["smart_http_status", "smartHttpStatus"],
  ["smart_body_id", "smartBodyId"],
  ["error_kind", "errorKind"],
  ["duration_ms", "durationMs"],
  ["fhir_version", "fhirVersion"],
  ["software_name", "softwareName"],
  ["software_version", "softwareVersion"],
  ["supported_resources", "supportedResources"],
  ["smart_supported", "smartSupported"],
  ["access", "access"],
  ["smart_capabilities", "smartCapabilities"],
  ["grant_types", "grantTypes"],
  ["supports", "supports"],
  ["verdict", "verdict"],
  ["tls_protocol", "tlsProtocol"],
  ["tls_certificate_expires_at", "tlsCertificateExpiresAt"],
  ["tls_issuer", "tlsIssuer"],
  ["tls_verified", "tlsVerified"],
  ["final_url", "finalUrl"],
  ["redirect_count", "redirectCount"],
] as const satisfies readonly (readonly [string, keyof ProbeRow])[];

/** The probes writes of a connection, as typed functions over statements prepared once. */
export interface ProbeWrites {
  /** Writes the URL's row, replacing the one it had. */
  upsert(row: ProbeRow): void;
  /** Sets the status of the URL's entries (not `removed` ones, and only where it changes); how many changed. */
  setEntryStatus(url: string, status: string, at: string): number;
  /** The body ids the URL's row refers to now, or undefined when it has none. */
  bodiesOf(url: string): [metadataBodyId: number | null, smartBodyId: number | null] | undefined;
}

export const probeWrites = perConnection((sqlite): ProbeWrites => {
  const upsert: Statement = sqlite.prepare(
    `INSERT INTO probes (${COLUMNS.map(([column]) => column).join(", ")})
     VALUES (${COLUMNS.map(([, field]) => `$${field}`).join(", ")})
     ON CONFLICT(url) DO UPDATE SET ${COLUMNS.slice(1)
       .map(([column]) => `${column} = excluded.${column}`)
       .join(", ")}`,
  );
  // `removed` entries keep their status; lastUpdated moves only with a change.
  const setStatus = sqlite.prepare(
    "UPDATE entries SET status = ?1, last_updated = ?2 WHERE url = ?3 AND status != 'removed' AND status != ?1",
  );
  const bodies = sqlite.prepare("SELECT metadata_body_id, smart_body_id FROM probes WHERE url = ?");
  return {
    upsert: (row) => void upsert.run(row as unknown as Record<string, string | number | boolean | null>),
    setEntryStatus: (url, status, at) => setStatus.run(status, at, url).changes,
    bodiesOf: (url) => bodies.values(url)[0] as [number | null, number | null] | undefined,
  };
});
