import { Value } from "@sinclair/typebox/value";
import { CapabilityStatsDataSchema } from "../model/capability-schemas";
import { ENVIRONMENT_RULES } from "../model/environment";
import { URL_EVIDENCE } from "../model/evidence";
import { FHIR_VERSIONS } from "../model/types";
import type { DirectoryData, EntryColumns, StringTable } from "./directory-data";

/** Columns that point into a string table, and whether they may be null (-1). */
const STRING_COLUMNS: [keyof EntryColumns, StringTable, boolean][] = [
  ["url", "urls", false],
  ["vendor", "vendorIds", false],
  ["organizationName", "organizationNames", true],
  ["tenantId", "tenantIds", true],
  ["city", "cities", true],
  ["state", "states", true],
  ["zipCode", "zipCodes", true],
  ["fhirVersion", "fhirVersions", false],
  ["status", "statuses", false],
  ["lastUpdated", "lastUpdated", false],
];

/** Slots of the id index's prefix table (one per 2-byte prefix, plus its end). */
const ID_PREFIX_SLOTS = 65_537;

/**
 * Why `data` (read from an index file or the database's copy) cannot be served, or null when it
 * can: every length agrees with the entry count, every number that points into a table or an
 * array points inside it, and the orders the searches rely on hold (sorted name words, monotonic
 * offsets, the id index agreeing with the ids it indexes). One pass over the arrays: a few tens
 * of milliseconds at a million entries. A checksum catches damage; these checks keep bytes that
 * passed it (written by a bug, or by hand) from sending a request out of bounds.
 */
export function verifyDirectoryData(data: DirectoryData): string | null {
  const { size, listed, columns, strings } = data;
  for (const [name, array] of Object.entries(columns)) {
    const expected = name === "id" ? size * 32 : size;
    if (array.length !== expected) return `column ${name} holds ${array.length} values, not ${expected}`;
  }
  for (const [column, table, nullable] of STRING_COLUMNS) {
    const values = columns[column] as Int32Array;
    const bad = firstOutside(values, nullable ? -1 : 0, strings[table].length);
    if (bad !== -1) return `column ${column} points outside table ${table} at ordinal ${bad}`;
  }
  const rowIds = columns.rowId;
  for (let i = 0; i < size; i++) if (rowIds[i]! < 0) return `column rowId holds ${rowIds[i]} at ordinal ${i}`;
  const words = strings.nameWords;
  for (let w = 1; w < words.length; w++) if (!(words[w - 1]! < words[w]!)) return "the name words are not sorted";
  const words32 = (size + 31) >>> 5;
  for (const [facet, values] of Object.entries(data.facets))
    for (const [value, bits] of values)
      if (bits.length !== words32) return `facet ${facet}=${value} holds ${bits.length} words, not ${words32}`;
  const { offsets, ordinals } = data.postings;
  const postingsProblem = offsetsProblem("postings", offsets, words.length, ordinals.length);
  if (postingsProblem) return postingsProblem;
  if (firstOutside(ordinals, 0, listed) !== -1) return "a name posting points outside the listed entries";
  if (data.probeRowIds.length !== strings.urls.length) return "probeRowIds does not have one row per URL";
  if (firstOutside(data.probeRowIds, -1, 2 ** 31 - 1) !== -1) return "probeRowIds holds a negative row id";
  if (data.statedVersions.length !== strings.urls.length) return "statedVersions does not have one value per URL";
  if (firstOutside(data.statedVersions, -1, FHIR_VERSIONS.length) !== -1) return "statedVersions names no release";
  if (firstOutside(columns.urlEvidence, 0, URL_EVIDENCE.length) !== -1) return "column urlEvidence names no evidence";
  if (firstOutside(columns.namePlace, 0, 2) !== -1) return "column namePlace holds neither 0 nor 1";
  if (firstOutside(columns.environment, 0, ENVIRONMENT_RULES.length + 1) !== -1)
    return "column environment names no environment rule";
  if (
    !Value.Check(CapabilityStatsDataSchema, data.capabilityStats) ||
    data.capabilityStats.vendors.length !== strings.vendorIds.length
  )
    return "the capability counts are not whole";
  const availability = data.availability;
  const availabilityProblem = offsetsProblem(
    "availability",
    availability.offsets,
    strings.urls.length,
    availability.bytes.length,
  );
  if (availabilityProblem) return availabilityProblem;
  return idIndexProblem(data);
}

/** The first index whose value is outside [min, max), or -1. */
function firstOutside(values: ArrayLike<number>, min: number, max: number): number {
  for (let i = 0; i < values.length; i++) if (values[i]! < min || values[i]! >= max) return i;
  return -1;
}

/** Offsets of `count` runs into an array of `total` items: count + 1 of them, from 0 to total, never decreasing. */
function offsetsProblem(name: string, offsets: ArrayLike<number>, count: number, total: number): string | null {
  if (offsets.length !== count + 1) return `${name} has ${offsets.length} offsets for ${count} runs`;
  if (offsets[0] !== 0 || offsets[count] !== total) return `${name} offsets do not span its ${total} items`;
  for (let i = 1; i <= count; i++) if (offsets[i]! < offsets[i - 1]!) return `${name} offsets decrease at ${i}`;
  return null;
}

/** Get-by-id's index (id-lookup.ts) agrees with the id column: every id is found where the search looks. */
function idIndexProblem(data: DirectoryData): string | null {
  const { order, heads, starts } = data.ids;
  const ids = data.columns.id;
  const size = data.size;
  if (order.length !== size || heads.length !== size || starts.length !== ID_PREFIX_SLOTS)
    return "the id index does not match the entry count";
  if (firstOutside(order, 0, size) !== -1) return "the id index points outside the entries";
  for (let p = 1; p < ID_PREFIX_SLOTS; p++) if (starts[p]! < starts[p - 1]!) return "the id prefix table decreases";
  if (starts[0] !== 0 || starts[ID_PREFIX_SLOTS - 1] !== size) return "the id prefix table does not span the entries";
  for (let k = 0; k < size; k++) {
    const at = order[k]! * 32;
    const head = ((ids[at]! << 24) | (ids[at + 1]! << 16) | (ids[at + 2]! << 8) | ids[at + 3]!) >>> 0;
    if (heads[k] !== head || (k > 0 && head < heads[k - 1]!)) return `the id index is out of order at ${k}`;
    const prefix = head >>> 16;
    if (k < starts[prefix]! || k >= starts[prefix + 1]!) return `the id prefix table misplaces position ${k}`;
  }
  return null;
}
