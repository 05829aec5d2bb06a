import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Db } from "../../db/client";
import { markDatasetChanged } from "../../db/dataset-meta";
import { upsertList, upsertVendor } from "../../db/list-scrape-statements";
import type { Audience } from "../../model/types";
import { decodeListBody } from "./decode";
import { fetchAndParseList, ListFetchError } from "./fetch-list";
import { fileList } from "./file-list";
import { normaliseEntries } from "./normalise";
import { parseList } from "./parsers";
import { ListTooLargeError, readListFile } from "./read-body";
import { findVendor, loadRegistry } from "./registry";
import { applyListScrape, type ReadFrom, RefusedScrapeError } from "./store";
import { progressLine } from "./summary-table";
import {
  type DroppedItem,
  type ListDefinition,
  type ListFormat,
  type ListSummary,
  type NameRepairItem,
  type NormalisedEntry,
  type ParseResult,
  type RepairedItem,
  UnparseableListError,
  type UnusableEntry,
  type VendorDefinition,
} from "./types";

const DEFAULT_TIMEOUT_MS = 30_000;
/** The default of `maxBytes` (loadConfig's INGEST_MAX_BYTES). */
const DEFAULT_MAX_BYTES = 100_000_000;

function failure(vendorId: string, listId: string, source: string, error: string, skipped = 0): ListSummary {
  const counts = { added: 0, updated: 0, unchanged: 0, removed: 0 };
  return {
    vendorId,
    listId,
    source,
    ok: false,
    error,
    ...counts,
    skipped,
    repairs: [],
    dropped: [],
    unusable: [],
    nameRepairs: [],
  };
}

/** The source column of the summary: a registry list's source, else how it was read. */
function sourceOf(list: ListDefinition, readFrom?: "file" | "bundled"): string {
  return readFrom ?? list.source ?? "developer";
}

function describe(error: unknown): string {
  if (error instanceof UnparseableListError) return `unparseable: ${error.message}`;
  if (error instanceof RefusedScrapeError) return `refused: ${error.message}`;
  if (error instanceof ListFetchError || error instanceof ListTooLargeError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

interface PreparedList {
  format: ListFormat;
  entries: NormalisedEntry[];
  skipped: number;
  repairs: RepairedItem[];
  dropped: DroppedItem[];
  nameRepairs: NameRepairItem[];
  sha256: string | null;
}

async function prepareList(
  vendor: VendorDefinition,
  list: ListDefinition,
  load: () => Promise<ParseResult>,
  allowPrivateNetwork: boolean,
): Promise<PreparedList> {
  const parsed = await load();
  const named = list.organizationName;
  const items =
    named === undefined
      ? parsed.entries
      : parsed.entries.map((item) => (item.organizationName?.trim() ? item : { ...item, organizationName: named }));
  const normalised = normaliseEntries(items, {
    vendorId: vendor.id,
    listFhirVersion: list.fhirVersion,
    defaultFhirVersion: list.certificationWithdrawn ? null : (vendor.defaultFhirVersion ?? null),
    allowPrivateNetwork,
  });
  return {
    format: parsed.format,
    entries: normalised.entries,
    skipped: parsed.skipped + normalised.dropped.length,
    repairs: normalised.repairs,
    dropped: normalised.dropped,
    nameRepairs: normalised.nameRepairs,
    sha256: parsed.sha256 ?? null,
  };
}

/** The unusable entries of a list with the reason of each, for the report. */
function unusableOf(entries: NormalisedEntry[]): UnusableEntry[] {
  return entries.flatMap(({ url, organizationName, unusable, unusableDetail }) =>
    unusable === null ? [] : [{ url, organizationName, kind: unusable, reason: unusableDetail ?? unusable }],
  );
}

/** SHA-256 (hex) of bytes or of a text's UTF-8 bytes. */
const sha256Hex = (data: Uint8Array | string) => new Bun.CryptoHasher("sha256").update(data).digest("hex");

/** Parses (via `load`), normalises and stores one list; every failure becomes a summary, nothing is thrown. */
async function scrapeList(
  db: Db,
  vendor: VendorDefinition,
  list: ListDefinition,
  load: () => Promise<ParseResult>,
  options: {
    force?: boolean;
    now?: string;
    readFrom?: "file" | "bundled";
    read?: ReadFrom["what"];
    allowPrivateNetwork?: boolean;
  },
): Promise<ListSummary> {
  const source = sourceOf(list, options.readFrom);
  let prepared: PreparedList;
  try {
    prepared = await prepareList(vendor, list, load, options.allowPrivateNetwork ?? false);
  } catch (error) {
    return failure(vendor.id, list.id, source, describe(error));
  }
  // The parsed body is garbage by now; collecting it before the write keeps the peak memory of
  // a 100 MB list well under a gigabyte.
  if (prepared.entries.length >= 10_000) Bun.gc(true);
  try {
    const counts = applyListScrape(db, {
      vendor: { id: vendor.id, name: vendor.name, endpointListUrl: vendor.endpointListUrl, kind: vendor.kind ?? "ehr" },
      // A registry list keeps its declared format; a list of its own from a file records what was detected.
      list: {
        id: list.id,
        url: list.url,
        format: list.url.startsWith("file:") ? prepared.format : list.format,
        audience: list.audience,
        fhirVersion: list.fhirVersion,
        publishedUrl: list.publishedUrl ?? null,
      },
      entries: prepared.entries,
      now: options.now ?? new Date().toISOString(),
      force: options.force ?? false,
      readFrom: { what: options.read ?? list.url, sha256: prepared.sha256 },
    });
    return {
      vendorId: vendor.id,
      listId: list.id,
      source,
      ok: true,
      ...counts,
      skipped: prepared.skipped,
      repairs: prepared.repairs,
      dropped: prepared.dropped,
      unusable: unusableOf(prepared.entries),
      nameRepairs: prepared.nameRepairs,
    };
  } catch (error) {
    return failure(vendor.id, list.id, source, describe(error), prepared.skipped);
  }
}

/** Ingests one list from a file; its format is detected from the content. */
export async function ingestFile(
  db: Db,
  opts: {
    vendorId: string;
    file: string;
    listId?: string;
    access?: Audience;
    force?: boolean;
    now?: string;
    /** The most bytes read (default 100 MB); a larger file, or an endless one, fails. */
    maxBytes?: number;
    /** Another vendor registry file (default: the configured one). */
    registryPath?: string;
    /** Another registry than the configured one, already loaded (the sample dataset has its own). */
    registry?: VendorDefinition[];
    /** Keep entries on loopback/private hosts usable (ALLOW_PRIVATE_NETWORK, as for fetched lists). */
    allowPrivateNetwork?: boolean;
  },
): Promise<ListSummary> {
  const registry = opts.registry ?? loadRegistry(opts.registryPath);
  const vendor = findVendor(registry, opts.vendorId);
  const list = fileList(registry, vendor, opts.file, opts.listId, opts.access);
  const load = async () => {
    const bytes = await readListFile(opts.file, opts.maxBytes ?? DEFAULT_MAX_BYTES);
    return { ...parseList(decodeListBody(bytes), list.columns), sha256: sha256Hex(bytes) };
  };
  return scrapeList(db, vendor, list, load, {
    ...opts,
    readFrom: "file",
    read: pathToFileURL(resolve(opts.file)).href,
  });
}

/** Ingests one registry list from its content in memory (the bundled national lists). */
export async function ingestContent(
  db: Db,
  opts: {
    vendorId: string;
    listId: string;
    content: string;
    force?: boolean;
    now?: string;
    /** Where the content was read (Lantern's repository, path and commit); default the list's URL. */
    read?: ReadFrom["what"];
  },
  registry: VendorDefinition[] = loadRegistry(),
): Promise<ListSummary> {
  const vendor = findVendor(registry, opts.vendorId);
  const list = vendor.lists.find((l) => l.id === opts.listId);
  if (!list) throw new Error(`vendor ${vendor.id} has no list ${opts.listId}`);
  const load = async () => ({ ...parseList(opts.content, list.columns), sha256: sha256Hex(opts.content) });
  return scrapeList(db, vendor, list, load, { ...opts, readFrom: "bundled" });
}

interface NetworkOptions {
  /** Another vendor registry file (default: the configured one). */
  registryPath?: string;
  force?: boolean;
  timeoutMs?: number;
  now?: string;
  log?: (line: string) => void;
  /**
   * Let list fetches reach private addresses, and list entries on private and loopback hosts
   * (loadConfig's ALLOW_PRIVATE_NETWORK: local development and tests). Default false.
   */
  allowPrivateNetwork?: boolean;
  /** The most bytes read of one list, every page together (default 100 MB). */
  maxBytes?: number;
}

async function ingestLists(db: Db, vendors: VendorDefinition[], opts: NetworkOptions): Promise<ListSummary[]> {
  const log = opts.log ?? (() => {});
  const work = vendors.flatMap((vendor) => vendor.lists.map((list) => ({ vendor, list })));
  for (const { vendor, list } of work.filter((w) => w.list.manual)) {
    log(`${vendor.id} / ${list.id}: published as a web page only, not fetched (ingest a saved copy with --file)`);
  }
  const fetched = work.filter((w) => !w.list.manual);
  const summaries: ListSummary[] = [];
  for (const [index, { vendor, list }] of fetched.entries()) {
    const started = performance.now();
    const load = () =>
      fetchAndParseList(list, list.url, {
        timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES,
        allowPrivate: opts.allowPrivateNetwork ?? false,
      });
    const summary = await scrapeList(db, vendor, list, load, opts);
    summaries.push(summary);
    log(progressLine(index + 1, fetched.length, summary, performance.now() - started));
  }
  return summaries;
}

/** Fetches and ingests every list of one vendor over the network. */
export async function ingestVendor(db: Db, opts: { vendorId: string } & NetworkOptions): Promise<ListSummary[]> {
  return ingestLists(db, [findVendor(loadRegistry(opts.registryPath), opts.vendorId)], opts);
}

/** Fetches and ingests every list of every vendor in the registry. */
export async function ingestAll(db: Db, opts: NetworkOptions): Promise<ListSummary[]> {
  return ingestLists(db, loadRegistry(opts.registryPath), opts);
}

/** Upserts every vendor and list of the registry (names, list URLs, audiences); scrape times are kept. */
export function syncVendorRegistry(db: Db, registry: VendorDefinition[] = loadRegistry()): void {
  const { sqlite } = db;
  sqlite
    .transaction(() => {
      let changes = 0;
      for (const vendor of registry) {
        changes += upsertVendor(sqlite, { ...vendor, certifications: vendor.certifications ?? null });
        for (const list of vendor.lists) changes += upsertList(sqlite, vendor.id, list);
      }
      if (changes > 0) markDatasetChanged(sqlite, new Date().toISOString());
    })
    .immediate();
}
