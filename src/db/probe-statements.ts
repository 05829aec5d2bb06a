import type { Database, Statement } from "bun:sqlite";

/** The probes statements of a connection, prepared once (src/pipeline/probe/store.ts runs them). */
export interface ProbeStatements {
  upsert: Statement;
  setStatus: Statement;
  bodiesOf: Statement;
}

const statements = new WeakMap<Database, ProbeStatements>();

export function probeStatements(sqlite: Database): ProbeStatements {
  let s = statements.get(sqlite);
  if (!s) {
    s = {
      upsert: sqlite.prepare(`
        INSERT INTO probes (url, probed_at, probe_status, metadata_http_status, metadata_body_id, smart_http_status, smart_body_id,
          error_kind, duration_ms, fhir_version, software_name, software_version, supported_resources, smart_supported,
          access, smart_capabilities, grant_types, supports, verdict, tls_protocol, tls_certificate_expires_at,
          tls_issuer, tls_verified, final_url, redirect_count)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)
        ON CONFLICT(url) DO UPDATE SET
          probed_at = excluded.probed_at, probe_status = excluded.probe_status,
          metadata_http_status = excluded.metadata_http_status, metadata_body_id = excluded.metadata_body_id,
          smart_http_status = excluded.smart_http_status, smart_body_id = excluded.smart_body_id,
          error_kind = excluded.error_kind, duration_ms = excluded.duration_ms, fhir_version = excluded.fhir_version,
          software_name = excluded.software_name, software_version = excluded.software_version,
          supported_resources = excluded.supported_resources, smart_supported = excluded.smart_supported,
          access = excluded.access, smart_capabilities = excluded.smart_capabilities, grant_types = excluded.grant_types,
          supports = excluded.supports, verdict = excluded.verdict,
          tls_protocol = excluded.tls_protocol, tls_certificate_expires_at = excluded.tls_certificate_expires_at,
          tls_issuer = excluded.tls_issuer, tls_verified = excluded.tls_verified, final_url = excluded.final_url,
          redirect_count = excluded.redirect_count`),
      // `removed` entries keep their status; lastUpdated moves only with a change.
      setStatus: sqlite.prepare(
        `UPDATE entries SET status = ?1, last_updated = ?2 WHERE url = ?3 AND status != 'removed' AND status != ?1`,
      ),
      bodiesOf: sqlite.prepare("SELECT metadata_body_id, smart_body_id FROM probes WHERE url = ?"),
    };
    statements.set(sqlite, s);
  }
  return s;
}
