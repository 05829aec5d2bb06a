import type { DirectoryData } from "./directory-data";
import type { Audience, EndpointRecord, EndpointStatus, FhirVersion } from "./types";

const ACCESS: Audience[][] = [[], ["patient"], ["provider"], ["patient", "provider"]];

const lookup = (table: string[], index: number) => (index < 0 ? null : table[index]!);

/** The endpoint record at a list position, from the in-memory columns (`knownId`: its id, when the caller has it). */
export function recordAt(data: DirectoryData, ordinal: number, vendorNames: Map<string, string>, knownId?: string): EndpointRecord {
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
  };
}

const ID = /^[0-9a-f]{64}$/;
const wanted = new Uint8Array(32);

/** The ordinal of an entry id (64 lowercase hex), or -1. */
export function findById(data: DirectoryData, id: string): number {
  if (!ID.test(id)) return -1;
  for (let i = 0; i < 32; i++) wanted[i] = (hexValue(id.charCodeAt(2 * i)) << 4) | hexValue(id.charCodeAt(2 * i + 1));
  const { byId, columns } = data;
  const ids = columns.id;
  let lo = 0;
  let hi = byId.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = byId[mid]! * 32;
    let order = 0;
    for (let i = 0; i < 32 && order === 0; i++) order = ids[at + i]! - wanted[i]!;
    if (order === 0) return byId[mid]!;
    if (order < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/** The value of a lowercase hex digit's char code (the caller has checked it is one). */
const hexValue = (code: number) => (code <= 57 ? code - 48 : code - 87);
