import type { Database } from "bun:sqlite";
import type { entries, vendorLists, vendors } from "./schema";

/**
 * What the report cards read besides the index (src/directory/report-cards.ts), inside the index
 * build's read transaction. Rows are tuples whose element types come from the Drizzle schema.
 */
type Entry = typeof entries.$inferSelect;
type List = typeof vendorLists.$inferSelect;
type Vendor = typeof vendors.$inferSelect;

export function reportReads(sqlite: Database) {
  return {
    /**
     * Per vendor and unusable reason (null: listed), the entries not removed, and of them how many
     * have an organization name, an NPI, a ZIP code, a state, an https URL, a version the list or URL states.
     */
    entryFigures: () =>
      sqlite
        .prepare(
          `SELECT vendor_id, unusable, COUNT(*),
             SUM(organization_name IS NOT NULL AND organization_name != ''), SUM(npi IS NOT NULL),
             SUM(zip_code IS NOT NULL), SUM(state IS NOT NULL), SUM(url LIKE 'https://%'),
             SUM(version_evidence IN ('list', 'url'))
           FROM entries WHERE status != 'removed' GROUP BY vendor_id, unusable`,
        )
        .values() as [
        vendorId: Entry["vendorId"],
        unusable: Entry["unusable"],
        entries: number,
        organizationName: number,
        npi: number,
        zipCode: number,
        state: number,
        https: number,
        statedFhirVersion: number,
      ][],
    /** Every list, by vendor and id. */
    lists: () =>
      sqlite
        .prepare(
          `SELECT vendor_id, id, url, published_url, last_scraped_at, last_entry_count, read_from
           FROM vendor_lists ORDER BY vendor_id, id`,
        )
        .values() as [
        vendorId: List["vendorId"],
        id: List["id"],
        url: List["url"],
        publishedUrl: List["publishedUrl"],
        lastScrapedAt: List["lastScrapedAt"],
        lastEntryCount: List["lastEntryCount"],
        readFrom: List["readFrom"],
      ][],
    /** Every vendor's id, name, certified products (JSON, or null) and kind. */
    vendors: () =>
      sqlite.prepare("SELECT id, name, certifications, kind FROM vendors ORDER BY lower(name), id").values() as [
        id: Vendor["id"],
        name: Vendor["name"],
        certifications: Vendor["certifications"],
        kind: Vendor["kind"],
      ][],
  };
}
export type ReportReads = ReturnType<typeof reportReads>;
