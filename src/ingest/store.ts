import type { Database } from "bun:sqlite";
import type { Db } from "../db/client";
import { markDatasetChanged } from "../db/dataset-meta";
import { refreshEffectiveFields } from "../db/effective-fields";
import { AUDIENCES, type Audience, type FhirVersion } from "../directory/types";
import type { ListFormat, NormalisedEntry } from "./types";

export interface VendorRow {
  id: string;
  name: string;
  endpointListUrl: string;
}

export interface ListRow {
  id: string;
  url: string;
  format: ListFormat;
  audience: Audience | null;
  fhirVersion: FhirVersion | null;
  /** Where the developer publishes the list when `url` is a copy of it; else absent. */
  publishedUrl?: string | null;
}

/** What a scrape read: a URL, or Lantern's copy of a list, and the SHA-256 of its bytes. */
export interface ReadFrom {
  what: string | { repository: string; path: string; commit: string };
  sha256: string | null;
}

export interface ListScrape {
  vendor: VendorRow;
  list: ListRow;
  /** Normalised, one per id. */
  entries: NormalisedEntry[];
  now: string;
  /** Accept an empty list or one that lost more than half of its entries. */
  force: boolean;
  /** What was read (GET /api/v1/endpoints/:id/source); absent: the list's URL, hash unknown. */
  readFrom?: ReadFrom;
}

export interface ScrapeCounts {
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
}

/** The scrape would empty the list or drop more than half of it: refused, nothing written. */
export class RefusedScrapeError extends Error {
  override name = "RefusedScrapeError";
}

interface EntryRow {
  row_id: number;
  id: string;
  url: string;
  organization_name: string | null;
  npi: string | null;
  tenant_id: string | null;
  city: string | null;
  state: string | null;
  zip_code: string | null;
  list_fhir_version: string;
  list_access: string;
  status: string;
  version_evidence: string | null;
  state_evidence: string | null;
  url_evidence: string;
  unusable: string | null;
}

function accessJson(audiences: Iterable<string | null>): string {
  const set = new Set(audiences);
  return JSON.stringify(AUDIENCES.filter((a) => set.has(a)));
}

function servedFieldsDiffer(row: EntryRow, entry: NormalisedEntry): boolean {
  return (
    row.url !== entry.url ||
    row.organization_name !== entry.organizationName ||
    row.npi !== entry.npi ||
    row.tenant_id !== entry.tenantId ||
    row.city !== entry.city ||
    row.state !== entry.state ||
    row.zip_code !== entry.zipCode ||
    row.unusable !== entry.unusable
  );
}

function evidenceDiffers(row: EntryRow, entry: NormalisedEntry): boolean {
  return (
    row.version_evidence !== entry.versionEvidence ||
    row.state_evidence !== entry.stateEvidence ||
    row.url_evidence !== entry.urlEvidence
  );
}

export function upsertVendor(sqlite: Database, vendor: VendorRow): number {
  return sqlite
    .prepare(
      `INSERT INTO vendors (id, name, endpoint_list_url) VALUES (?1, ?2, ?3)
       ON CONFLICT(id) DO UPDATE SET name = excluded.name, endpoint_list_url = excluded.endpoint_list_url
       WHERE vendors.name IS NOT excluded.name OR vendors.endpoint_list_url IS NOT excluded.endpoint_list_url`,
    )
    .run(vendor.id, vendor.name, vendor.endpointListUrl).changes;
}

export function upsertList(sqlite: Database, vendorId: string, list: ListRow): number {
  return sqlite
    .prepare(
      `INSERT INTO vendor_lists (id, vendor_id, url, format, audience, fhir_version, published_url)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
       ON CONFLICT(id) DO UPDATE SET vendor_id = excluded.vendor_id, url = excluded.url, format = excluded.format,
         audience = excluded.audience, fhir_version = excluded.fhir_version, published_url = excluded.published_url
       WHERE vendor_lists.vendor_id IS NOT excluded.vendor_id OR vendor_lists.url IS NOT excluded.url
         OR vendor_lists.format IS NOT excluded.format OR vendor_lists.audience IS NOT excluded.audience
         OR vendor_lists.fhir_version IS NOT excluded.fhir_version
         OR vendor_lists.published_url IS NOT excluded.published_url`,
    )
    .run(list.id, vendorId, list.url, list.format, list.audience, list.fhirVersion, list.publishedUrl ?? null).changes;
}

interface ListState {
  /** Every entry of the vendor, by id. */
  existing: Map<string, EntryRow>;
  /** Entries this list has carried, by row id: whether it still does. */
  presentHere: Map<number, boolean>;
  /** Audiences of the other lists that currently carry each entry, by row id (null: a list without audience). */
  elsewhere: Map<number, (string | null)[]>;
}

/** Three queries, whatever the size of the list: no per-entry SELECT. */
function loadListState(sqlite: Database, vendorId: string, listId: string): ListState {
  const existing = new Map<string, EntryRow>();
  for (const row of sqlite.prepare("SELECT * FROM entries WHERE vendor_id = ?").all(vendorId) as EntryRow[])
    existing.set(row.id, row);
  const presentHere = new Map<number, boolean>();
  const sources = sqlite.prepare("SELECT entry_row_id, present FROM entry_sources WHERE list_id = ?").all(listId) as {
    entry_row_id: number;
    present: number;
  }[];
  for (const source of sources) presentHere.set(source.entry_row_id, source.present === 1);
  const elsewhere = new Map<number, (string | null)[]>();
  const otherSources = sqlite
    .prepare(
      `SELECT es.entry_row_id, vl.audience FROM entry_sources es JOIN vendor_lists vl ON vl.id = es.list_id
       WHERE es.present = 1 AND es.list_id != ?1 AND vl.vendor_id = ?2`,
    )
    .all(listId, vendorId) as { entry_row_id: number; audience: string | null }[];
  for (const source of otherSources) {
    const audiences = elsewhere.get(source.entry_row_id) ?? [];
    audiences.push(source.audience);
    elsewhere.set(source.entry_row_id, audiences);
  }
  return { existing, presentHere, elsewhere };
}

function prepareWrites(sqlite: Database) {
  return {
    insertEntry: sqlite.prepare(
      `INSERT INTO entries (id, vendor_id, url, organization_name, npi, tenant_id, city, state, zip_code,
         list_fhir_version, list_access, fhir_version, access, status, last_updated,
         version_evidence, state_evidence, url_evidence, unusable, first_seen)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?10, ?11, 'listed', ?12, ?13, ?14, ?15, ?16, ?12)`,
    ),
    updateServed: sqlite.prepare(
      `UPDATE entries SET organization_name = ?2, npi = ?3, tenant_id = ?4, city = ?5, state = ?6, zip_code = ?7,
         list_fhir_version = ?8, list_access = ?9, status = ?10, last_updated = ?11,
         version_evidence = ?12, state_evidence = ?13, url_evidence = ?14, unusable = ?15 WHERE row_id = ?1`,
    ),
    updateHints: sqlite.prepare(
      `UPDATE entries SET list_fhir_version = ?2, list_access = ?3, version_evidence = ?4, state_evidence = ?5,
         url_evidence = ?6 WHERE row_id = ?1`,
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
  };
}

/**
 * Writes one successful scrape of one list, in one transaction (readers see the old list or the
 * new one, never half): new entries → `listed`; entries this list no longer has lose it as a
 * source, and become `removed` once no list still has them; `removed` entries that are back →
 * `listed`. `last_updated` moves only when a served field changes. Throws RefusedScrapeError
 * (and writes nothing) for an empty list or one that lost more than half of its entries, unless forced.
 */
export function applyListScrape(db: Db, scrape: ListScrape): ScrapeCounts {
  const { sqlite } = db;
  const { vendor, list, entries, now } = scrape;
  const counts: ScrapeCounts = { added: 0, updated: 0, unchanged: 0, removed: 0 };

  const write = sqlite.transaction(() => {
    const owner = sqlite.prepare("SELECT vendor_id FROM vendor_lists WHERE id = ?").get(list.id) as {
      vendor_id: string;
    } | null;
    if (owner && owner.vendor_id !== vendor.id) throw new Error(`list ${list.id} belongs to vendor ${owner.vendor_id}`);
    upsertVendor(sqlite, vendor);
    upsertList(sqlite, vendor.id, list);

    const { existing, presentHere, elsewhere } = loadListState(sqlite, vendor.id, list.id);

    const incoming = new Set(entries.map((e) => e.id));
    const lost = [...existing.values()].filter((row) => presentHere.get(row.row_id) === true && !incoming.has(row.id));
    const previouslyPresent = [...presentHere.values()].filter(Boolean).length;
    if (!scrape.force) {
      if (entries.length === 0) throw new RefusedScrapeError("the list is empty (use --force to accept)");
      if (lost.length * 2 > previouslyPresent) {
        throw new RefusedScrapeError(
          `the list lost ${lost.length} of its ${previouslyPresent} entries at once (use --force to accept)`,
        );
      }
    }

    const { insertEntry, updateServed, updateHints, markRemoved, setListAccess, setSource, markLost } =
      prepareWrites(sqlite);
    const touchedUrls = new Set<string>();
    /** New entries start with the list hints as served values; only a probe of their URL can change that. */
    const insertedUrls = new Set<string>();

    for (const entry of entries) {
      const row = existing.get(entry.id);
      const listAccess = accessJson([...(row ? (elsewhere.get(row.row_id) ?? []) : []), list.audience]);
      if (!row) {
        const rowId = insertEntry.run(
          entry.id,
          vendor.id,
          entry.url,
          entry.organizationName,
          entry.npi,
          entry.tenantId,
          entry.city,
          entry.state,
          entry.zipCode,
          entry.listFhirVersion,
          listAccess,
          now,
          entry.versionEvidence,
          entry.stateEvidence,
          entry.urlEvidence,
          entry.unusable,
        ).lastInsertRowid;
        setSource.run(rowId, list.id, 1);
        insertedUrls.add(entry.url);
        counts.added++;
        continue;
      }
      const wasPresent = presentHere.get(row.row_id) === true;
      const status = row.status === "removed" ? "listed" : row.status;
      const servedChanged = servedFieldsDiffer(row, entry) || status !== row.status;
      const hintsChanged = row.list_fhir_version !== entry.listFhirVersion || row.list_access !== listAccess;
      const evidenceChanged = evidenceDiffers(row, entry);
      if (servedChanged) {
        updateServed.run(
          row.row_id,
          entry.organizationName,
          entry.npi,
          entry.tenantId,
          entry.city,
          entry.state,
          entry.zipCode,
          entry.listFhirVersion,
          listAccess,
          status,
          now,
          entry.versionEvidence,
          entry.stateEvidence,
          entry.urlEvidence,
          entry.unusable,
        );
      } else if (hintsChanged || evidenceChanged) {
        updateHints.run(
          row.row_id,
          entry.listFhirVersion,
          listAccess,
          entry.versionEvidence,
          entry.stateEvidence,
          entry.urlEvidence,
        );
      }
      if (hintsChanged) touchedUrls.add(entry.url);
      if (!wasPresent) setSource.run(row.row_id, list.id, 1);
      if (!wasPresent) counts.added++;
      else if (servedChanged) counts.updated++;
      else counts.unchanged++;
    }

    for (const row of lost) {
      markLost.run(row.row_id, list.id);
      counts.removed++;
      const others = elsewhere.get(row.row_id);
      if (!others) {
        if (row.status !== "removed") markRemoved.run(row.row_id, now);
        continue;
      }
      const listAccess = accessJson(others);
      if (listAccess !== row.list_access) {
        setListAccess.run(row.row_id, listAccess);
        touchedUrls.add(row.url);
      }
    }

    const read = scrape.readFrom ?? { what: list.url, sha256: null };
    sqlite
      .prepare(
        "UPDATE vendor_lists SET last_scraped_at = ?2, last_entry_count = ?3, read_from = ?4, sha256 = ?5 WHERE id = ?1",
      )
      .run(
        list.id,
        now,
        entries.length,
        typeof read.what === "string" ? read.what : JSON.stringify(read.what),
        read.sha256,
      );
    sqlite.prepare("UPDATE vendors SET last_scraped_at = ?2 WHERE id = ?1").run(vendor.id, now);
    markDatasetChanged(sqlite, now);
    if (insertedUrls.size > 0) {
      const probed = sqlite
        .prepare("SELECT DISTINCT p.url FROM probes p JOIN entries e ON e.url = p.url WHERE e.vendor_id = ?")
        .all(vendor.id) as { url: string }[];
      for (const { url } of probed) if (insertedUrls.has(url)) touchedUrls.add(url);
    }
    refreshEffectiveFields(sqlite, touchedUrls, now);
  });

  write.immediate();
  return counts;
}
