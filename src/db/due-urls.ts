import type { Db } from "./client";

export interface DueQuery {
  now: Date;
  /** A URL probed longer ago than this is due again. */
  staleAfterMs: number;
  vendorId?: string;
  limit?: number;
}

/**
 * Distinct base URLs due for a probe: never probed, or probed before now − staleAfter. URLs whose
 * entries are all `removed` or unusable (a private or internal host, a "do not use" name: kept
 * out of the directory, so nothing is asked of them) are skipped. Never-probed first, then the
 * oldest probe.
 */
export function selectDueUrls(db: Db, query: DueQuery): string[] {
  const cutoff = new Date(query.now.getTime() - query.staleAfterMs).toISOString();
  const vendorClause = query.vendorId !== undefined ? "AND e.vendor_id = ?2" : "";
  const limitClause = query.limit !== undefined ? "LIMIT ?3" : "";
  const sql = `
    SELECT e.url AS url, p.probed_at AS probedAt
    FROM entries e LEFT JOIN probes p ON p.url = e.url
    WHERE e.status != 'removed' AND e.unusable IS NULL ${vendorClause}
    GROUP BY e.url
    HAVING p.probed_at IS NULL OR p.probed_at < ?1
    ORDER BY p.probed_at IS NOT NULL, p.probed_at, e.url
    ${limitClause}`;
  const params: (string | number)[] = [cutoff];
  if (query.vendorId !== undefined || query.limit !== undefined) params.push(query.vendorId ?? "");
  if (query.limit !== undefined) params.push(Math.max(0, Math.floor(query.limit)));
  const rows = db.sqlite.prepare(sql).all(...params) as { url: string }[];
  return rows.map((r) => r.url);
}

/**
 * Whether a URL's stored probe (its previous one, while the run has not written a new one)
 * returned a CapabilityStatement. Prepared once; for the run's outage watch.
 */
export function answeredAtLastProbe(db: Db): (url: string) => boolean {
  const statement = db.sqlite.prepare("SELECT metadata_body_id IS NOT NULL FROM probes WHERE url = ?");
  return (url) => (statement.values(url)[0]?.[0] ?? 0) === 1;
}

/** The URLs whose stored probe returned a CapabilityStatement (the outage rule picks its directory canaries from them). */
export function urlsAnsweredAtLastProbe(db: Db): string[] {
  return (db.sqlite.prepare("SELECT url FROM probes WHERE metadata_body_id IS NOT NULL").values() as [string][]).map(
    ([url]) => url,
  );
}

/** The statuses of a URL's entries (distinct). Prepared once; for the run summary's "newly …" lists. */
export function entryStatusesOf(db: Db): (url: string) => string[] {
  const statement = db.sqlite.prepare("SELECT DISTINCT status FROM entries WHERE url = ?");
  return (url) => (statement.values(url) as [string][]).map(([status]) => status);
}
