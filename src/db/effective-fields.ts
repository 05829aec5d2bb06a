import type { Database } from "bun:sqlite";

/**
 * Recomputes the served `fhirVersion`, `access` and `verdict` of every entry on the given URLs from the
 * latest probe (when it returned a CapabilityStatement / SMART audiences) or else from the hints
 * of the lists that carry the entry. `lastUpdated` moves only for entries whose values change.
 * `status` is event-driven (ingest and probe set it) and is not touched here.
 * Set-based: the URLs go into a temporary table and one UPDATE joins it, so 100,000 URLs cost
 * one statement rather than 100,000. Each UPDATE also says `entries.url IN (the touched URLs)`,
 * which the join already implies: without it SQLite reads every entry, not knowing the temporary
 * table is small (14 ms a list on the national directory, each of its 150 lists' ingest paying it).
 */
export function refreshEffectiveFields(sqlite: Database, urls: Iterable<string>, now: string): number {
  touch(sqlite, urls);
  updateVerdicts(sqlite);
  const { changes } = sqlite
    .prepare(
      `UPDATE entries SET fhir_version = d.fv, access = d.acc, last_updated = ?1
       FROM (
         SELECT e.row_id AS rid,
           COALESCE(CASE WHEN p.metadata_body_id IS NOT NULL AND p.fhir_version != 'UNKNOWN' THEN p.fhir_version END, e.list_fhir_version) AS fv,
           COALESCE(p.access, e.list_access) AS acc
         FROM temp.touched_urls t JOIN entries e ON e.url = t.url LEFT JOIN probes p ON p.url = e.url
       ) AS d
       WHERE entries.row_id = d.rid AND (entries.fhir_version != d.fv OR entries.access != d.acc)
         AND entries.url IN (SELECT url FROM temp.touched_urls)`,
    )
    .run(now);
  sqlite.exec("DELETE FROM temp.touched_urls");
  return changes;
}

/** Fills `temp.touched_urls` with `urls`. */
function touch(sqlite: Database, urls: Iterable<string>) {
  sqlite.exec("CREATE TEMP TABLE IF NOT EXISTS touched_urls (url TEXT PRIMARY KEY) WITHOUT ROWID");
  sqlite.exec("DELETE FROM temp.touched_urls");
  const insert = sqlite.prepare("INSERT OR IGNORE INTO temp.touched_urls (url) VALUES (?)");
  for (const url of urls) insert.run(url);
}

/**
 * Copies each touched URL's probe verdict to its entries. Not a field of the record, so
 * `lastUpdated` stays; the change feed's trigger sees it change.
 */
function updateVerdicts(sqlite: Database): number {
  return sqlite
    .prepare(
      `UPDATE entries SET verdict = d.v
       FROM (SELECT e.row_id AS rid, p.verdict AS v
         FROM temp.touched_urls t JOIN entries e ON e.url = t.url LEFT JOIN probes p ON p.url = e.url) AS d
       WHERE entries.row_id = d.rid AND entries.verdict IS NOT d.v
         AND entries.url IN (SELECT url FROM temp.touched_urls)`,
    )
    .run().changes;
}

/** Copies the probe verdict of each of `urls` to its entries (see updateVerdicts); returns the entries changed. */
export function refreshVerdicts(sqlite: Database, urls: Iterable<string>): number {
  touch(sqlite, urls);
  const changed = updateVerdicts(sqlite);
  sqlite.exec("DELETE FROM temp.touched_urls");
  return changed;
}
