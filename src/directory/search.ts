import { bitsetUnits, WORK } from "../model/request-caps";
import { type Bitset, countBits, createBitset, intersectInto, selectBits, setBit } from "./bitset";
import type { DirectoryData } from "./directory-data";
import { prefixRange } from "./lower-bound";
import { Lru } from "./lru";

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

  constructor(private readonly data: DirectoryData) {
    this.scratch = createBitset(data.size);
  }

  search(filter: EndpointFilter, offset: number, limit: number): SearchResult {
    const sets = this.filterSets(filter);
    if (sets === null) return { total: 0, ordinals: [] };
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
      [filter.vendor, filter.kind, filter.state, filter.fhirVersion, filter.access, filter.smartSupported].filter(
        (value) => value !== undefined,
      ).length;
    return query + (sets + 1) * bitset + limit * WORK.resource;
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
