import { readFileSync } from "node:fs";
import type { Static } from "@sinclair/typebox";
import type { CapabilityStatsDataSchema } from "../model/capability-schemas";
import type { ReportCards } from "../model/report-card";
import type { AvailabilityData } from "./availability-data";
import type { Bitset } from "./bitset";
import type { IdIndex } from "./id-lookup";

/**
 * Bumped whenever the shape of DirectoryData, or how its name words are folded
 * (src/directory/text.ts), or its file layout (data-file.ts) changes, so older index files are rebuilt.
 */
const LAYOUT = 16;
/**
 * The index's format: its layout, and a hash of the environment rules' source
 * (src/model/environment.ts), since the index holds each entry's environment derived by them: a
 * rule change makes every index file, and the copy kept in the database, one of another format,
 * rebuilt at the next start instead of served.
 */
export const DATA_FORMAT =
  LAYOUT * 1_000_000 + (Bun.hash.crc32(readFileSync(new URL("../model/environment.ts", import.meta.url))) % 1_000_000);

/** Capability counts in all, and per developer (by index into `strings.vendorIds`; null: no entries). */
export type CapabilityStatsData = Static<typeof CapabilityStatsDataSchema>;

/** Names of the string tables the per-entry columns point into. */
export const STRING_TABLES = [
  "urls",
  "vendorIds",
  "organizationNames",
  "tenantIds",
  "cities",
  "states",
  "zipCodes",
  "lastUpdated",
  "nameWords",
  "fhirVersions",
  "statuses",
] as const;
export type StringTable = (typeof STRING_TABLES)[number];

/** Per-entry columns, indexed by ordinal (the entry's position in the list order). -1 = null. */
export interface EntryColumns {
  rowId: Int32Array;
  /** 32 bytes per entry: the SHA-256 id. */
  id: Uint8Array;
  url: Int32Array;
  vendor: Int32Array;
  organizationName: Int32Array;
  /** The 10-digit NPI as a number; 0 = none. */
  npi: Float64Array;
  tenantId: Int32Array;
  city: Int32Array;
  state: Int32Array;
  zipCode: Int32Array;
  fhirVersion: Int32Array;
  /** How fhirVersion is known: an index into FHIR_VERSION_BASES (src/model/evidence.ts). */
  fhirVersionBasis: Uint8Array;
  /** Bit 1: patient, bit 2: provider. */
  access: Uint8Array;
  /** How the URL is known: an index into URL_EVIDENCE (published, or the kind of repair; src/model/evidence.ts). */
  urlEvidence: Uint8Array;
  /**
   * 1 when the entry's city, state and ZIP came from its organization name (state evidence
   * `name-place`): its Organization's id hashes them as null, as before names were read.
   */
  namePlace: Uint8Array;
  /** 0: production; else 1 + the index in ENVIRONMENT_RULES (src/model/environment.ts) of the rule that makes it non-production. */
  environment: Uint8Array;
  status: Int32Array;
  lastUpdated: Int32Array;
}

export const FACETS = [
  "vendor",
  "kind",
  "state",
  "fhirVersion",
  "access",
  "smart",
  "resource",
  "supports",
  "ready",
  "environment",
] as const;
export type Facet = (typeof FACETS)[number];

/**
 * Everything the list operation needs for one dataset version, in a form that is written to and
 * read from a file as-is: typed arrays, string tables, and a bitset per filter value.
 */
export interface DirectoryData {
  version: number;
  /** The identity of the database it was read from (src/db/dataset-meta.ts). */
  databaseId: string;
  size: number;
  /**
   * Entries the listings show: ordinals [0, listed) are the entries neither `removed` nor unusable, in list
   * order; the others follow them, reachable by id only (no facet bit, no name posting).
   */
  listed: number;
  columns: EntryColumns;
  strings: Record<StringTable, string[]>;
  /**
   * Facet → value → bitset of ordinals. `smart` has the values "true" and "false"; `supports` and
   * `ready` one bitset per filter value (src/model/capability-rules.ts: SUPPORTS, READY).
   */
  facets: Record<Facet, Map<string, Bitset>>;
  /** Inverted index of organization-name words: postings of `strings.nameWords[i]` are ordinals[offsets[i]..offsets[i+1]). */
  postings: { offsets: Int32Array; ordinals: Int32Array };
  /** Per URL (index into `strings.urls`): the row id of its probe in the probes table, -1 when never probed. */
  probeRowIds: Int32Array;
  /**
   * Per URL: the release its first entry's list or URL states (an index into FHIR_VERSIONS), -1
   * when none does; the `fhir-version-matches` check compares the CapabilityStatement with it.
   */
  statedVersions: Int8Array;
  /** Facets, checks and verdicts counted, in all and per vendor (src/directory/capability-stats.ts). */
  capabilityStats: CapabilityStatsData;
  /** Each developer's report card and the directory's figures (src/directory/report-cards.ts). */
  reportCards: ReportCards;
  /** Get-by-id's search tables (IdLookup): no database read. */
  ids: IdIndex;
  /** Per URL (index into `strings.urls`): its availability answer's ingredients, so the route reads no database. */
  availability: AvailabilityData;
}
