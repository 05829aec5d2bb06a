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

/** The endpoint record at a list position, from the in-memory columns. */
export const endpointRecordAt = (
  data: DirectoryData,
  ordinal: number,
  vendorNames: ReadonlyMap<string, string>,
): EndpointRecord => endpointRecordsAt(data, [ordinal], vendorNames)[0]!;

/** Where `endpointRecordsAt` adds the string lengths it reads: a read whose value is never used may be dropped by the JIT. */
const lengthsRead = { total: 0 };

/**
 * The records at some list positions (the one definition of a record). The entries of
 * a filtered page lie far apart in the columns and the string tables, so each value read is
 * likely a cache miss; read one column at a time over the whole page, the reads do not depend on
 * each other and the CPU waits for many of them at once, instead of one after another while
 * each record is built and then serialised. The strings' lengths are read the same way, so that
 * their text is in the cache when the page is serialised.
 */
export function endpointRecordsAt(
  data: DirectoryData,
  ordinals: ArrayLike<number>,
  vendorNames: ReadonlyMap<string, string>,
): EndpointRecord[] {
  const { columns: c, strings: s } = data;
  const n = ordinals.length;
  const gather = (column: Int32Array) => {
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = column[ordinals[i]!]!;
    return out;
  };
  const texts = (table: readonly string[], indexes: Int32Array) => {
    const out: (string | null)[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = indexes[i]! < 0 ? null : table[indexes[i]!]!;
    let length = 0;
    for (let i = 0; i < n; i++) length += out[i]?.length ?? 0;
    lengthsRead.total += length;
    return out;
  };
  const urls = texts(s.urls, gather(c.url));
  const organizationNames = texts(s.organizationNames, gather(c.organizationName));
  const tenantIds = texts(s.tenantIds, gather(c.tenantId));
  const cities = texts(s.cities, gather(c.city));
  const zipCodes = texts(s.zipCodes, gather(c.zipCode));
  const lastUpdated = texts(s.lastUpdated, gather(c.lastUpdated));
  const vendors = gather(c.vendor);
  const states = gather(c.state);
  const versions = gather(c.fhirVersion);
  const statuses = gather(c.status);
  const npis = new Float64Array(n);
  const small = new Uint8Array(4 * n);
  for (let i = 0; i < n; i++) npis[i] = c.npi[ordinals[i]!]!;
  for (let i = 0; i < n; i++) small[4 * i] = c.access[ordinals[i]!]!;
  for (let i = 0; i < n; i++) small[4 * i + 1] = c.environment[ordinals[i]!]!;
  for (let i = 0; i < n; i++) small[4 * i + 2] = c.urlEvidence[ordinals[i]!]!;
  for (let i = 0; i < n; i++) small[4 * i + 3] = c.id[ordinals[i]! * 32]!; // the id's bytes, read below
  const records: EndpointRecord[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const ordinal = ordinals[i]!;
    const vendorId = s.vendorIds[vendors[i]!]!;
    const npi = npis[i]!;
    const urlEvidence = small[4 * i + 2]!;
    records[i] = {
      id: Buffer.from(c.id.buffer, c.id.byteOffset + ordinal * 32, 32).toString("hex"),
      url: urls[i]!,
      vendorName: vendorNames.get(vendorId) ?? vendorId,
      vendorId,
      organizationName: organizationNames[i]!,
      npi: npi === 0 ? null : String(npi),
      tenantId: tenantIds[i]!,
      fhirVersion: s.fhirVersions[versions[i]!] as FhirVersion,
      access: ACCESS[small[4 * i]!]!,
      city: cities[i]!,
      state: lookup(s.states, states[i]!),
      zipCode: zipCodes[i]!,
      status: s.statuses[statuses[i]!] as EndpointStatus,
      lastUpdated: lastUpdated[i]!,
      environment: small[4 * i + 1] === 0 ? "production" : "non-production",
      ...(urlEvidence === 0 ? {} : { urlRepair: URL_REPAIRS[urlEvidence - 1]! }),
    };
  }
  return records;
}
