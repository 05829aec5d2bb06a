import { Database } from "bun:sqlite";

/** How many entries the database holds, removed ones included. */
export function countEntries(sqlite: Database): number {
  return (sqlite.prepare("SELECT COUNT(*) FROM entries").values()[0] as [number])[0];
}

/** Of the listed entries (not removed, not unusable): how many, how many with a state, how many with a FHIR version. */
export function entryCoverage(sqlite: Database): { n: number; state: number; version: number } {
  return sqlite
    .prepare(
      `SELECT COUNT(*) AS n, COALESCE(SUM(state IS NOT NULL), 0) AS state, COALESCE(SUM(fhir_version != 'UNKNOWN'), 0) AS version
       FROM entries WHERE status != 'removed' AND unusable IS NULL`,
    )
    .get() as { n: number; state: number; version: number };
}

function counts(sqlite: Database, sql: string): string {
  const rows = sqlite.prepare(sql).all() as { k: string; n: number }[];
  return rows.map((r) => `${r.k} ${r.n}`).join(", ");
}

/** What a built database file holds, in a few lines (`data:sample` and `db:national` print them). */
export function describeDatabase(path: string): string[] {
  const sqlite = new Database(path, { readonly: true });
  try {
    const total = (sqlite.prepare("SELECT COUNT(*) AS n FROM entries").get() as { n: number }).n;
    const vendors = (sqlite.prepare("SELECT COUNT(DISTINCT vendor_id) AS n FROM entries").get() as { n: number }).n;
    const urls = (sqlite.prepare("SELECT COUNT(DISTINCT url) AS n FROM entries").get() as { n: number }).n;
    const [listed, unusable] = sqlite
      .prepare(
        "SELECT COALESCE(SUM(unusable IS NULL), 0), COALESCE(SUM(unusable IS NOT NULL), 0) FROM entries WHERE status != 'removed'",
      )
      .values()[0] as [number, number];
    return [
      `entries ${total} (${vendors} vendors, ${urls} distinct URLs): ${listed} listed, ${unusable} unusable (kept out of the listings)`,
      `status: ${counts(sqlite, "SELECT status AS k, COUNT(*) AS n FROM entries GROUP BY status ORDER BY status")}`,
      `fhirVersion: ${counts(sqlite, "SELECT fhir_version AS k, COUNT(*) AS n FROM entries GROUP BY fhir_version ORDER BY fhir_version")}`,
      `probeStatus: ${counts(sqlite, "SELECT COALESCE(p.probe_status, 'unchecked') AS k, COUNT(*) AS n FROM entries e LEFT JOIN probes p ON p.url = e.url GROUP BY k ORDER BY k")}`,
      `access: ${counts(sqlite, "SELECT access AS k, COUNT(*) AS n FROM entries GROUP BY access ORDER BY access")}`,
    ];
  } finally {
    sqlite.close();
  }
}

/** The largest row id of the entries table (0 when empty): an index's row ids must not exceed it. */
export function maxEntryRowId(sqlite: Database): number {
  return (sqlite.prepare("SELECT COALESCE(MAX(row_id), 0) FROM entries").values()[0] as [number])[0];
}
