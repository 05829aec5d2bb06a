import type { EndpointRecord } from "../model/endpoints";
import { ENVIRONMENT_RULES } from "../model/environment";
import { FHIR_VERSION_BASES, type FhirVersionBasis, URL_REPAIRS } from "../model/evidence";
import type { Audience, EndpointStatus, FhirVersion } from "../model/types";
import type { DirectoryData } from "./directory-data";

/**
 * What a record is made of: the read model and the vendor names. Renderers that write records
 * straight from the columns (the export) read this; `endpointRecordAt` stays the one definition of a
 * record, and their tests compare their output with it entry by entry.
 */
export interface RecordSource {
  data: DirectoryData;
  vendorNames: ReadonlyMap<string, string>;
}

/** `access` of a record per value of the access column (bit 1: patient, bit 2: provider). */
export const ACCESS: Audience[][] = [[], ["patient"], ["provider"], ["patient", "provider"]];

/** A string-table value at an index of a column; -1 is null. */
export const lookup = (table: readonly string[], index: number) => (index < 0 ? null : table[index]!);

/** How the version of the entry at a list position is known (FHIR_VERSION_BASES). */
export const fhirVersionBasisAt = (data: DirectoryData, ordinal: number): FhirVersionBasis =>
  FHIR_VERSION_BASES[data.columns.fhirVersionBasis[ordinal]!]!;

/** The environment rule (ENVIRONMENT_RULES) that makes the entry at a list position non-production, or null. */
export const environmentRuleAt = (data: DirectoryData, ordinal: number) => {
  const rule = data.columns.environment[ordinal]!;
  return rule === 0 ? null : ENVIRONMENT_RULES[rule - 1]!;
};

/** The endpoint record at a list position, from the in-memory columns (`knownId`: its id, when the caller has it). */
export function endpointRecordAt(
  data: DirectoryData,
  ordinal: number,
  vendorNames: ReadonlyMap<string, string>,
  knownId?: string,
): EndpointRecord {
  const { columns: c, strings: s } = data;
  const id = knownId ?? Buffer.from(c.id.buffer, c.id.byteOffset + ordinal * 32, 32).toString("hex");
  const vendorId = s.vendorIds[c.vendor[ordinal]!]!;
  const npi = c.npi[ordinal]!;
  return {
    id,
    url: s.urls[c.url[ordinal]!]!,
    vendorName: vendorNames.get(vendorId) ?? vendorId,
    vendorId,
    organizationName: lookup(s.organizationNames, c.organizationName[ordinal]!),
    npi: npi === 0 ? null : String(npi),
    tenantId: lookup(s.tenantIds, c.tenantId[ordinal]!),
    fhirVersion: s.fhirVersions[c.fhirVersion[ordinal]!] as FhirVersion,
    access: ACCESS[c.access[ordinal]!]!,
    city: lookup(s.cities, c.city[ordinal]!),
    state: lookup(s.states, c.state[ordinal]!),
    zipCode: lookup(s.zipCodes, c.zipCode[ordinal]!),
    status: s.statuses[c.status[ordinal]!] as EndpointStatus,
    lastUpdated: s.lastUpdated[c.lastUpdated[ordinal]!]!,
    environment: c.environment[ordinal] === 0 ? "production" : "non-production",
    ...(c.urlEvidence[ordinal] === 0 ? {} : { urlRepair: URL_REPAIRS[c.urlEvidence[ordinal]! - 1]! }),
  };
}

/**
 * A character past U+00FF. A string holding one is stored two bytes a character, and
 * JSON.stringify leaves its fast path for the whole text such a string is part of (a page of 25
 * records about a fifth slower for one name with a curly apostrophe); `wideRecordsAt` finds them.
 */
const WIDE = /[\u0100-\uffff]/;

/**
 * Per version (keyed by its map of vendor names, one per snapshot), per entry: 0 not looked at
 * yet, 1 no string of its record past U+00FF, 2 one or more. Each entry is looked at once; a page
 * then costs one read per record (1 MB at 1M entries).
 */
const wideEntries = new WeakMap<ReadonlyMap<string, string>, Uint8Array>();

/** Whether each record at these list positions has a string with a character past U+00FF (its vendor name included). */
export function wideRecordsAt(
  data: DirectoryData,
  ordinals: ArrayLike<number>,
  vendorNames: ReadonlyMap<string, string>,
): boolean[] {
  let flags = wideEntries.get(vendorNames);
  if (flags === undefined) {
    flags = new Uint8Array(data.size);
    wideEntries.set(vendorNames, flags);
  }
  const { columns: c, strings: s } = data;
  const wide = new Array<boolean>(ordinals.length);
  for (let i = 0; i < ordinals.length; i++) {
    const ordinal = ordinals[i]!;
    if (flags[ordinal] === 0) {
      const vendorId = s.vendorIds[c.vendor[ordinal]!]!;
      let found = WIDE.test(vendorNames.get(vendorId) ?? vendorId);
      for (const [column, table] of RECORD_COLUMNS)
        if (!found && table !== null) found = WIDE.test(lookup(s[table], c[column][ordinal]!) ?? "");
      flags[ordinal] = found ? 2 : 1;
    }
    wide[i] = flags[ordinal] === 2;
  }
  return wide;
}

/** Where `endpointRecordsAt` adds up what it reads ahead: a read whose value is never used may be dropped by the JIT. */
const readAhead = { total: 0 };

/** The columns of a record, each with the string table it points into (null: a number). */
const RECORD_COLUMNS = [
  ["url", "urls"],
  ["organizationName", "organizationNames"],
  ["tenantId", "tenantIds"],
  ["city", "cities"],
  ["zipCode", "zipCodes"],
  ["lastUpdated", "lastUpdated"],
  ["vendor", null],
  ["state", null],
  ["fhirVersion", null],
  ["status", null],
] as const;

/**
 * The records at some list positions, as `endpointRecordAt` gives them. The entries of a filtered
 * page lie far apart in the columns and the string tables, so each value read is likely a cache
 * miss, and built one record after another each waited for the one before. Here every column
 * (then each string's text) is first read over the whole page: those reads do not depend on each
 * other, so the CPU waits for many at once; the records are then built, and serialised, from the
 * cache.
 */
export function endpointRecordsAt(
  data: DirectoryData,
  ordinals: ArrayLike<number>,
  vendorNames: ReadonlyMap<string, string>,
): EndpointRecord[] {
  const { columns: c, strings: s } = data;
  const n = ordinals.length;
  let total = 0;
  const indexes = new Int32Array(n);
  for (const [column, table] of RECORD_COLUMNS) {
    const values = c[column];
    for (let i = 0; i < n; i++) indexes[i] = values[ordinals[i]!]!;
    if (table === null) continue;
    const strings = s[table];
    for (let i = 0; i < n; i++) if (indexes[i]! >= 0) total += strings[indexes[i]!]!.length;
  }
  for (let i = 0; i < n; i++) total += c.npi[ordinals[i]!]!;
  for (let i = 0; i < n; i++) total += c.access[ordinals[i]!]!;
  for (let i = 0; i < n; i++) total += c.environment[ordinals[i]!]!;
  for (let i = 0; i < n; i++) total += c.urlEvidence[ordinals[i]!]!;
  // Not in a record, but read beside it by the list (its meta.fhirVersionBasis).
  for (let i = 0; i < n; i++) total += c.fhirVersionBasis[ordinals[i]!]!;
  for (let i = 0; i < n; i++) total += c.id[ordinals[i]! * 32]!;
  readAhead.total = total;
  return Array.from(ordinals, (ordinal) => endpointRecordAt(data, ordinal, vendorNames));
}
