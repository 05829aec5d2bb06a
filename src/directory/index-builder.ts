import type { Database } from "bun:sqlite";
import { createBitset, setBit, type Bitset } from "./bitset";
import { words } from "./text";

/**
 * Everything the list operation needs, derived once per dataset version. Entries are numbered
 * by their position in the list order ("ordinal"); every filter value is a bitset of ordinals,
 * and organization-name words form an inverted index searched by prefix.
 */
export interface DirectoryIndex {
  size: number;
  /** ordinal → entries.row_id */
  rowIds: Int32Array;
  vendor: Map<string, Bitset>;
  state: Map<string, Bitset>;
  fhirVersion: Map<string, Bitset>;
  access: Map<string, Bitset>;
  smartSupported: Bitset;
  smartUnsupported: Bitset;
  resource: Map<string, Bitset>;
  /** Distinct folded name words, sorted; `postings[i]` holds the ordinals whose name has `nameWords[i]`. */
  nameWords: string[];
  postings: Int32Array[];
}

interface ProbeFacts {
  resources: string[];
  smart: boolean;
}

function bitsetFor(map: Map<string, Bitset>, key: string, size: number): Bitset {
  let bits = map.get(key);
  if (!bits) {
    bits = createBitset(size);
    map.set(key, bits);
  }
  return bits;
}

function readProbeFacts(sqlite: Database): Map<string, ProbeFacts> {
  const facts = new Map<string, ProbeFacts>();
  const rows = sqlite.prepare("SELECT url, supported_resources, smart_supported FROM probes").values() as [string, string, number][];
  for (const [url, resources, smart] of rows) facts.set(url, { resources: JSON.parse(resources) as string[], smart: smart === 1 });
  return facts;
}

function complement(bits: Bitset, size: number): Bitset {
  const out = createBitset(size);
  for (let w = 0; w < out.length; w++) out[w] = ~bits[w]!;
  const tail = size & 31;
  if (tail !== 0) out[out.length - 1]! &= (1 << tail) - 1;
  return out;
}

export function buildDirectoryIndex(sqlite: Database): DirectoryIndex {
  const probes = readProbeFacts(sqlite);
  const rows = sqlite
    .prepare("SELECT row_id, vendor_id, state, fhir_version, access, url, organization_name FROM entries ORDER BY sort_key")
    .values() as [number, string, string | null, string, string, string, string | null][];
  const size = rows.length;
  const index: DirectoryIndex = {
    size,
    rowIds: new Int32Array(size),
    vendor: new Map(),
    state: new Map(),
    fhirVersion: new Map(),
    access: new Map([
      ["patient", createBitset(size)],
      ["provider", createBitset(size)],
    ]),
    smartSupported: createBitset(size),
    smartUnsupported: createBitset(0),
    resource: new Map(),
    nameWords: [],
    postings: [],
  };
  const postingLists = new Map<string, number[]>();
  for (let ordinal = 0; ordinal < size; ordinal++) {
    const [rowId, vendorId, state, fhirVersion, access, url, organizationName] = rows[ordinal]!;
    index.rowIds[ordinal] = rowId;
    setBit(bitsetFor(index.vendor, vendorId, size), ordinal);
    if (state !== null) setBit(bitsetFor(index.state, state, size), ordinal);
    setBit(bitsetFor(index.fhirVersion, fhirVersion, size), ordinal);
    if (access.includes("patient")) setBit(index.access.get("patient")!, ordinal);
    if (access.includes("provider")) setBit(index.access.get("provider")!, ordinal);
    const probe = probes.get(url);
    if (probe) {
      if (probe.smart) setBit(index.smartSupported, ordinal);
      for (const type of probe.resources) setBit(bitsetFor(index.resource, type, size), ordinal);
    }
    if (organizationName !== null) {
      for (const word of words(organizationName)) {
        const list = postingLists.get(word);
        if (list) list.push(ordinal);
        else postingLists.set(word, [ordinal]);
      }
    }
  }
  index.smartUnsupported = complement(index.smartSupported, size);
  index.nameWords = [...postingLists.keys()].sort();
  index.postings = index.nameWords.map((word) => Int32Array.from(postingLists.get(word)!));
  return index;
}
