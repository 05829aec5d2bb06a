import { bitsetUnits, WORK } from "../model/request-caps";
import { type Bitset, countBits, createBitset, hasBit, intersectInto, selectBits, setBit } from "./bitset";
import type { DirectoryData } from "./directory-data";
import { EntryLookups } from "./lookups";
import { lowerBound, prefixRange } from "./lower-bound";
import { Lru } from "./lru";

/**
 * Units per entry of putting a lookup's entries in list order (a native sort of 32-bit ordinals,
 * about 60 ns each at 100,000): a domain of several hosts, near in the default order.
 */
const SORT_UNITS = 5;

/**
 * How far into near's entries in list order a page is merged from its positions' groups (a heap
 * pop per entry skipped or shown); past it, the entries are listed and sorted once, and kept.
 */
const MERGED_NEAR_PAGE = 2_500;

/** `near`: a point (a ZIP's, from the committed ZIP table) and a radius in miles. */
interface NearFilter {
  zip: string;
  latitude: number;
  longitude: number;
  radius: number;
  /** Nearest first (the default with `near`), else the list's default order. */
  byDistance: boolean;
}

export interface EndpointFilter {
  /** Folded query words; each must be the prefix of some word of the organization name. */
  queryWords: string[];
  vendor?: string;
  /** `ehr` or `payer` (src/model/vendors.ts, VENDOR_KINDS): the kind of the entry's vendor. */
  kind?: string;
  state?: string;
  fhirVersion?: string;
  access?: string;
  hasResource?: string[];
  smartSupported?: boolean;
  /** `supports=` values (src/model/capability-rules.ts, SUPPORTS); each must hold. */
  supports?: string[];
  /** `ready=` values (READY); each app kind's verdict must be `ready`. */
  ready?: string[];
  /** `production` or `non-production` (src/model/environment.ts). */
  environment?: string;
  /** A 10-digit NPI with a valid check digit, as a number. */
  npi?: number;
  /** A host name or domain, lowercased: the entries of its URLs' hosts and of every host under it. */
  host?: string;
  /** A canonical base URL (src/model/identity.ts). */
  url?: string;
  /** A folded city name (src/directory/lookups.ts, cityKey). */
  city?: string;
  near?: NearFilter;
}

export interface SearchResult {
  total: number;
  ordinals: number[];
}

/**
 * Answers list queries over one dataset version. The data never changes, so word-prefix bitsets
 * and the totals of filters already seen are cached.
 */
export class DirectorySearch {
  private readonly prefixCache = new Lru<Bitset>(256);
  private readonly totals = new Lru<number>(10_000);
  private readonly scratch: Bitset;
  /** The indexes of the lookup filters (npi, host, url, city, near). */
  readonly lookups: EntryLookups;

  /** `lookups`: the version's lookup indexes when built ahead (in steps), else built now. */
  constructor(
    private readonly data: DirectoryData,
    lookups?: EntryLookups,
  ) {
    this.scratch = createBitset(data.size);
    this.lookups = lookups ?? new EntryLookups(data);
  }

  search(filter: EndpointFilter, offset: number, limit: number): SearchResult {
    const sets = this.filterSets(filter);
    if (sets === null) return { total: 0, ordinals: [] };
    const { near } = filter;
    // near alone: nearest first, its page is read from its positions, nothing listed; in list
    // order, an early page is merged from its positions, nothing sorted.
    const nearAlone =
      near !== undefined &&
      sets.length === 0 &&
      [filter.npi, filter.host, filter.url, filter.city].every((v) => v === undefined);
    if (nearAlone && (near.byDistance || offset + limit <= MERGED_NEAR_PAGE)) {
      const matches = this.lookups.near(near.latitude, near.longitude, near.radius, near.byDistance);
      const ordinals = near.byDistance
        ? this.lookups.nearPage(matches, offset, limit)
        : this.lookups.nearPageInListOrder(matches, offset, limit);
      return { total: matches.total, ordinals };
    }
    const lists = this.lookupLists(filter);
    // One lookup filter alone: its list is the answer, in its order.
    if (lists.length === 1 && sets.length === 0)
      return { total: lists[0]!.length, ordinals: Array.from(lists[0]!.subarray(offset, offset + limit)) };
    if (lists.length > 0) return walk(lists, sets, offset, limit, near?.byDistance === true);
    // Without filters: every entry not removed, which are the first `listed` ordinals.
    const { listed } = this.data;
    if (sets.length === 0) {
      const ordinals: number[] = [];
      for (let i = offset; i < Math.min(offset + limit, listed); i++) ordinals.push(i);
      return { total: listed, ordinals };
    }
    if (sets.length === 1) {
      const bits = sets[0]!;
      return {
        total: this.totals.getOrCompute(filterKey(filter), () => countBits(bits)),
        ordinals: selectBits(bits, offset, limit),
      };
    }
    const key = filterKey(filter);
    const known = this.totals.get(key);
    if (known !== undefined && offset >= known) return { total: known, ordinals: [] };
    const total = intersectInto(this.scratch, sets);
    this.totals.set(key, total);
    return { total, ordinals: offset >= total ? [] : selectBits(this.scratch, offset, limit) };
  }

  /**
   * The work units (src/model/request-caps.ts, WORK) a search costs at most, from the sizes of
   * what it would read, before any of it is done and whether or not its sets are kept from an
   * earlier search: each query word's postings, combining the filters' bitsets, reaching the
   * page, writing its records.
   */
  cost(filter: EndpointFilter, limit: number): number {
    const { strings, postings, size } = this.data;
    const bitset = bitsetUnits(size);
    let query = 0;
    for (const word of filter.queryWords) {
      const [from, to] = prefixRange(strings.nameWords, word);
      query += postings.offsets[to]! - postings.offsets[from]! + bitset;
    }
    const sets =
      filter.queryWords.length +
      (filter.hasResource?.length ?? 0) +
      (filter.supports?.length ?? 0) +
      (filter.ready?.length ?? 0) +
      [
        filter.vendor,
        filter.kind,
        filter.state,
        filter.fhirVersion,
        filter.access,
        filter.smartSupported,
        filter.environment,
      ].filter((value) => value !== undefined).length;
    const lists = this.lookupSizes(filter);
    // A lookup filter walks its shortest list (a near one: its own), testing each entry in every
    // other set and list; without one, the sets are combined whole.
    const walked = lists.length === 0 ? 0 : filter.near?.byDistance ? lists[0]! : Math.min(...lists);
    const combined =
      lists.length === 0
        ? (sets + 1) * bitset
        : lists.length === 1 && sets === 0
          ? 0
          : (sets + lists.length) * (walked + 1);
    return query + combined + lists.reduce((sum, size) => sum + size, 0) + limit * WORK.resource;
  }

  /**
   * The entries each lookup filter reads (near first), in work units: its postings, a domain's
   * sort of many hosts' entries, near's test of each position in its latitude band.
   */
  private lookupSizes(filter: EndpointFilter): number[] {
    const { lookups } = this;
    const sizes: number[] = [];
    if (filter.near) {
      const { positions, entries } = lookups.nearSize(filter.near.latitude, filter.near.radius, filter.near.longitude);
      sizes.push(positions * WORK.check + entries * (filter.near.byDistance ? 1 : SORT_UNITS));
    }
    if (filter.npi !== undefined) sizes.push(lookups.npi(filter.npi).length);
    if (filter.url !== undefined) sizes.push(lookups.url(filter.url).length);
    if (filter.city !== undefined) sizes.push(lookups.city(filter.city).length);
    if (filter.host !== undefined) {
      const { entries, hosts } = lookups.hostSize(filter.host);
      sizes.push(hosts > 1 ? entries * SORT_UNITS : entries);
    }
    return sizes;
  }

  /** The lists of the lookup filters: near's first (in its order), then the others in list order. */
  private lookupLists(filter: EndpointFilter): Int32Array[] {
    const { lookups } = this;
    const lists: Int32Array[] = [];
    const { near } = filter;
    if (near) lists.push(lookups.near(near.latitude, near.longitude, near.radius, near.byDistance).ordinals());
    if (filter.npi !== undefined) lists.push(lookups.npi(filter.npi));
    if (filter.url !== undefined) lists.push(lookups.url(filter.url));
    if (filter.city !== undefined) lists.push(lookups.city(filter.city));
    if (filter.host !== undefined) lists.push(lookups.host(filter.host));
    return lists;
  }

  /** The bitsets to intersect; null when a filter value matches nothing at all. */
  private filterSets(filter: EndpointFilter): Bitset[] | null {
    const { facets } = this.data;
    const sets: Bitset[] = [];
    const add = (bits: Bitset | undefined) => {
      if (!bits) return false;
      sets.push(bits);
      return true;
    };
    if (filter.vendor !== undefined && !add(facets.vendor.get(filter.vendor))) return null;
    if (filter.kind !== undefined && !add(facets.kind.get(filter.kind))) return null;
    if (filter.state !== undefined && !add(facets.state.get(filter.state))) return null;
    if (filter.fhirVersion !== undefined && !add(facets.fhirVersion.get(filter.fhirVersion))) return null;
    if (filter.access !== undefined && !add(facets.access.get(filter.access))) return null;
    if (filter.smartSupported !== undefined && !add(facets.smart.get(String(filter.smartSupported)))) return null;
    for (const type of filter.hasResource ?? []) if (!add(facets.resource.get(type))) return null;
    for (const value of filter.supports ?? []) if (!add(facets.supports.get(value))) return null;
    for (const value of filter.ready ?? []) if (!add(facets.ready.get(value))) return null;
    if (filter.environment !== undefined && !add(facets.environment.get(filter.environment))) return null;
    for (const word of filter.queryWords) if (!add(this.prefixBits(word))) return null;
    return sets;
  }

  private prefixBits(prefix: string): Bitset | undefined {
    const cached = this.prefixCache.get(prefix);
    if (cached) return cached;
    const { strings, postings, size } = this.data;
    const [from, to] = prefixRange(strings.nameWords, prefix);
    if (from === to) return undefined;
    const bits = createBitset(size);
    for (let i = from; i < to; i++) {
      for (let p = postings.offsets[i]!; p < postings.offsets[i + 1]!; p++) setBit(bits, postings.ordinals[p]!);
    }
    this.prefixCache.set(prefix, bits);
    return bits;
  }
}

export const filterKey = (filter: EndpointFilter) => JSON.stringify(filter);

/**
 * The page of a search with lookup filters: walks the first list when `inOrder` (near's, nearest
 * first), else the shortest (all are ascending then), keeping each entry that every set and every
 * other list has (membership by binary search: those lists are ascending).
 */
function walk(lists: Int32Array[], sets: Bitset[], offset: number, limit: number, inOrder: boolean): SearchResult {
  let driver = 0;
  if (!inOrder) for (let i = 1; i < lists.length; i++) if (lists[i]!.length < lists[driver]!.length) driver = i;
  const ordered = lists[driver]!;
  const others = lists.filter((_, i) => i !== driver);
  const ordinals: number[] = [];
  let total = 0;
  next: for (let k = 0; k < ordered.length; k++) {
    const ordinal = ordered[k]!;
    for (const bits of sets) if (!hasBit(bits, ordinal)) continue next;
    for (const list of others) if (list[lowerBound(list, ordinal)] !== ordinal) continue next;
    if (total >= offset && ordinals.length < limit) ordinals.push(ordinal);
    total++;
  }
  return { total, ordinals };
}
