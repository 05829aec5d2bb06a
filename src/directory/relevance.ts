import type { DirectoryData } from "./directory-data";
import { Lru } from "./lru";
import type { DirectorySearch, EndpointFilter, SearchResult } from "./search";
import { filterKey } from "./search";
import { words } from "./text";

/**
 * How well an organization name matches the query words (`sort=relevance`, docs/api.md "List
 * order and search"): 0 when the query is the whole name (as many words, each query word starting
 * the name's word at its place: `clev clin` is all of "Cleveland Clinic", so typing finds it
 * first before the last word is complete), 1 when every query word starts a word of the name in
 * the query's order, 2 otherwise.
 */
function nameMatchTier(nameWords: readonly string[], queryWords: readonly string[]): 0 | 1 | 2 {
  if (nameWords.length === queryWords.length && nameWords.every((word, i) => word.startsWith(queryWords[i]!))) return 0;
  let at = 0;
  for (const query of queryWords) {
    while (at < nameWords.length && !nameWords[at]!.startsWith(query)) at++;
    if (at === nameWords.length) return 2;
    at++;
  }
  return 1;
}

/** The most matches `sort=relevance` ranks; a query with more is answered in the default order. */
const RANKED_AT_MOST = 20_000;

/**
 * The list in relevance order: the matches of a filter with query words, the whole-name matches
 * first, then the in-order word-start matches, then the rest, each tier in the list's default
 * order (the order `DirectorySearch` returns them in). A filter's ranked matches are kept, so
 * paging through them ranks once.
 */
export class RelevanceSearch {
  private readonly ranked = new Lru<Int32Array>(32);

  constructor(
    private readonly data: DirectoryData,
    private readonly search: DirectorySearch,
  ) {}

  page(filter: EndpointFilter, offset: number, limit: number): SearchResult {
    if (filter.queryWords.length === 0) return this.search.search(filter, offset, limit);
    const key = filterKey(filter);
    if (this.ranked.get(key) === undefined) {
      // A query matching more than RANKED_AT_MOST entries is answered in the default order: ranking
      // it would cost tens of milliseconds, and a person refines such a query anyway.
      const plain = this.search.search(filter, offset, limit);
      if (plain.total > RANKED_AT_MOST) return plain;
    }
    const ranked = this.ranked.getOrCompute(key, () => this.rank(filter));
    return { total: ranked.length, ordinals: Array.from(ranked.subarray(offset, offset + limit)) };
  }

  private rank(filter: EndpointFilter): Int32Array {
    const { ordinals } = this.search.search(filter, 0, this.data.size);
    const names = this.data.strings.organizationNames;
    const column = this.data.columns.organizationName;
    // Entries share names (a practice listed at several URLs): each name is judged once.
    const tierOfName = new Map<number, number>();
    const tiers: number[][] = [[], [], []];
    for (const ordinal of ordinals) {
      const name = column[ordinal]!;
      let tier = tierOfName.get(name);
      if (tier === undefined) {
        tier = name < 0 ? 2 : nameMatchTier(words(names[name]!), filter.queryWords);
        tierOfName.set(name, tier);
      }
      tiers[tier]!.push(ordinal);
    }
    return Int32Array.from(tiers.flat());
  }
}
