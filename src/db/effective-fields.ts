import type { Database } from "bun:sqlite";

/**
 * Recomputes the served `fhirVersion` and `access` of every entry on the given URLs from the
 * latest probe (when it returned a CapabilityStatement / SMART audiences) or else from the hints
 * of the lists that carry the entry. `lastUpdated` moves only for entries whose values change.
 * `status` is event-driven (ingest and probe set it) and is not touched here.
 */
export function refreshEffectiveFields(sqlite: Database, urls: Iterable<string>, now: string): number {
  const statement = sqlite.prepare(`
    UPDATE entries SET fhir_version = d.fv, access = d.acc, last_updated = ?1
    FROM (
      SELECT e.row_id AS rid,
        COALESCE(CASE WHEN p.metadata_body IS NOT NULL AND p.fhir_version != 'UNKNOWN' THEN p.fhir_version END, e.list_fhir_version) AS fv,
        COALESCE(p.access, e.list_access) AS acc
      FROM entries e LEFT JOIN probes p ON p.url = e.url
      WHERE e.url = ?2
    ) AS d
    WHERE entries.row_id = d.rid AND (entries.fhir_version != d.fv OR entries.access != d.acc)`);
  let changed = 0;
  for (const url of urls) changed += statement.run(now, url).changes;
  return changed;
}
