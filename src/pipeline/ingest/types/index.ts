/**
 * The records ingest passes between its steps (parsed, normalised, stored, summarised), in a
 * folder of their own so that the parsers and enrichers import them without importing ingest.
 */
import type { StateEvidence, UnusableReason, UrlEvidence, VersionEvidence } from "../../../model/evidence";
import type { CertificationRecord } from "../../../model/report-card";
import type { Audience, FhirVersion } from "../../../model/types";
import type { VendorKind } from "../../../model/vendors";
import type { NameRepairKind } from "../enrich/name-repair";

export const LIST_FORMATS = ["fhir-bundle", "lantern-json", "csv"] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

/** One item of a vendor list as published, before normalisation. */
export interface RawEntry {
  url: string;
  organizationName: string | null;
  npi: string | null;
  city: string | null;
  state: string | null;
  zipCode: string | null;
  /** A version the item itself states (an `endpoint-fhir-version` extension, a column): "4.0.1", "R4"… */
  fhirVersion: string | null;
}

export interface ParseResult {
  format: ListFormat;
  entries: RawEntry[];
  /** Items that could not be read (no URL, broken reference…); never fatal to the rest of the list. */
  skipped: number;
  /** The `next` link of a paged FHIR searchset Bundle. */
  nextPageUrl?: string;
  /** SHA-256 (hex) of the bytes read, every page in order; set by whoever read them. */
  sha256?: string;
}

/** An entry ready to be stored: every field as the API serves it, plus the list hints. */
export interface NormalisedEntry {
  id: string;
  url: string;
  organizationName: string | null;
  npi: string | null;
  tenantId: string | null;
  city: string | null;
  state: string | null;
  zipCode: string | null;
  listFhirVersion: FhirVersion;
  /** Null while listFhirVersion is UNKNOWN. */
  versionEvidence: Exclude<VersionEvidence, "probe"> | null;
  stateEvidence: StateEvidence | null;
  urlEvidence: UrlEvidence;
  /** The URL text as the list published it when the stored URL is a repair of it; else null. */
  urlPublished: string | null;
  /** Why the entry is not listed (src/pipeline/ingest/unusable.ts, list-hosts.ts), or null. */
  unusable: UnusableReason | null;
  /** What that rule found ("host is a private IPv4 address"), or null. */
  unusableDetail: string | null;
}

/** CSV column of a field: a header name (case-insensitive) or a 0-based index. */
export type CsvColumn = string | number;
export interface CsvColumns {
  url: CsvColumn;
  organizationName?: CsvColumn;
  /** Read where the organizationName column is empty (a plan's parent organization beside its brand). */
  organizationFallback?: CsvColumn;
  npi?: CsvColumn;
  city?: CsvColumn;
  state?: CsvColumn;
  zipCode?: CsvColumn;
  fhirVersion?: CsvColumn;
}

export interface ListDefinition {
  id: string;
  url: string;
  format: ListFormat;
  audience: Audience | null;
  fhirVersion: FhirVersion | null;
  columns?: CsvColumns;
  /** The vendor publishes this list only as a web page: ingest it with `--file`. */
  manual?: boolean;
  /**
   * Where `url` points: the developer's own list ("developer", the default) or ONC Lantern's
   * maintained copy of it ("lantern"), for developers that publish only web pages.
   */
  source?: ListSource;
  /** The file of the bundled national lists (db/national/) that holds this list's copy. */
  bundledFile?: string;
  /**
   * Where the developer publishes the list, when `url` is a copy of it (Lantern's): the URL
   * ONC's CHPL records for it. Else the list is published at `url`.
   */
  publishedUrl?: string;
  /**
   * Every certification CHPL records for this list is withdrawn (by the developer or the
   * certification body): its entries get no version from the developer's certification.
   */
  certificationWithdrawn?: boolean;
  /**
   * The organization of the items that name none: a health plan's list of its one server
   * (`"OrganizationName": ""`) is that plan's.
   */
  organizationName?: string;
}

export const LIST_SOURCES = ["developer", "lantern"] as const;
type ListSource = (typeof LIST_SOURCES)[number];

export interface VendorDefinition {
  id: string;
  name: string;
  /** `payer` for a health plan or program; absent: `ehr`, a certified health IT developer. */
  kind?: VendorKind;
  endpointListUrl: string;
  lists: ListDefinition[];
  /**
   * The one FHIR version this developer's certified API serves, for entries whose list, item
   * and URL name none (docs/api.md, "Enrichment at ingest").
   */
  defaultFhirVersion?: FhirVersion | null;
  /** Its certified products behind its lists, as CHPL records them (the report card's certification). */
  certifications?: CertificationRecord["products"];
}

/** Thrown when a list body cannot be read at all (not JSON, no known shape, HTML page…). */
export class UnparseableListError extends Error {
  override name = "UnparseableListError";
}

/** What the ingest of one list did: counted for the report (summary-table.ts) and the national build. */
export interface ListSummary {
  vendorId: string;
  listId: string;
  ok: boolean;
  error?: string;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  skipped: number;
  /** Where the list was read from: the developer's own list, Lantern's copy, a local file or the bundled copy. */
  source: string;
  /** Entries stored with a repaired URL (missing scheme, junk before it, a relative path…), each with the repair. */
  repairs: RepairedItem[];
  /** Items not stored because their URL cannot be (counted in `skipped` too), each with why. */
  dropped: DroppedItem[];
  /** Entries stored but not listed (src/pipeline/ingest/unusable.ts), each with its reason. */
  unusable: UnusableEntry[];
  /** Entries whose organization name was repaired (src/pipeline/ingest/enrich/name-repair.ts). */
  nameRepairs: NameRepairItem[];
}

/** An organization name as published, as served, and the kind of repair. */
export interface NameRepairItem {
  published: string;
  name: string | null;
  kind: NameRepairKind;
}

/** A published URL that was repaired, and the entry stored with it. */
export interface RepairedItem {
  published: string;
  url: string;
  organizationName: string | null;
  /** What was done, in words. */
  repair: string;
  /** The kind of repair (URL_EVIDENCE). */
  kind: Exclude<UrlEvidence, "published">;
}

/** A published item that was not stored: its URL cannot be. */
export interface DroppedItem {
  published: string;
  organizationName: string | null;
  reason: string;
}

/** One entry kept out of the listings, as the ingest report names it. */
export interface UnusableEntry {
  url: string;
  organizationName: string | null;
  kind: UnusableReason;
  reason: string;
}
