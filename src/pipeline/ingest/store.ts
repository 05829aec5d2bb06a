import type { Db } from "../../db/client";
import { markDatasetChanged } from "../../db/dataset-meta";
import { refreshEffectiveFields } from "../../db/effective-fields";
import { listScrapeStatements, type StoredEntry, upsertList, upsertVendor } from "../../db/list-scrape-statements";
import { AUDIENCES, type Audience, type FhirVersion } from "../../model/types";
import type { VendorKind } from "../../model/vendors";
import type { ListFormat, NormalisedEntry } from "./types";

interface VendorRow {
  id: string;
  name: string;
  endpointListUrl: string;
  /** `ehr` or `payer`; absent: left as stored. */
  kind?: VendorKind;
}

interface ListRow {
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

function accessJson(audiences: Iterable<string | null>): string {
  const set = new Set(audiences);
  return JSON.stringify(AUDIENCES.filter((a) => set.has(a)));
}

function servedFieldsDiffer(row: StoredEntry, entry: NormalisedEntry): boolean {
  return (
    row.url !== entry.url ||
    row.organizationName !== entry.organizationName ||
    row.npi !== entry.npi ||
    row.tenantId !== entry.tenantId ||
    row.city !== entry.city ||
    row.state !== entry.state ||
    row.zipCode !== entry.zipCode ||
    row.unusable !== entry.unusable
  );
}

function evidenceDiffers(row: StoredEntry, entry: NormalisedEntry): boolean {
  return (
    row.versionEvidence !== entry.versionEvidence ||
    row.stateEvidence !== entry.stateEvidence ||
    row.urlEvidence !== entry.urlEvidence ||
    row.urlPublished !== entry.urlPublished ||
    row.unusableDetail !== entry.unusableDetail
  );
}

interface ListState {
  /** Every entry of the vendor, by id. */
  existing: Map<string, StoredEntry>;
  /** Entries this list has carried, by row id: whether it still does. */
  presentHere: Map<number, boolean>;
  /** Audiences of the other lists that currently carry each entry, by row id (null: a list without audience). */
  elsewhere: Map<number, (string | null)[]>;
}

/** Three queries, whatever the size of the list: no per-entry SELECT. */
function loadListState(
  statements: ReturnType<typeof listScrapeStatements>,
  vendorId: string,
  listId: string,
): ListState {
  const existing = new Map<string, StoredEntry>();
  for (const row of statements.vendorEntries(vendorId)) existing.set(row.id, row);
  const presentHere = new Map<number, boolean>();
  for (const source of statements.listSources(listId)) presentHere.set(source.entryRowId, source.present === 1);
  const elsewhere = new Map<number, (string | null)[]>();
  for (const source of statements.otherListAudiences(listId, vendorId)) {
    const audiences = elsewhere.get(source.entryRowId) ?? [];
    audiences.push(source.audience);
    elsewhere.set(source.entryRowId, audiences);
  }
  return { existing, presentHere, elsewhere };
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
  const statements = listScrapeStatements(sqlite);

  const write = sqlite.transaction(() => {
    const owner = statements.listOwner(list.id);
    if (owner !== null && owner !== vendor.id) throw new Error(`list ${list.id} belongs to vendor ${owner}`);
    upsertVendor(sqlite, vendor);
    upsertList(sqlite, vendor.id, list);

    const { existing, presentHere, elsewhere } = loadListState(statements, vendor.id, list.id);

    const incoming = new Set(entries.map((e) => e.id));
    const lost = [...existing.values()].filter((row) => presentHere.get(row.rowId) === true && !incoming.has(row.id));
    const previouslyPresent = [...presentHere.values()].filter(Boolean).length;
    if (!scrape.force) {
      if (entries.length === 0) throw new RefusedScrapeError("the list is empty (use --force to accept)");
      if (lost.length * 2 > previouslyPresent) {
        throw new RefusedScrapeError(
          `the list lost ${lost.length} of its ${previouslyPresent} entries at once (use --force to accept)`,
        );
      }
    }

    const touchedUrls = new Set<string>();
    /** New entries start with the list hints as served values; only a probe of their URL can change that. */
    const insertedUrls = new Set<string>();

    for (const entry of entries) {
      const row = existing.get(entry.id);
      const listAccess = accessJson([...(row ? (elsewhere.get(row.rowId) ?? []) : []), list.audience]);
      if (!row) {
        const rowId = statements.insertEntry(vendor.id, entry, listAccess, now);
        statements.setSource(rowId, list.id);
        insertedUrls.add(entry.url);
        counts.added++;
        continue;
      }
      const wasPresent = presentHere.get(row.rowId) === true;
      const status = row.status === "removed" ? "listed" : row.status;
      const servedChanged = servedFieldsDiffer(row, entry) || status !== row.status;
      const hintsChanged = row.listFhirVersion !== entry.listFhirVersion || row.listAccess !== listAccess;
      const evidenceChanged = evidenceDiffers(row, entry);
      if (servedChanged) statements.updateServed(row.rowId, entry, listAccess, status, now);
      else if (hintsChanged || evidenceChanged) statements.updateHints(row.rowId, entry, listAccess);
      if (hintsChanged) touchedUrls.add(entry.url);
      if (!wasPresent) statements.setSource(row.rowId, list.id);
      if (!wasPresent) counts.added++;
      else if (servedChanged) counts.updated++;
      else counts.unchanged++;
    }

    for (const row of lost) {
      statements.markLost(row.rowId, list.id);
      counts.removed++;
      const others = elsewhere.get(row.rowId);
      if (!others) {
        if (row.status !== "removed") statements.markRemoved(row.rowId, now);
        continue;
      }
      const listAccess = accessJson(others);
      if (listAccess !== row.listAccess) {
        statements.setListAccess(row.rowId, listAccess);
        touchedUrls.add(row.url);
      }
    }

    const read = scrape.readFrom ?? { what: list.url, sha256: null };
    statements.recordListRead(
      list.id,
      now,
      entries.length,
      typeof read.what === "string" ? read.what : JSON.stringify(read.what),
      read.sha256,
    );
    statements.recordVendorScraped(vendor.id, now);
    markDatasetChanged(sqlite, now);
    if (insertedUrls.size > 0) {
      for (const url of statements.probedUrlsOfVendor(vendor.id)) if (insertedUrls.has(url)) touchedUrls.add(url);
    }
    refreshEffectiveFields(sqlite, touchedUrls, now);
  });

  write.immediate();
  return counts;
}
