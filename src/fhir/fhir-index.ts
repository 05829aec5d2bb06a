import type { DirectoryData } from "../directory/directory-data";
import { buildIdIndex, IdLookup } from "../directory/id-lookup";
import { Lru } from "../directory/lru";
import type { DatasetSnapshot } from "../directory/snapshot";
import type { VendorRecord } from "../directory/types";
import { writeOrganizationKey } from "../export/formats/fhir";
import { ByteBuffer, equalFolded } from "../http/byte-buffer";
import type { Encoding } from "../http/compression";

/** A built GET answer: its ETag, its body, and its body compressed in the encodings asked so far. */
export interface FhirAnswer {
  etag: string;
  plain: Blob;
  encoded: Partial<Record<Encoding, Blob>>;
}

/** The prefix of a developer's Organization id (the shared FHIR identity decision). */
const DEVELOPER_PREFIX = "developer-";

/**
 * The FHIR resources of one dataset version, as numbers into the directory's own columns: built
 * once per version from its DirectoryData (no database read), on the first /fhir request.
 *
 * - Endpoint e (0 ≤ e < endpointCount): one per distinct URL of the listed entries, numbered in
 *   list order of first appearance; its status, version and developer are those of that first
 *   entry (`endpointFirst[e]`), as in `export?format=fhir`.
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
  readonly developers: readonly VendorRecord[];
  /** Per vendor string-table index: its developer position, -1 when the vendors table lacks it. */
  readonly developerOfVendor: Int32Array;
  /** Per developer position: the newest `lastUpdated` of its entries, else its last scrape, else null. */
  readonly developerUpdated: (string | null)[];
  readonly endpointCount: number;
  readonly endpointFirst: Int32Array;
  /** Per URL string-table index: its Endpoint number, -1 when no listed entry has it. */
  readonly endpointOfUrl: Int32Array;
  readonly organizationCount: number;
  readonly organizationFirst: Int32Array;
  /** Per organization: index into `strings.lastUpdated` of the newest of its entries. */
  readonly organizationUpdated: Int32Array;
  /** The Endpoint numbers of organization g: `organizationEndpoints[offsets[g] .. offsets[g+1])`, in list order. */
  readonly organizationEndpointOffsets: Int32Array;
  readonly organizationEndpoints: Int32Array;
  /** Per listed entry ordinal: its organization number. */
  readonly organizationOfOrdinal: Int32Array;
  private readonly endpointIdBytes: Uint8Array;
  private readonly organizationIdBytes: Uint8Array;
  private readonly endpointIds: IdLookup;
  private readonly organizationIds: IdLookup;
  private readonly developerByVendorId: Map<string, number>;
  /** Per search parameter value, the matching set (src/fhir/service.ts); the data never changes. */
  readonly matches = new Lru<Uint32Array>(256, { maxWeight: 64 * 1024 * 1024, weigh: (bits) => bits.byteLength });
  /** Built answers of GET requests, by absolute URL (src/fhir/routes.ts). */
  readonly answers = new Lru<FhirAnswer>(2_000, {
    maxWeight: 32 * 1024 * 1024,
    weigh: (answer) => answer.plain.size + (answer.encoded.br?.size ?? 0) + (answer.encoded.gzip?.size ?? 0) + 256,
  });

  constructor(snapshot: DatasetSnapshot) {
    const { data, vendorNames } = snapshot.recordSource;
    const { columns: c, strings: s, listed } = data;
    this.version = snapshot.version;
    this.lastUpdated = snapshot.stats.lastUpdated;
    this.data = data;
    this.vendorNames = vendorNames;
    this.developers = snapshot.vendors;
    this.developerByVendorId = new Map(this.developers.map((vendor, p) => [vendor.id, p]));
    this.developerOfVendor = Int32Array.from(s.vendorIds, (id) => this.developerByVendorId.get(id) ?? -1);

    // Endpoints: distinct URLs in list order.
    this.endpointOfUrl = new Int32Array(s.urls.length).fill(-1);
    const endpointFirst = new Int32Array(listed);
    let endpoints = 0;
    for (let o = 0; o < listed; o++) {
      const url = c.url[o]!;
      if (this.endpointOfUrl[url] !== -1) continue;
      this.endpointOfUrl[url] = endpoints;
      endpointFirst[endpoints++] = o;
    }
    this.endpointCount = endpoints;
    this.endpointFirst = endpointFirst.slice(0, endpoints);
    this.endpointIdBytes = new Uint8Array(endpoints * 32);
    const digest = new Uint8Array(32);
    for (let e = 0; e < endpoints; e++) {
      Bun.SHA256.hash(s.urls[c.url[this.endpointFirst[e]!]!]!, digest);
      this.endpointIdBytes.set(digest, e * 32);
    }
    this.endpointIds = new IdLookup(this.endpointIdBytes, buildIdIndex(this.endpointIdBytes));

    // Organizations: the entries of one are adjacent up to others of the same vendor and
    // (case-insensitive) name (the list order), so a key map per such run finds them all.
    this.organizationOfOrdinal = new Int32Array(listed);
    const organizationFirst = new Int32Array(listed);
    const counts = new Int32Array(listed + 1);
    let organizations = 0;
    // The run's organizations by a hash of their key columns; a collision probes the next number.
    const run = new Map<number, number>();
    let runVendor = -1;
    let runName = -2;
    const sameOrganization = (o: number, p: number) =>
      c.organizationName[p] === c.organizationName[o] &&
      c.npi[p] === c.npi[o] &&
      c.city[p] === c.city[o] &&
      c.state[p] === c.state[o] &&
      c.zipCode[p] === c.zipCode[o];
    for (let o = 0; o < listed; o++) {
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
      let key = Math.imul(name ^ 0x2545f491, 0x9e3779b1);
      key = Math.imul(key ^ c.city[o]!, 0x85ebca6b);
      key = Math.imul(key ^ c.state[o]!, 0xc2b2ae35);
      key = Math.imul(key ^ c.zipCode[o]!, 0x27d4eb2f) ^ (c.npi[o]! % 0x100000000);
      let g = run.get(key);
      while (g !== undefined && !sameOrganization(o, organizationFirst[g]!)) g = run.get(++key);
      if (g === undefined) {
        g = organizations++;
        run.set(key, g);
        organizationFirst[g] = o;
      }
      this.organizationOfOrdinal[o] = g;
      counts[g + 1]!++;
    }
    this.organizationCount = organizations;
    this.organizationFirst = organizationFirst.slice(0, organizations);
    const offsets = new Int32Array(organizations + 1);
    for (let g = 0; g < organizations; g++) offsets[g + 1] = offsets[g]! + counts[g + 1]!;
    this.organizationEndpointOffsets = offsets;
    const fill = offsets.slice(0, organizations);
    this.organizationEndpoints = new Int32Array(listed);
    this.organizationUpdated = new Int32Array(organizations).fill(-1);
    const developerNewest = new Int32Array(this.developers.length).fill(-1);
    const newer = (a: number, b: number) => a === -1 || s.lastUpdated[b]! > s.lastUpdated[a]!;
    for (let o = 0; o < listed; o++) {
      const g = this.organizationOfOrdinal[o]!;
      this.organizationEndpoints[fill[g]!++] = this.endpointOfUrl[c.url[o]!]!;
      const updated = c.lastUpdated[o]!;
      if (newer(this.organizationUpdated[g]!, updated)) this.organizationUpdated[g] = updated;
      const p = this.developerOfVendor[c.vendor[o]!]!;
      if (p !== -1 && newer(developerNewest[p]!, updated)) developerNewest[p] = updated;
    }
    this.developerUpdated = this.developers.map((vendor, p) =>
      developerNewest[p] !== -1 ? s.lastUpdated[developerNewest[p]!]! : vendor.lastScrapedAt,
    );

    this.organizationIdBytes = new Uint8Array(organizations * 32);
    const key = new ByteBuffer(1024);
    // One view of the key buffer per key length (a view per organization would be garbage).
    const views: Uint8Array[] = [];
    let viewsOf = key.bytes;
    for (let g = 0; g < organizations; g++) {
      writeOrganizationKey(key, data, this.organizationFirst[g]!);
      if (viewsOf !== key.bytes) {
        views.length = 0;
        viewsOf = key.bytes;
      }
      views[key.length] ??= key.bytes.subarray(0, key.length);
      Bun.SHA256.hash(views[key.length]!, digest);
      this.organizationIdBytes.set(digest, g * 32);
    }
    this.organizationIds = new IdLookup(this.organizationIdBytes, buildIdIndex(this.organizationIdBytes));
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

  /** The developer position of Endpoint e (its first entry's vendor). */
  developerOfEndpoint(e: number): number {
    return this.developerOfVendor[this.data.columns.vendor[this.endpointFirst[e]!]!]!;
  }
}

const hexOf = (bytes: Uint8Array, i: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset + i * 32, 32).toString("hex");

const indexes = new WeakMap<DatasetSnapshot, FhirIndex>();

/** The FHIR index of a dataset version if it was built, without building it. */
export const builtFhirIndexOf = (snapshot: DatasetSnapshot): FhirIndex | undefined => indexes.get(snapshot);

/** The FHIR index of a dataset version, built on first use and kept as long as the version is. */
export function fhirIndexOf(snapshot: DatasetSnapshot): FhirIndex {
  let index = indexes.get(snapshot);
  if (index === undefined) {
    index = new FhirIndex(snapshot);
    indexes.set(snapshot, index);
  }
  return index;
}
