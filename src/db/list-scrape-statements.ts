import type { Database } from "bun:sqlite";
import { markDatasetChanged } from "./dataset-meta";
import { perConnection } from "./per-connection";
import type { entries, entrySources, vendorLists, vendors } from "./schema";

/**
 * The statements of the ingest (src/pipeline/ingest/store.ts): the vendor registry's upserts and
 * the writes of one list scrape. Prepared once per connection; parameter and row types come from
 * the Drizzle schema, so a column renamed or retyped in schema.ts breaks them at compile time.
 */
type Vendor = typeof vendors.$inferSelect;
type VendorList = typeof vendorLists.$inferSelect;
type Entry = typeof entries.$inferSelect;
type EntrySource = typeof entrySources.$inferSelect;

/** A vendor as the registry names it. */
export type VendorValues = Pick<Vendor, "id" | "name" | "endpointListUrl"> & {
  /** `ehr` or `payer`; absent: left as stored (`ehr` for a new vendor). */
  kind?: Vendor["kind"];
  /**
   * Its certified products (stored as JSON in `vendors.certifications`); null: none known. Absent:
   * the caller does not know them (a list scrape), so the stored ones are kept: only the registry
   * sync writes a developer's certifications.
   */
  certifications?: readonly object[] | null;
};

/** A list as the registry defines it; `publishedUrl` absent: the list is published at `url`. */
export type ListValues = Pick<VendorList, "id" | "url" | "format" | "audience" | "fhirVersion"> & {
  publishedUrl?: VendorList["publishedUrl"];
};

/** The fields of an entry a list scrape writes (as the list gives them, normalised). */
export type ListedEntry = Pick<
  Entry,
  | "id"
  | "url"
  | "organizationName"
  | "npi"
  | "tenantId"
  | "city"
  | "state"
  | "zipCode"
  | "listFhirVersion"
  | "versionEvidence"
  | "stateEvidence"
  | "urlEvidence"
  | "urlPublished"
  | "unusable"
  | "unusableDetail"
>;

/** A stored entry as a list scrape compares it with the list. */
export type StoredEntry = ListedEntry & Pick<Entry, "rowId" | "listAccess" | "status">;

const statementsOf = perConnection((sqlite) => ({
  listOwner: sqlite.prepare("SELECT vendor_id FROM vendor_lists WHERE id = ?"),
  upsertVendor: sqlite.prepare(
    `INSERT INTO vendors (id, name, endpoint_list_url, certifications, kind) VALUES (?1, ?2, ?3, ?4, COALESCE(?6, 'ehr'))
     ON CONFLICT(id) DO UPDATE SET name = excluded.name, endpoint_list_url = excluded.endpoint_list_url,
       certifications = CASE WHEN ?5 THEN excluded.certifications ELSE vendors.certifications END,
       kind = COALESCE(?6, vendors.kind)
     WHERE vendors.name IS NOT excluded.name OR vendors.endpoint_list_url IS NOT excluded.endpoint_list_url
       OR (?5 AND vendors.certifications IS NOT excluded.certifications) OR vendors.kind IS NOT COALESCE(?6, vendors.kind)`,
  ),
  upsertList: sqlite.prepare(
    `INSERT INTO vendor_lists (id, vendor_id, url, format, audience, fhir_version, published_url)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
     ON CONFLICT(id) DO UPDATE SET vendor_id = excluded.vendor_id, url = excluded.url, format = excluded.format,
       audience = excluded.audience, fhir_version = excluded.fhir_version, published_url = excluded.published_url
     WHERE vendor_lists.vendor_id IS NOT excluded.vendor_id OR vendor_lists.url IS NOT excluded.url
       OR vendor_lists.format IS NOT excluded.format OR vendor_lists.audience IS NOT excluded.audience
       OR vendor_lists.fhir_version IS NOT excluded.fhir_version
       OR vendor_lists.published_url IS NOT excluded.published_url`,
  ),
  vendorEntries: sqlite.prepare(
    `SELECT row_id AS rowId, id, url, organization_name AS organizationName, npi, tenant_id AS tenantId, city, state,
       zip_code AS zipCode, list_fhir_version AS listFhirVersion, list_access AS listAccess, status,
       version_evidence AS versionEvidence, state_evidence AS stateEvidence, url_evidence AS urlEvidence, unusable,
       unusable_detail AS unusableDetail, url_published AS urlPublished
     FROM entries WHERE vendor_id = ?`,
  ),
  listSources: sqlite.prepare("SELECT entry_row_id AS entryRowId, present FROM entry_sources WHERE list_id = ?"),
  // CROSS JOIN: from the vendor's lists (a few rows) to their sources by the primary key, rather
  // than every list's sources read to find the vendor's (7 ms a list on the national directory).
  otherListAudiences: sqlite.prepare(
    `SELECT es.entry_row_id AS entryRowId, vl.audience FROM vendor_lists vl CROSS JOIN entry_sources es ON es.list_id = vl.id
     WHERE es.present = 1 AND es.list_id != ?1 AND vl.vendor_id = ?2`,
  ),
  insertEntry: sqlite.prepare(
    `INSERT INTO entries (id, vendor_id, url, organization_name, npi, tenant_id, city, state, zip_code,
       list_fhir_version, list_access, fhir_version, access, status, last_updated,
       version_evidence, state_evidence, url_evidence, unusable, first_seen, unusable_detail, url_published)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?10, ?11, 'listed', ?17, ?12, ?13, ?14, ?15, ?17, ?16, ?18)`,
  ),
  updateServed: sqlite.prepare(
    `UPDATE entries SET organization_name = ?2, npi = ?3, tenant_id = ?4, city = ?5, state = ?6, zip_code = ?7,
       list_fhir_version = ?8, list_access = ?9, version_evidence = ?10, state_evidence = ?11, url_evidence = ?12,
       unusable = ?13, unusable_detail = ?14, status = ?15, last_updated = ?16, url_published = ?17
     WHERE row_id = ?1`,
  ),
  updateHints: sqlite.prepare(
    `UPDATE entries SET list_fhir_version = ?2, list_access = ?3, version_evidence = ?4, state_evidence = ?5,
       url_evidence = ?6, unusable_detail = ?7, url_published = ?8 WHERE row_id = ?1`,
  ),
  markRemoved: sqlite.prepare("UPDATE entries SET status = 'removed', last_updated = ?2 WHERE row_id = ?1"),
  setListAccess: sqlite.prepare("UPDATE entries SET list_access = ?2 WHERE row_id = ?1"),
  setSource: sqlite.prepare(
    `INSERT INTO entry_sources (entry_row_id, list_id, present) VALUES (?1, ?2, ?3)
     ON CONFLICT(list_id, entry_row_id) DO UPDATE SET present = excluded.present`,
  ),
  markLost: sqlite.prepare(
    `UPDATE entry_sources SET present = 0,
       last_seen = (SELECT last_scraped_at FROM vendor_lists WHERE id = ?2) WHERE entry_row_id = ?1 AND list_id = ?2`,
  ),
  recordListRead: sqlite.prepare(
    "UPDATE vendor_lists SET last_scraped_at = ?2, last_entry_count = ?3, read_from = ?4, sha256 = ?5 WHERE id = ?1",
  ),
  recordVendorScraped: sqlite.prepare("UPDATE vendors SET last_scraped_at = ?2 WHERE id = ?1"),
  probedUrlsOfVendor: sqlite.prepare(
    "SELECT DISTINCT p.url FROM probes p JOIN entries e ON e.url = p.url WHERE e.vendor_id = ?",
  ),
}));

/**
 * Inserts or renames a vendor, and sets its certifications when `vendor` carries them (null
 * included); the number of rows changed (0 when nothing differed).
 */
export function upsertVendor(sqlite: Database, vendor: VendorValues): number {
  const known = vendor.certifications !== undefined;
  const certifications = vendor.certifications ? JSON.stringify(vendor.certifications) : null;
  return statementsOf(sqlite).upsertVendor.run(
    vendor.id,
    vendor.name,
    vendor.endpointListUrl,
    certifications,
    known,
    vendor.kind ?? null,
  ).changes;
}

/** Inserts or redefines a list of `vendorId`; the number of rows changed (0 when nothing differed). */
export function upsertList(sqlite: Database, vendorId: Vendor["id"], list: ListValues): number {
  return statementsOf(sqlite).upsertList.run(
    list.id,
    vendorId,
    list.url,
    list.format,
    list.audience,
    list.fhirVersion,
    list.publishedUrl ?? null,
  ).changes;
}

/** What a list gives an entry, in the order insertEntry and updateServed bind it (?4–?16, ?2–?14). */
function listedValues(entry: ListedEntry, listAccess: string) {
  return [
    entry.organizationName,
    entry.npi,
    entry.tenantId,
    entry.city,
    entry.state,
    entry.zipCode,
    entry.listFhirVersion,
    listAccess,
    entry.versionEvidence,
    entry.stateEvidence,
    entry.urlEvidence,
    entry.unusable,
    entry.unusableDetail,
  ] as const;
}

/**
 * The statements of one list scrape on `sqlite`, to run inside its write transaction. `now` is
 * an ISO time; `listAccess` the JSON array of audiences of the lists that carry the entry.
 */
export function listScrapeStatements(sqlite: Database) {
  const s = statementsOf(sqlite);
  return {
    /** The vendor the list belongs to, or null for a list not stored yet. */
    listOwner: (listId: VendorList["id"]): Vendor["id"] | null =>
      (s.listOwner.get(listId) as Pick<VendorList, "vendorId"> | null)?.vendorId ?? null,
    /** Every entry of the vendor, removed ones too. */
    vendorEntries: (vendorId: Vendor["id"]) => s.vendorEntries.all(vendorId) as StoredEntry[],
    /** The entries this list has carried, and whether it still does (1) or not (0). */
    listSources: (listId: VendorList["id"]) =>
      s.listSources.all(listId) as (Pick<EntrySource, "entryRowId"> & { present: number })[],
    /** The entries the vendor's other lists carry now, once per list, with that list's audience. */
    otherListAudiences: (listId: VendorList["id"], vendorId: Vendor["id"]) =>
      s.otherListAudiences.all(listId, vendorId) as (Pick<EntrySource, "entryRowId"> & Pick<VendorList, "audience">)[],
    /** A new entry, `listed`, its served values the list's hints; its row id. */
    insertEntry: (vendorId: Vendor["id"], entry: ListedEntry, listAccess: string, now: string): number =>
      Number(
        s.insertEntry.run(entry.id, vendorId, entry.url, ...listedValues(entry, listAccess), now, entry.urlPublished)
          .lastInsertRowid,
      ),
    /** A served field changed: every field the list gives, the status, and `last_updated`. */
    updateServed: (
      rowId: Entry["rowId"],
      entry: ListedEntry,
      listAccess: string,
      status: Entry["status"],
      now: string,
    ): void => {
      s.updateServed.run(rowId, ...listedValues(entry, listAccess), status, now, entry.urlPublished);
    },
    /** Only the list's hints and the evidence changed: `last_updated` stays. */
    updateHints: (rowId: Entry["rowId"], entry: ListedEntry, listAccess: string): void => {
      s.updateHints.run(
        rowId,
        entry.listFhirVersion,
        listAccess,
        entry.versionEvidence,
        entry.stateEvidence,
        entry.urlEvidence,
        entry.unusableDetail,
        entry.urlPublished,
      );
    },
    markRemoved: (rowId: Entry["rowId"], now: string): void => {
      s.markRemoved.run(rowId, now);
    },
    setListAccess: (rowId: Entry["rowId"], listAccess: string): void => {
      s.setListAccess.run(rowId, listAccess);
    },
    /** The list carries the entry (again). */
    setSource: (rowId: Entry["rowId"], listId: VendorList["id"]): void => {
      s.setSource.run(rowId, listId, 1);
    },
    /** The list no longer carries the entry: last seen at the list's previous scrape. */
    markLost: (rowId: Entry["rowId"], listId: VendorList["id"]): void => {
      s.markLost.run(rowId, listId);
    },
    /** What the scrape read (`readFrom`: a URL or the JSON object of a Lantern copy), when, and how many entries. */
    recordListRead: (
      listId: VendorList["id"],
      now: string,
      entryCount: number,
      readFrom: string,
      sha256: VendorList["sha256"],
    ): void => {
      s.recordListRead.run(listId, now, entryCount, readFrom, sha256);
    },
    recordVendorScraped: (vendorId: Vendor["id"], now: string): void => {
      s.recordVendorScraped.run(vendorId, now);
    },
    /** The URLs of the vendor's entries that have a probe. */
    probedUrlsOfVendor: (vendorId: Vendor["id"]) =>
      (s.probedUrlsOfVendor.all(vendorId) as Pick<Entry, "url">[]).map(({ url }) => url),
  };
}

/**
 * Dates each entry by the newest read of the lists that carry it, where that read is newer than
 * its `last_updated` (the national build: an entry two bundled copies carry unchanged was dated by
 * the older one, while `/source` names the newer as its list, `asOf` and `lastSeen`). In one
 * transaction with a new dataset version; `last_updated` is no column of the change feed, so it
 * records nothing. Returns the number of entries dated.
 */
export function dateEntriesByNewestRead(sqlite: Database, at: string): number {
  return sqlite
    .transaction(() => {
      const { changes } = sqlite
        .prepare(
          `UPDATE entries SET last_updated = newest.at
           FROM (SELECT es.entry_row_id AS row_id, MAX(vl.last_scraped_at) AS at
                 FROM entry_sources es JOIN vendor_lists vl ON vl.id = es.list_id
                 WHERE es.present = 1 GROUP BY es.entry_row_id) AS newest
           WHERE entries.row_id = newest.row_id AND newest.at > entries.last_updated`,
        )
        .run();
      if (changes > 0) markDatasetChanged(sqlite, at);
      return changes;
    })
    .immediate();
}
