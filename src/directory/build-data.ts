import type { Database } from "bun:sqlite";
import { readCapabilityColumns } from "../db/capability-columns";
import { readDatabaseId, readDatasetVersion, readLastRefreshAt } from "../db/dataset-meta";
import { countEntries } from "../db/describe";
import { entryChunks, probeBodyReads, probeFactRows, vendorKindRows, vendorNameRows } from "../db/index-build-reads";
import { reportReads } from "../db/report-reads";
import { READY, READY_KIND, SUPPORTS, type VerdictStatuses } from "../model/capability-rules";
import { ENVIRONMENTS, nameEnvironment, urlEnvironment } from "../model/environment";
import { basisOf, FHIR_VERSION_BASES, URL_EVIDENCE, type UrlEvidence, type VersionEvidence } from "../model/evidence";
import { resourceTypeNames } from "../model/resource-types";
import { FHIR_VERSIONS, type FhirVersion } from "../model/types";
import { VENDOR_KINDS, type VendorKind } from "../model/vendors";
import { buildAvailabilityData } from "./availability-data";
import { type Bitset, createBitset, setBit } from "./bitset";
import { computeCapabilityStats, urlReports } from "./capability-stats";
import { type DirectoryData, type EntryColumns, type Facet, STRING_TABLES, type StringTable } from "./directory-data";
import { buildIdIndex, compareIds } from "./id-lookup";
import { lowerBound } from "./lower-bound";
import { computeReportCards } from "./report-cards";
import { words } from "./text";

const CHUNK = 50_000;

/** Assigns each distinct string a small integer, in order of first appearance. */
class Interner {
  readonly values: string[] = [];
  private readonly ids = new Map<string, number>();

  id(value: string | null): number {
    if (value === null) return -1;
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }
}

interface ProbeFacts {
  rowId: number;
  probedAt: string;
  resources: string[];
  smart: boolean;
  /** The probe's CapabilityStatement named a version: the served one. */
  versionSeen: boolean;
  /** The `supports=` and `ready=` values that hold (src/model/capability-rules.ts). */
  capabilities: { supports: readonly string[]; ready: readonly string[] };
}

const NO_CAPABILITIES = { supports: [], ready: [] };

function readProbeFacts(sqlite: Database): Map<string, ProbeFacts> {
  const facts = new Map<string, ProbeFacts>();
  // Few distinct pairs (one per vendor release, roughly): each parsed once.
  const capabilities = new Map<string, ProbeFacts["capabilities"]>();
  for (const [rowId, url, resources, smart, probedAt, versionSeen, supports, verdict] of probeFactRows(sqlite)) {
    const key = `${supports}\n${verdict}`;
    let known = capabilities.get(key);
    if (known === undefined) {
      const stored = readCapabilityColumns(supports, verdict);
      known = stored === null ? NO_CAPABILITIES : { supports: stored.supports, ready: readyOf(stored.verdict) };
      capabilities.set(key, known);
    }
    facts.set(url, {
      rowId,
      probedAt,
      // Rows stored before names were checked may list anything: the same rule as the probe's.
      resources: resourceTypeNames(JSON.parse(resources) as unknown[]),
      smart: smart === 1,
      versionSeen: versionSeen === 1,
      capabilities: known,
    });
  }
  return facts;
}

function emptyColumns(size: number): EntryColumns {
  return {
    rowId: new Int32Array(size),
    id: new Uint8Array(size * 32),
    url: new Int32Array(size),
    vendor: new Int32Array(size),
    organizationName: new Int32Array(size),
    npi: new Float64Array(size),
    tenantId: new Int32Array(size),
    city: new Int32Array(size),
    state: new Int32Array(size),
    zipCode: new Int32Array(size),
    fhirVersion: new Int32Array(size),
    fhirVersionBasis: new Uint8Array(size),
    access: new Uint8Array(size),
    urlEvidence: new Uint8Array(size),
    namePlace: new Uint8Array(size),
    environment: new Uint8Array(size),
    status: new Int32Array(size),
    lastUpdated: new Int32Array(size),
  };
}

/**
 * Reads one dataset version (call inside a read transaction) into DirectoryData. Rows are read
 * in row-id order in chunks (sequential, little garbage) and then arranged in list order.
 */
export function buildDirectoryData(sqlite: Database): DirectoryData {
  const version = readDatasetVersion(sqlite);
  const vendorNames = new Map(vendorNameRows(sqlite));
  const probes = readProbeFacts(sqlite);
  const size = countEntries(sqlite);
  // Every string table but the name words, which are built from the names afterwards.
  const tables = Object.fromEntries(
    STRING_TABLES.filter((name) => name !== "nameWords").map((name) => [name, new Interner()]),
  ) as Record<Exclude<StringTable, "nameWords">, Interner>;

  const raw = emptyColumns(size);
  /** 1 for an entry kept out of the listings (removed, or unusable: src/pipeline/ingest/unusable.ts). */
  const hidden = new Uint8Array(size);
  /** Per URL (index into the urls table): the first stated release seen, -1 for none. */
  const stated: number[] = [];
  const chunk = entryChunks(sqlite, CHUNK);
  let n = 0;
  for (let after = -1; ; ) {
    const rows = chunk(after);
    for (const row of rows) {
      if (n >= size) break;
      raw.rowId[n] = row[0];
      decodeHex(row[1], raw.id, n * 32);
      raw.url[n] = tables.urls.id(row[2]);
      raw.vendor[n] = tables.vendorIds.id(row[3]);
      raw.organizationName[n] = tables.organizationNames.id(row[4]);
      raw.npi[n] = row[5] === null ? 0 : Number(row[5]);
      raw.tenantId[n] = tables.tenantIds.id(row[6]);
      raw.city[n] = tables.cities.id(row[7]);
      raw.state[n] = tables.states.id(row[8]);
      raw.zipCode[n] = tables.zipCodes.id(row[9]);
      raw.fhirVersion[n] = tables.fhirVersions.id(row[10]);
      raw.fhirVersionBasis[n] = FHIR_VERSION_BASES.indexOf(
        probes.get(row[2])?.versionSeen ? "probe" : basisOf(row[15] as VersionEvidence | null),
      );
      raw.urlEvidence[n] = Math.max(0, URL_EVIDENCE.indexOf(row[17] as UrlEvidence));
      raw.namePlace[n] = row[18];
      raw.access[n] = (row[11].includes('"patient"') ? 1 : 0) | (row[11].includes('"provider"') ? 2 : 0);
      raw.status[n] = tables.statuses.id(row[12]);
      raw.lastUpdated[n] = tables.lastUpdated.id(row[13]);
      hidden[n] = row[12] === "removed" || row[14] === 1 ? 1 : 0;
      const version = row[16] === null ? -1 : FHIR_VERSIONS.indexOf(row[16] as FhirVersion);
      if (stated[raw.url[n]!] === undefined || stated[raw.url[n]!] === -1) stated[raw.url[n]!] = version;
      n++;
    }
    if (rows.length < CHUNK) break;
    after = rows[rows.length - 1]![0];
  }

  const { order, listed } = listedFirst(
    listOrder(
      raw,
      n,
      tables.vendorIds.values.map((id) => vendorNames.get(id) ?? id),
      tables.organizationNames.values,
      tables.urls.values,
    ),
    hidden,
  );
  const columns = emptyColumns(n);
  environments(raw, n, tables.urls.values, tables.organizationNames.values);
  for (const key of Object.keys(columns) as (keyof EntryColumns)[]) {
    if (key !== "id") permute(raw[key] as Int32Array, columns[key] as Int32Array, order);
  }
  for (let ordinal = 0; ordinal < n; ordinal++)
    columns.id.set(raw.id.subarray(order[ordinal]! * 32, order[ordinal]! * 32 + 32), ordinal * 32);

  const strings = {
    ...Object.fromEntries(Object.entries(tables).map(([name, interner]) => [name, interner.values])),
    nameWords: [] as string[],
  } as Record<StringTable, string[]>;
  const facets = buildFacets(columns, strings, probes, n, listed, new Map(vendorKindRows(sqlite)));
  const { nameWords, postings } = buildPostings(
    columns.organizationName.subarray(0, listed),
    strings.organizationNames,
  );
  strings.nameWords = nameWords;
  const probeRowIds = Int32Array.from(strings.urls, (url) => probes.get(url)?.rowId ?? -1);
  const statedVersions = Int8Array.from(strings.urls, (_, i) => stated[i] ?? -1);
  const lastRefreshAt = readLastRefreshAt(sqlite);
  const availability = buildAvailabilityData(
    sqlite,
    strings.urls,
    (url) => probes.get(url)?.probedAt ?? null,
    lastRefreshAt,
  );
  const base = {
    version,
    databaseId: readDatabaseId(sqlite),
    size: n,
    listed,
    columns,
    strings,
    probeRowIds,
    statedVersions,
  };
  const reports = urlReports(base, probeBodyReads(sqlite));
  return {
    ...base,
    facets,
    postings,
    ids: buildIdIndex(columns.id),
    availability,
    capabilityStats: computeCapabilityStats(base, reports),
    reportCards: computeReportCards({ ...base, availability }, reports, reportReads(sqlite), lastRefreshAt),
  };
}

/**
 * Each entry's environment (src/model/environment.ts): the first host or path rule its URL
 * matches, else the first name rule its organization name matches, else production (0). Derived
 * here, from the rule table, for every build: nothing of it is stored, so a rule change applies to
 * every database at its next index build. Each distinct URL and name is judged once.
 */
function environments(raw: EntryColumns, n: number, urls: string[], names: string[]) {
  const ofUrl = Uint8Array.from(urls, (url) => (urlEnvironment(url)?.rule ?? -1) + 1);
  const ofName = Uint8Array.from(names, (name) => (nameEnvironment(name)?.rule ?? -1) + 1);
  for (let i = 0; i < n; i++) {
    const name = raw.organizationName[i]!;
    raw.environment[i] = ofUrl[raw.url[i]!]! || (name < 0 ? 0 : ofName[name]!);
  }
}

/**
 * The list order with the hidden entries (removed or unusable) moved after all others (each part
 * keeps its order): the listings, counts and exports show ordinals [0, listed), get by id finds
 * every entry.
 */
function listedFirst(order: Int32Array, hidden: Uint8Array): { order: Int32Array; listed: number } {
  const out = new Int32Array(order.length);
  let front = 0;
  for (const row of order) if (hidden[row] === 0) out[front++] = row;
  let back = front;
  for (const row of order) if (hidden[row] === 1) out[back++] = row;
  return { order: out, listed: front };
}

const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX["0123456789abcdef".charCodeAt(i)] = i;

function decodeHex(hex: string, out: Uint8Array, at: number) {
  for (let i = 0; i < 32; i++) out[at + i] = (HEX[hex.charCodeAt(2 * i)]! << 4) | HEX[hex.charCodeAt(2 * i + 1)]!;
}

/** Ranks of strings compared case-insensitively (the list order's comparison). */
function ranks(values: string[]): Int32Array {
  const lower = values.map((value) => value.toLowerCase());
  const sorted = lower.map((_, i) => i).sort((a, b) => (lower[a]! < lower[b]! ? -1 : lower[a]! > lower[b]! ? 1 : 0));
  const rank = new Int32Array(values.length);
  sorted.forEach((index, position) => {
    rank[index] = position;
  });
  return rank;
}

/**
 * Row indices in list order: vendorName, organizationName (none last), url, id, case-insensitive
 * (computed from ranks of the distinct strings instead of comparing a million composite keys):
 * a native sort of the packed rank keys, then a counting sort.
 */
function listOrder(
  raw: EntryColumns,
  n: number,
  vendorNames: string[],
  organizationNames: string[],
  urls: string[],
): Int32Array {
  const vendorRank = ranks(vendorNames);
  const organizationRank = ranks(organizationNames);
  const urlRank = ranks(urls);
  const noName = organizationNames.length;
  // vendor (< 2^12) · organization (< 2^21) · url (< 2^20) packed into one exact double.
  const key = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const organization = raw.organizationName[i]! < 0 ? noName : organizationRank[raw.organizationName[i]!]!;
    key[i] = (vendorRank[raw.vendor[i]!]! * 2 ** 21 + organization) * 2 ** 20 + urlRank[raw.url[i]!]!;
  }
  const distinct = key.slice().sort();
  const slot = new Int32Array(n);
  const counts = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    slot[i] = lowerBound(distinct, key[i]!);
    counts[slot[i]! + 1]!++;
  }
  for (let i = 1; i <= n; i++) counts[i]! += counts[i - 1]!;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[counts[slot[i]!]!++] = i;
  // Entries equal on vendor, organization and url (rare) are ordered by id.
  for (let start = 0; start < n; ) {
    let end = start + 1;
    while (end < n && key[order[end]!] === key[order[start]!]) end++;
    if (end - start > 1) order.subarray(start, end).sort((a, b) => compareIds(raw.id, a, b));
    start = end;
  }
  return order;
}

function permute(from: { [i: number]: number }, to: { [i: number]: number; length: number }, order: Int32Array) {
  for (let i = 0; i < to.length; i++) to[i] = from[order[i]!]!;
}

function buildFacets(
  columns: EntryColumns,
  strings: Record<StringTable, string[]>,
  probes: Map<string, ProbeFacts>,
  size: number,
  listed: number,
  vendorKinds: Map<string, string>,
): DirectoryData["facets"] {
  const facets = {
    vendor: new Map(),
    kind: new Map(),
    state: new Map(),
    fhirVersion: new Map(),
    access: new Map(),
    smart: new Map(),
    resource: new Map(),
    supports: new Map(),
    ready: new Map(),
    environment: new Map(),
  } as Record<Facet, Map<string, Bitset>>;
  const bitsetsFor = (facet: Facet, table: string[]) =>
    table.map((value) => {
      const bits = createBitset(size);
      facets[facet].set(value, bits);
      return bits;
    });
  const vendor = bitsetsFor("vendor", strings.vendorIds);
  const kinds = bitsetsFor("kind", [...VENDOR_KINDS]);
  const kindOfVendor = strings.vendorIds.map(
    (id) => kinds[Math.max(0, VENDOR_KINDS.indexOf((vendorKinds.get(id) ?? "ehr") as VendorKind))]!,
  );
  const state = bitsetsFor("state", strings.states);
  const fhirVersion = bitsetsFor("fhirVersion", strings.fhirVersions);
  const [patient, provider] = bitsetsFor("access", ["patient", "provider"]);
  const [smartTrue, smartFalse] = bitsetsFor("smart", ["true", "false"]);
  bitsetsFor("supports", [...SUPPORTS]);
  bitsetsFor("ready", [...READY]);
  const [production, nonProduction] = bitsetsFor("environment", [...ENVIRONMENTS]);
  // Resolve each URL's probe facts to bitsets once; entries then only set bits.
  const resourceBits = resourceBitsets(probes, size);
  const perUrl = strings.urls.map((url) => {
    const probe = probes.get(url);
    const resources = (probe?.resources ?? []).flatMap((type) => resourceBits.get(type) ?? []);
    const { supports, ready } = probe?.capabilities ?? NO_CAPABILITIES;
    return {
      smart: probe?.smart === true,
      resources,
      capabilities: [...supports.map((v) => facets.supports.get(v)), ...ready.map((v) => facets.ready.get(v))].filter(
        (bits): bits is Bitset => bits !== undefined,
      ),
    };
  });
  // Removed entries (ordinals from `listed` on) match no filter: they leave the listings.
  for (let i = 0; i < listed; i++) {
    setBit(vendor[columns.vendor[i]!]!, i);
    setBit(kindOfVendor[columns.vendor[i]!]!, i);
    if (columns.state[i]! >= 0) setBit(state[columns.state[i]!]!, i);
    setBit(fhirVersion[columns.fhirVersion[i]!]!, i);
    if (columns.access[i]! & 1) setBit(patient!, i);
    if (columns.access[i]! & 2) setBit(provider!, i);
    const url = perUrl[columns.url[i]!]!;
    setBit(url.smart ? smartTrue! : smartFalse!, i);
    setBit(columns.environment[i] === 0 ? production! : nonProduction!, i);
    for (const bits of url.resources) setBit(bits, i);
    for (const bits of url.capabilities) setBit(bits, i);
  }
  facets.resource = resourceBits;
  return facets;
}

/**
 * The most resource types that get a bitset (one bit per entry each: 125 KB at 1M entries). FHIR
 * defines fewer than 200 across its releases; beyond the bound, the types fewest URLs support get
 * none, and `hasResource` on them matches nothing, as for a name no server supports.
 */
export const MAX_INDEXED_RESOURCE_TYPES = 512;

/** An empty bitset per resource type, for the MAX_INDEXED_RESOURCE_TYPES types most URLs support. */
function resourceBitsets(probes: Map<string, ProbeFacts>, size: number): Map<string, Bitset> {
  const urls = new Map<string, number>();
  for (const probe of probes.values()) for (const type of probe.resources) urls.set(type, (urls.get(type) ?? 0) + 1);
  const kept = [...urls.entries()]
    .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1))
    .slice(0, MAX_INDEXED_RESOURCE_TYPES);
  return new Map(kept.map(([type]) => [type, createBitset(size)]));
}

/** The `ready=` values of a stored verdict: the app kinds whose status is `ready`. */
const readyOf = (verdict: VerdictStatuses) => READY.filter((value) => verdict[READY_KIND[value]] === "ready");

/** Sorted distinct name words and, per word, the ordinals whose organization name has it. */
function buildPostings(
  organizationName: Int32Array,
  names: string[],
): { nameWords: string[]; postings: DirectoryData["postings"] } {
  const wordIds = new Map<string, number>();
  const nameWordIds = names.map((name) =>
    words(name).map((word) => {
      let id = wordIds.get(word);
      if (id === undefined) {
        id = wordIds.size;
        wordIds.set(word, id);
      }
      return id;
    }),
  );
  const unsorted = [...wordIds.keys()];
  const sortedIds = unsorted.map((_, id) => id).sort((a, b) => (unsorted[a]! < unsorted[b]! ? -1 : 1));
  const position = new Int32Array(unsorted.length);
  sortedIds.forEach((id, pos) => {
    position[id] = pos;
  });
  const counts = new Int32Array(unsorted.length + 1);
  for (let i = 0; i < organizationName.length; i++) {
    const name = organizationName[i]!;
    if (name >= 0) for (const id of nameWordIds[name]!) counts[position[id]! + 1]!++;
  }
  for (let w = 1; w < counts.length; w++) counts[w]! += counts[w - 1]!;
  const offsets = counts.slice();
  const fill = counts.slice(0, -1);
  const ordinals = new Int32Array(offsets[offsets.length - 1]!);
  for (let i = 0; i < organizationName.length; i++) {
    const name = organizationName[i]!;
    if (name >= 0) for (const id of nameWordIds[name]!) ordinals[fill[position[id]!]!++] = i;
  }
  return { nameWords: sortedIds.map((id) => unsorted[id]!), postings: { offsets, ordinals } };
}
