import { type Bitset, createBitset } from "../../directory/bitset";
import type { DirectoryData } from "../../directory/directory-data";
import { buildIdIndexInSteps, IdLookup } from "../../directory/id-lookup";
import type { EntryLookups } from "../../directory/lookups";
import { Lru } from "../../directory/lru";
import type { DatasetSnapshot } from "../../directory/snapshot";
import { inRanges, Stepped } from "../../directory/stepped";
import { SubstringIndex } from "../../directory/substring-index";
import type { VendorRecord } from "../../model/vendors";
import { organizationHash, sameOrganization, writeOrganizationKey } from "../export/formats/fhir";
import { ByteBuffer, equalFolded } from "../http/byte-buffer";
import { instantOf } from "./date-search";

/** The string tables a search finds text in through a substring index. */
export type SearchedTable = "organizationNames" | "urls" | "cities" | "states" | "zipCodes";

/** The prefix of a developer's Organization id (the shared FHIR identity decision). */
const DEVELOPER_PREFIX = "developer-";

/**
 * Items handled between two yields of the build: at most about 5 ms of CPU (an organization's
 * id is a SHA-256 of its key, about 1 µs), so `/health` is answered between two steps.
 */
const CHUNK = 4_096;

/** Runs `step` over [0, count) in ranges of CHUNK, yielding after each. */
const inChunks = (count: number, step: (from: number, to: number) => void) => inRanges(count, CHUNK, step);

type Tables = Pick<
  FhirIndex,
  | "developerOfVendor"
  | "developerUpdated"
  | "developerUpdatedMs"
  | "lastUpdatedMs"
  | "endpointCount"
  | "endpointFirst"
  | "endpointOfUrl"
  | "endpointUpdated"
  | "organizationCount"
  | "organizationFirst"
  | "organizationUpdated"
  | "organizationEndpointOffsets"
  | "organizationEndpoints"
  | "organizationOfOrdinal"
  | "endpointIdBytes"
  | "organizationIdBytes"
  | "endpointIds"
  | "organizationIds"
  | "organizationAliases"
  | "lowercasedIds"
  | "developerByVendorId"
  | "developerEndpointOffsets"
  | "developerEndpoints"
  | "organizationUpdatedMs"
  | "organizationsByNpi"
  | "npisInOrder"
  | "endpointUpdatedMs"
>;

/** The tables of a FHIR index (see FhirIndex), built in steps: it yields every CHUNK items so the server keeps answering. */
function* buildTables(snapshot: DatasetSnapshot): Generator<void, Tables> {
  const { data } = snapshot.recordSource;
  const developers = snapshot.vendors;
  const { columns: c, strings: s, listed } = data;
  const developerByVendorId = new Map(developers.map((vendor, p) => [vendor.id, p]));
  const developerOfVendor = Int32Array.from(s.vendorIds, (id) => developerByVendorId.get(id) ?? -1);

  // Endpoints: distinct URLs in list order.
  const endpointOfUrl = new Int32Array(s.urls.length).fill(-1);
  const endpointFirstAll = new Int32Array(listed);
  let endpoints = 0;
  yield* inChunks(listed, (from, to) => {
    for (let o = from; o < to; o++) {
      const url = c.url[o]!;
      if (endpointOfUrl[url] !== -1) continue;
      endpointOfUrl[url] = endpoints;
      endpointFirstAll[endpoints++] = o;
    }
  });
  const endpointCount = endpoints;
  const endpointFirst = endpointFirstAll.slice(0, endpoints);
  const endpointIdBytes = new Uint8Array(endpoints * 32);
  const digest = new Uint8Array(32);
  yield* inChunks(endpoints, (from, to) => {
    for (let e = from; e < to; e++) {
      Bun.SHA256.hash(s.urls[c.url[endpointFirst[e]!]!]!, digest);
      endpointIdBytes.set(digest, e * 32);
    }
  });
  const endpointIds = new IdLookup(endpointIdBytes, yield* buildIdIndexInSteps(endpointIdBytes, CHUNK));

  // Organizations: the entries of one are adjacent up to others of the same vendor and
  // (case-insensitive) name (the list order), so a key map per such run finds them all.
  const organizationOfOrdinal = new Int32Array(listed);
  const organizationFirstAll = new Int32Array(listed);
  const counts = new Int32Array(listed + 1);
  let organizations = 0;
  // The run's organizations by their organizationHash; a collision probes the next number.
  const run = new Map<number, number>();
  let runVendor = -1;
  let runName = -2;
  yield* inChunks(listed, (from, to) => {
    for (let o = from; o < to; o++) {
      const vendor = c.vendor[o]!;
      const name = c.organizationName[o]!;
      const sameName =
        name === runName ||
        (name >= 0 && runName >= 0 && equalFolded(s.organizationNames[name]!, s.organizationNames[runName]!));
      if (vendor !== runVendor || !sameName) {
        run.clear();
        runVendor = vendor;
        runName = name;
      }
      let key = organizationHash(c, o);
      let g = run.get(key);
      while (g !== undefined && !sameOrganization(c, o, organizationFirstAll[g]!)) g = run.get(++key);
      if (g === undefined) {
        g = organizations++;
        run.set(key, g);
        organizationFirstAll[g] = o;
      }
      organizationOfOrdinal[o] = g;
      counts[g + 1]!++;
    }
  });
  const organizationCount = organizations;
  const organizationFirst = organizationFirstAll.slice(0, organizations);
  const offsets = new Int32Array(organizations + 1);
  yield* inChunks(organizations, (from, to) => {
    for (let g = from; g < to; g++) offsets[g + 1] = offsets[g]! + counts[g + 1]!;
  });
  const organizationEndpointOffsets = offsets;
  const fill = offsets.slice(0, organizations);
  const organizationEndpoints = new Int32Array(listed);
  const organizationUpdated = new Int32Array(organizations).fill(-1);
  const endpointUpdated = new Int32Array(endpointCount).fill(-1);
  const developerNewest = new Int32Array(developers.length).fill(-1);
  const newer = (a: number, b: number) => a === -1 || s.lastUpdated[b]! > s.lastUpdated[a]!;
  yield* inChunks(listed, (from, to) => {
    for (let o = from; o < to; o++) {
      const g = organizationOfOrdinal[o]!;
      const e = endpointOfUrl[c.url[o]!]!;
      organizationEndpoints[fill[g]!++] = e;
      const updated = c.lastUpdated[o]!;
      if (newer(organizationUpdated[g]!, updated)) organizationUpdated[g] = updated;
      if (newer(endpointUpdated[e]!, updated)) endpointUpdated[e] = updated;
      const p = developerOfVendor[c.vendor[o]!]!;
      if (p !== -1 && newer(developerNewest[p]!, updated)) developerNewest[p] = updated;
    }
  });
  const developerUpdated = developers.map((vendor, p) =>
    developerNewest[p] !== -1 ? s.lastUpdated[developerNewest[p]!]! : vendor.lastScrapedAt,
  );
  const developerUpdatedMs = Float64Array.from(developerUpdated, instantOf);
  // Every lastUpdated string as ms, for `_lastUpdated` (about 0.15 s at 1M entries, so in steps).
  const lastUpdatedMs = new Float64Array(s.lastUpdated.length);
  yield* inChunks(s.lastUpdated.length, (from, to) => {
    for (let i = from; i < to; i++) lastUpdatedMs[i] = instantOf(s.lastUpdated[i]!);
  });

  // The organizations with an NPI, by NPI: three passes of a counting sort on 12 bits each (NPIs
  // have ten digits, under 2^34), each pass in steps.
  let npis = 0;
  yield* inChunks(organizations, (from, to) => {
    for (let g = from; g < to; g++) if (c.npi[organizationFirst[g]!] !== 0) npis++;
  });
  let byNpi = new Int32Array(npis);
  let filled = 0;
  yield* inChunks(organizations, (from, to) => {
    for (let g = from; g < to; g++) if (c.npi[organizationFirst[g]!] !== 0) byNpi[filled++] = g;
  });
  const DIGIT_BITS = 12;
  const DIGIT = 1 << DIGIT_BITS;
  for (let pass = 0; pass < 3; pass++) {
    const scale = 2 ** (DIGIT_BITS * pass);
    const input = byNpi;
    const digitOf = (k: number) => Math.floor(c.npi[organizationFirst[input[k]!]!]! / scale) % DIGIT;
    const starts = new Int32Array(DIGIT + 1);
    yield* inChunks(npis, (from, to) => {
      for (let k = from; k < to; k++) starts[digitOf(k) + 1]!++;
    });
    for (let d = 0; d < DIGIT; d++) starts[d + 1]! += starts[d]!;
    const output = new Int32Array(npis);
    yield* inChunks(npis, (from, to) => {
      for (let k = from; k < to; k++) output[starts[digitOf(k)]!++] = input[k]!;
    });
    byNpi = output;
  }
  const organizationsByNpi = byNpi;
  const npisInOrder = new Float64Array(npis);
  yield* inChunks(npis, (from, to) => {
    for (let k = from; k < to; k++) npisInOrder[k] = c.npi[organizationFirst[organizationsByNpi[k]!]!]!;
  });

  // Each resource's lastUpdated in ms, in resource order: a `_lastUpdated` search reads them in sequence.
  const organizationUpdatedMs = new Float64Array(organizationUpdated.length);
  yield* inChunks(organizationUpdated.length, (from, to) => {
    for (let g = from; g < to; g++) organizationUpdatedMs[g] = lastUpdatedMs[organizationUpdated[g]!]!;
  });
  const endpointUpdatedMs = new Float64Array(endpointUpdated.length);
  yield* inChunks(endpointUpdated.length, (from, to) => {
    for (let e = from; e < to; e++) endpointUpdatedMs[e] = lastUpdatedMs[endpointUpdated[e]!]!;
  });

  const organizationIdBytes = new Uint8Array(organizations * 32);
  const key = new ByteBuffer(1024);
  // One view of the key buffer per key length (a view per organization would be garbage).
  const views: Uint8Array[] = [];
  let viewsOf = key.bytes;
  yield* inChunks(organizations, (from, to) => {
    for (let g = from; g < to; g++) {
      writeOrganizationKey(key, data, organizationFirst[g]!);
      if (viewsOf !== key.bytes) {
        views.length = 0;
        viewsOf = key.bytes;
      }
      views[key.length] ??= key.bytes.subarray(0, key.length);
      Bun.SHA256.hash(views[key.length]!, digest);
      organizationIdBytes.set(digest, g * 32);
    }
  });
  const organizationIds = new IdLookup(organizationIdBytes, yield* buildIdIndexInSteps(organizationIdBytes, CHUNK));
  // The ids other spellings of an organization's name had when they were Organizations of their
  // own ("Associates in Dermatology" beside "ASSOCIATES IN DERMATOLOGY"): answered with a redirect.
  const organizationAliases = new Map<string, number>();
  yield* inChunks(listed, (from, to) => {
    for (let o = from; o < to; o++) {
      const g = organizationOfOrdinal[o]!;
      if (c.organizationName[o] === c.organizationName[organizationFirst[g]!]) continue;
      writeOrganizationKey(key, data, o);
      const alias = Bun.SHA256.hash(key.bytes.subarray(0, key.length), "hex");
      if (organizationIds.find(alias) === -1) organizationAliases.set(alias, g);
    }
  });
  // The ids one release (2026-11-27) gave Organizations, of their names lowercased: redirected
  // too. Only names with a capital letter had another id then (32 bytes each, searched as ids are).
  const formerAll = new Uint8Array(organizations * 32);
  const formerTargets = new Int32Array(organizations);
  let formerCount = 0;
  yield* inChunks(organizations, (from, to) => {
    for (let g = from; g < to; g++) {
      writeOrganizationKey(key, data, organizationFirst[g]!, "lowercased-2026-11-27");
      Bun.SHA256.hash(key.bytes.subarray(0, key.length), digest);
      let same = true;
      for (let i = 0; i < 32 && same; i++) same = digest[i] === organizationIdBytes[g * 32 + i];
      if (same) continue;
      formerAll.set(digest, formerCount * 32);
      formerTargets[formerCount++] = g;
    }
  });
  const formerIdBytes = formerAll.slice(0, formerCount * 32);
  const lowercasedIds = {
    ids: new IdLookup(formerIdBytes, yield* buildIdIndexInSteps(formerIdBytes, CHUNK)),
    targets: formerTargets.slice(0, formerCount),
  };

  // The Endpoints of each developer, in Endpoint order (for `_revinclude`).
  const developerEndpointOffsets = new Int32Array(developers.length + 1);
  const developerOf = (e: number) => developerOfVendor[c.vendor[endpointFirst[e]!]!]!;
  yield* inChunks(endpointCount, (from, to) => {
    for (let e = from; e < to; e++) {
      const p = developerOf(e);
      if (p !== -1) developerEndpointOffsets[p + 1]!++;
    }
  });
  for (let p = 0; p < developers.length; p++) developerEndpointOffsets[p + 1]! += developerEndpointOffsets[p]!;
  const developerEndpoints = new Int32Array(developerEndpointOffsets[developers.length]!);
  const next = developerEndpointOffsets.slice(0, developers.length);
  yield* inChunks(endpointCount, (from, to) => {
    for (let e = from; e < to; e++) {
      const p = developerOf(e);
      if (p !== -1) developerEndpoints[next[p]!++] = e;
    }
  });
  return {
    developerEndpointOffsets,
    developerEndpoints,
    organizationUpdatedMs,
    organizationsByNpi,
    npisInOrder,
    endpointUpdatedMs,
    developerOfVendor,
    developerUpdated,
    developerUpdatedMs,
    lastUpdatedMs,
    endpointCount,
    endpointFirst,
    endpointOfUrl,
    endpointUpdated,
    organizationCount,
    organizationFirst,
    organizationUpdated,
    organizationEndpointOffsets,
    organizationEndpoints,
    organizationOfOrdinal,
    endpointIdBytes,
    organizationIdBytes,
    endpointIds,
    organizationIds,
    organizationAliases,
    lowercasedIds,
    developerByVendorId,
  };
}

/**
 * The FHIR resources of one dataset version, as numbers into the directory's own columns: built
 * once per version from its DirectoryData (no database read), on the first /fhir request.
 *
 * - Endpoint e (0 ≤ e < endpointCount): one per distinct URL of the listed entries, numbered in
 *   list order of first appearance; its status, version and developer are those of that first
 *   entry (`endpointFirst[e]`), as in `export?format=fhir`; its lastUpdated the newest of all
 *   its entries (`endpointUpdated[e]`), so a change to any of them moves it.
 * - Organization position p over [0, developers.length + organizationCount): first the
 *   developers (vendors, by name), then one per organization of a developer (same vendor, name,
 *   NPI, city, state and ZIP) in list order, `organizationFirst[g]` its first entry.
 * Removed entries are in neither: they are not served.
 */
export class FhirIndex {
  readonly version: number;
  /** When the dataset was last refreshed (null before any refresh). */
  readonly lastUpdated: string | null;
  readonly data: DirectoryData;
  readonly vendorNames: ReadonlyMap<string, string>;
  /** The list's lookup indexes of the same version (Organization `near` reads its positions). */
  readonly lookups: EntryLookups;
  readonly developers: readonly VendorRecord[];
  /** Per vendor string-table index: its developer position, -1 when the vendors table lacks it. */
  readonly developerOfVendor: Int32Array;
  /** Per developer position: the newest `lastUpdated` of its entries, else its last scrape, else null. */
  readonly developerUpdated: (string | null)[];
  /** `developerUpdated` in ms since the epoch (NaN for null), as `_lastUpdated` compares it (src/server/fhir/date-search.ts). */
  readonly developerUpdatedMs: Float64Array;
  /** Per `strings.lastUpdated` index: that instant in ms since the epoch, whatever form it was written in. */
  readonly lastUpdatedMs: Float64Array;
  readonly endpointCount: number;
  readonly endpointFirst: Int32Array;
  /** Per URL string-table index: its Endpoint number, -1 when no listed entry has it. */
  readonly endpointOfUrl: Int32Array;
  /** Per Endpoint: index into `strings.lastUpdated` of the newest of its entries. */
  readonly endpointUpdated: Int32Array;
  readonly organizationCount: number;
  readonly organizationFirst: Int32Array;
  /** Per organization: index into `strings.lastUpdated` of the newest of its entries. */
  readonly organizationUpdated: Int32Array;
  /** Per organization and per Endpoint: that newest lastUpdated in ms (`lastUpdatedMs` of it). */
  readonly organizationUpdatedMs: Float64Array;
  readonly endpointUpdatedMs: Float64Array;
  /** The organizations with an NPI, ordered by it (for `identifier`), and their NPIs in that order. */
  readonly organizationsByNpi: Int32Array;
  readonly npisInOrder: Float64Array;
  /** The Endpoint numbers of organization g: `organizationEndpoints[offsets[g] .. offsets[g+1])`, in list order. */
  readonly organizationEndpointOffsets: Int32Array;
  readonly organizationEndpoints: Int32Array;
  /** Per listed entry ordinal: its organization number. */
  readonly organizationOfOrdinal: Int32Array;
  readonly endpointIdBytes: Uint8Array;
  readonly organizationIdBytes: Uint8Array;
  readonly endpointIds: IdLookup;
  readonly organizationIds: IdLookup;
  /** Ids an organization's other spellings had as Organizations of their own, to its number. */
  readonly organizationAliases: Map<string, number>;
  /** The ids of the 2026-11-27 release (the name lowercased in the key), to their organizations. */
  readonly lowercasedIds: { ids: IdLookup; targets: Int32Array };
  readonly developerByVendorId: Map<string, number>;
  /** The Endpoints of developer p: `developerEndpoints[developerEndpointOffsets[p] .. [p + 1])`, ascending. */
  readonly developerEndpointOffsets: Int32Array;
  readonly developerEndpoints: Int32Array;
  /** Per search parameter value, the matching set (src/server/fhir/search.ts); the data never changes. */
  readonly matches = new Lru<Uint32Array>(256, { maxWeight: 64 * 1024 * 1024, weigh: (bits) => bits.byteLength });

  /** Use `fhirIndexOf`: the tables take seconds to build at 1M entries, in steps. */
  private constructor(snapshot: DatasetSnapshot, tables: Tables) {
    const { data, vendorNames } = snapshot.recordSource;
    this.version = snapshot.version;
    this.lastUpdated = snapshot.stats.lastUpdated;
    this.data = data;
    this.vendorNames = vendorNames;
    this.lookups = snapshot.search.lookups;
    this.developers = snapshot.vendors;
    this.developerOfVendor = tables.developerOfVendor;
    this.developerUpdated = tables.developerUpdated;
    this.developerUpdatedMs = tables.developerUpdatedMs;
    this.lastUpdatedMs = tables.lastUpdatedMs;
    this.endpointCount = tables.endpointCount;
    this.endpointFirst = tables.endpointFirst;
    this.endpointOfUrl = tables.endpointOfUrl;
    this.endpointUpdated = tables.endpointUpdated;
    this.organizationCount = tables.organizationCount;
    this.organizationFirst = tables.organizationFirst;
    this.organizationUpdated = tables.organizationUpdated;
    this.organizationEndpointOffsets = tables.organizationEndpointOffsets;
    this.organizationEndpoints = tables.organizationEndpoints;
    this.organizationOfOrdinal = tables.organizationOfOrdinal;
    this.endpointIdBytes = tables.endpointIdBytes;
    this.organizationIdBytes = tables.organizationIdBytes;
    this.endpointIds = tables.endpointIds;
    this.organizationIds = tables.organizationIds;
    this.organizationAliases = tables.organizationAliases;
    this.lowercasedIds = tables.lowercasedIds;
    this.developerByVendorId = tables.developerByVendorId;
    this.developerEndpointOffsets = tables.developerEndpointOffsets;
    this.developerEndpoints = tables.developerEndpoints;
    this.organizationUpdatedMs = tables.organizationUpdatedMs;
    this.organizationsByNpi = tables.organizationsByNpi;
    this.npisInOrder = tables.npisInOrder;
    this.endpointUpdatedMs = tables.endpointUpdatedMs;
  }

  /** Builds the index of a version in steps, each at most CHUNK items, letting other work run between them. */
  static async build(snapshot: DatasetSnapshot): Promise<FhirIndex> {
    return new FhirIndex(snapshot, await new Stepped(buildTables(snapshot)).perTurn());
  }

  /** Per table: its substring index, being built or built (one build, whether stepped or drained). */
  private readonly substrings = new Map<SearchedTable, Stepped<SubstringIndex>>();
  private readonly scratches = new Map<string, Bitset>();

  /**
   * A bitset over a type's resources that a search may overwrite while it runs (synchronously),
   * one per type for the version: searches then leave no such bitset behind as garbage.
   */
  scratch(type: "Endpoint" | "Organization"): Bitset {
    let bits = this.scratches.get(type);
    if (bits === undefined) {
      bits = createBitset(type === "Endpoint" ? this.endpointCount : this.organizationPositions);
      this.scratches.set(type, bits);
    }
    return bits;
  }

  /**
   * The substring index of a string table (src/directory/substring-index.ts), built on the first
   * search that needs it, in steps between which the server answers other requests (about 0.65 s of CPU
   * and 33 MB for the organization names at 1M entries), and kept with the version.
   */
  substringIndex(table: SearchedTable): SubstringIndex | Promise<SubstringIndex> {
    const steps = this.substringSteps(table);
    return steps.done?.value ?? steps.perTurn();
  }

  /**
   * The substring index of a table, at once: built now if no search has asked for it yet, or its
   * running build finished now (the search that started it then gets this same index).
   */
  substringIndexNow(table: SearchedTable): SubstringIndex {
    return this.substringSteps(table).drain();
  }

  /** The substring index of a table if it is built, else null (nothing is started). */
  substringIndexIfBuilt(table: SearchedTable): SubstringIndex | null {
    return this.substrings.get(table)?.done?.value ?? null;
  }

  private substringSteps(table: SearchedTable): Stepped<SubstringIndex> {
    let steps = this.substrings.get(table);
    if (steps === undefined) {
      steps = new Stepped(SubstringIndex.build(this.data.strings[table]));
      this.substrings.set(table, steps);
    }
    return steps;
  }

  /** Organization positions: developers first. */
  get organizationPositions(): number {
    return this.developers.length + this.organizationCount;
  }

  endpointId(e: number): string {
    return hexOf(this.endpointIdBytes, e);
  }

  /** The Endpoint number of an id; -1 when no served Endpoint has it. */
  findEndpoint(id: string): number {
    return this.endpointIds.find(id);
  }

  /** The Organization id at a position. */
  organizationId(p: number): string {
    const developers = this.developers.length;
    return p < developers
      ? `${DEVELOPER_PREFIX}${this.developers[p]!.id}`
      : hexOf(this.organizationIdBytes, p - developers);
  }

  /** The position of an Organization id; -1 when no served Organization has it. */
  findOrganization(id: string): number {
    if (id.startsWith(DEVELOPER_PREFIX)) return this.developerByVendorId.get(id.slice(DEVELOPER_PREFIX.length)) ?? -1;
    const g = this.organizationIds.find(id);
    return g === -1 ? -1 : this.developers.length + g;
  }

  /**
   * The position of the Organization that had this id before (its id now: organizationId): as
   * another spelling of its name, an Organization of its own, or in the 2026-11-27 release, whose
   * ids hashed the name lowercased; -1 for none.
   */
  findOrganizationAlias(id: string): number {
    const k = this.lowercasedIds.ids.find(id);
    const g = k !== -1 ? this.lowercasedIds.targets[k] : this.organizationAliases.get(id);
    return g === undefined ? -1 : this.developers.length + g;
  }

  /** The developer position of Endpoint e (its first entry's vendor). */
  developerOfEndpoint(e: number): number {
    return this.developerOfVendor[this.data.columns.vendor[this.endpointFirst[e]!]!]!;
  }
}

const hexOf = (bytes: Uint8Array, i: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset + i * 32, 32).toString("hex");

const indexes = new WeakMap<DatasetSnapshot, FhirIndex>();

const building = new WeakMap<DatasetSnapshot, Promise<FhirIndex>>();

/** The FHIR index of a dataset version, built on first use (in steps) and kept as long as the version is. */
export function fhirIndexOf(snapshot: DatasetSnapshot): FhirIndex | Promise<FhirIndex> {
  const index = indexes.get(snapshot);
  if (index !== undefined) return index;
  let pending = building.get(snapshot);
  if (pending === undefined) {
    pending = FhirIndex.build(snapshot).then((built) => {
      indexes.set(snapshot, built);
      building.delete(snapshot);
      return built;
    });
    building.set(snapshot, pending);
  }
  return pending;
}
