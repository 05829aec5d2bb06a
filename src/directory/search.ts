import { countBits, createBitset, intersectInto, selectBits, setBit, type Bitset } from "./bitset";
import type { DirectoryIndex } from "./index-builder";

export interface EndpointFilter {
  /** Folded query words; each must be the prefix of some word of the organization name. */
  queryWords: string[];
  vendor?: string;
  state?: string;
  fhirVersion?: string;
  access?: string;
  hasResource?: string[];
  smartSupported?: boolean;
}

export interface SearchResult {
  total: number;
  rowIds: number[];
}

const PREFIX_CACHE_SIZE = 256;

/** Answers list queries from one DirectoryIndex; caches word-prefix bitsets (the index never changes). */
export class DirectorySearch {
  private readonly prefixCache = new Map<string, Bitset>();
  private readonly scratch: Bitset;

  constructor(readonly index: DirectoryIndex) {
    this.scratch = createBitset(index.size);
  }

  search(filter: EndpointFilter, offset: number, limit: number): SearchResult {
    const sets = this.filterSets(filter);
    if (sets === null) return { total: 0, rowIds: [] };
    if (sets.length === 0) return { total: this.index.size, rowIds: this.toRowIds(range(offset, Math.min(offset + limit, this.index.size))) };
    let bits: Bitset;
    let total: number;
    if (sets.length === 1) {
      bits = sets[0]!;
      total = countBits(bits);
    } else {
      bits = this.scratch;
      total = intersectInto(bits, sets);
    }
    return { total, rowIds: offset >= total ? [] : this.toRowIds(selectBits(bits, offset, limit)) };
  }

  /** The bitsets to intersect; null when a filter value matches nothing at all. */
  private filterSets(filter: EndpointFilter): Bitset[] | null {
    const { index } = this;
    const sets: Bitset[] = [];
    const add = (bits: Bitset | undefined) => {
      if (!bits) return false;
      sets.push(bits);
      return true;
    };
    if (filter.vendor !== undefined && !add(index.vendor.get(filter.vendor))) return null;
    if (filter.state !== undefined && !add(index.state.get(filter.state))) return null;
    if (filter.fhirVersion !== undefined && !add(index.fhirVersion.get(filter.fhirVersion))) return null;
    if (filter.access !== undefined && !add(index.access.get(filter.access))) return null;
    if (filter.smartSupported !== undefined) sets.push(filter.smartSupported ? index.smartSupported : index.smartUnsupported);
    for (const type of filter.hasResource ?? []) if (!add(index.resource.get(type))) return null;
    for (const word of filter.queryWords) if (!add(this.prefixBits(word))) return null;
    return sets;
  }

  private prefixBits(prefix: string): Bitset | undefined {
    const cached = this.prefixCache.get(prefix);
    if (cached) {
      this.prefixCache.delete(prefix);
      this.prefixCache.set(prefix, cached);
      return cached;
    }
    const { nameWords, postings, size } = this.index;
    let i = lowerBound(nameWords, prefix);
    if (i >= nameWords.length || !nameWords[i]!.startsWith(prefix)) return undefined;
    const bits = createBitset(size);
    for (; i < nameWords.length && nameWords[i]!.startsWith(prefix); i++) {
      const list = postings[i]!;
      for (let p = 0; p < list.length; p++) setBit(bits, list[p]!);
    }
    if (this.prefixCache.size >= PREFIX_CACHE_SIZE) this.prefixCache.delete(this.prefixCache.keys().next().value!);
    this.prefixCache.set(prefix, bits);
    return bits;
  }

  private toRowIds(ordinals: number[]): number[] {
    return ordinals.map((ordinal) => this.index.rowIds[ordinal]!);
  }
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}

function lowerBound(sorted: string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
