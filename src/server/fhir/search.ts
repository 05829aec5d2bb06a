import {
  type Bitset,
  countBits,
  createBitset,
  hasBit,
  intersectInto,
  selectBits,
  setBit,
} from "../../directory/bitset";
import { lowerBound, prefixRange } from "../../directory/lower-bound";
import type { SubstringIndex } from "../../directory/substring-index";
import { fold, words } from "../../directory/text";
import { REQUEST_CAPS } from "../../model/request-caps";
import { NPI_SYSTEM } from "../export/formats/fhir";
import { FhirError } from "../http/operation-outcome";
import { type DateInterval, parseDateValue } from "./date-search";
import type { FhirIndex, SearchedTable } from "./fhir-index";
import { parseNearValue } from "./near-search";
import { CONNECTION_CODE, CONNECTION_SYSTEM, endpointStatus, endpointVersionCode } from "./resources";
import { searchedTable } from "./search-cost";
import type { Criterion, ResourceType, SearchRequest } from "./search-params";

const ENDPOINT_STATUS_SYSTEM = "http://hl7.org/fhir/endpoint-status";
/** At most this many resources are included in one page (`_revinclude` of a developer can be its whole list). */
const MAX_INCLUDED = REQUEST_CAPS.includedResources;

export interface SearchResult {
  total: number;
  /** Organization positions or Endpoint numbers of the page, in order. */
  matches: number[];
  /** Included resources (of the other type, or developers for an Endpoint search), in order of first mention. */
  included: number[];
}

/** Number of resources a search of `type` ranges over. */
const universe = (index: FhirIndex, type: ResourceType) =>
  type === "Endpoint" ? index.endpointCount : index.organizationPositions;

/**
 * Runs a search over the FHIR index: each criterion is a bitset over the type's resources
 * (built once per value and dataset version, then cached), intersected like the JSON API's
 * filters; the page is read from the intersection.
 */
export function runSearch(index: FhirIndex, request: SearchRequest): SearchResult {
  if (request.snapshot !== null && request.snapshot !== index.version)
    throw new FhirError(
      410,
      "expired",
      `This page link was made for dataset version ${request.snapshot}; the directory now serves version ${index.version}. Run the search again from its first page.`,
    );
  const size = universe(index, request.type);
  const sets = request.criteria.map((criterion) => criterionBits(index, request.type, criterion));
  let total: number;
  let matches: number[];
  const wanted = request.summaryCount ? 0 : request.count;
  if (sets.length === 0) {
    total = size;
    matches = [];
    for (let i = request.offset; i < Math.min(request.offset + wanted, size); i++) matches.push(i);
  } else if (sets.length === 1) {
    total = countBits(sets[0]!);
    matches = wanted === 0 ? [] : selectBits(sets[0]!, request.offset, wanted);
  } else {
    const scratch = index.scratch(request.type);
    total = intersectInto(scratch, sets);
    matches = wanted === 0 || request.offset >= total ? [] : selectBits(scratch, request.offset, wanted);
  }
  return { total, matches, included: includedOf(index, request, matches) };
}

function includedOf(index: FhirIndex, request: SearchRequest, matches: number[]): number[] {
  const included: number[] = [];
  const seen = new Set<number>();
  const add = (n: number) => {
    if (n === -1 || seen.has(n)) return;
    seen.add(n);
    included.push(n);
    if (included.length > MAX_INCLUDED)
      throw new FhirError(
        400,
        "too-costly",
        `This page would include more than ${MAX_INCLUDED} resources; use a smaller _count, or search Endpoint?organization=… instead of _revinclude`,
      );
  };
  const developers = index.developers.length;
  if (request.type === "Endpoint") {
    if (request.include) for (const e of matches) add(index.developerOfEndpoint(e));
    return included;
  }
  if (request.include)
    for (const p of matches) {
      if (p < developers) continue;
      const g = p - developers;
      for (let k = index.organizationEndpointOffsets[g]!; k < index.organizationEndpointOffsets[g + 1]!; k++)
        add(index.organizationEndpoints[k]!);
    }
  if (request.revinclude)
    for (const p of matches)
      if (p < developers)
        for (let k = index.developerEndpointOffsets[p]!; k < index.developerEndpointOffsets[p + 1]!; k++)
          add(index.developerEndpoints[k]!);
  return included;
}

/**
 * A search's costly work as steps: building the substring indexes its criteria read (each in
 * steps of its own), then each criterion's matches (cached for the version), for the caller to
 * run apart (src/server/fhir/turns.ts) after checking the search's cost; `runSearch` then finds
 * them cached.
 */
export const substringSteps = (index: FhirIndex, request: SearchRequest) =>
  request.criteria.flatMap((criterion) => {
    const table = searchedTable(request.type, criterion);
    return table === null || index.substringIndexIfBuilt(table) !== null
      ? []
      : [async () => void (await index.substringIndex(table))];
  });

export const criteriaSteps = (index: FhirIndex, request: SearchRequest) =>
  request.criteria.map((criterion) => () => void criterionBits(index, request.type, criterion));

/** The bitset of one criterion: the union of its alternatives, cached per dataset version. */
function criterionBits(index: FhirIndex, type: ResourceType, criterion: Criterion): Bitset {
  const key = `${type}\n${criterion.name}\n${criterion.modifier}\n${criterion.values.join("\n")}`;
  return index.matches.getOrCompute(key, () => {
    const bits = createBitset(universe(index, type));
    (type === "Endpoint" ? endpointMatches : organizationMatches)(index, criterion, bits);
    return bits;
  });
}

/** `system|code` → [system, code]; a bare code has system null. */
function token(value: string): [string | null, string] {
  const bar = value.indexOf("|");
  return bar === -1 ? [null, value] : [value.slice(0, bar), value.slice(bar + 1)];
}

/** The id a reference names: `id`, `Type/id` or an absolute URL ending in `Type/id`; null when it names another type. */
function referencedId(value: string, target: ResourceType): string | null {
  const parts = value.split("/");
  if (parts.length === 1) return value;
  return parts[parts.length - 2] === target ? parts[parts.length - 1]! : null;
}

/** The string rule (src/server/fhir/search-params.ts): a test of one field value, made once per search value. */
function stringTest(modifier: string | null, value: string): (field: string) => boolean {
  if (modifier === "exact") return (field) => field === value;
  if (modifier === "contains") {
    const folded = fold(value);
    return (field) => fold(field).includes(folded);
  }
  const wanted = words(value);
  return (field) => {
    if (wanted.length === 0) return true;
    const have = words(field);
    return wanted.every((word) => have.some((w) => w.startsWith(word)));
  };
}

/**
 * The strings of a table (a bitset over it) that match any of `values` by the string rule,
 * found through the table's substring index (each candidate found there checked against the
 * rule): `:contains` is the index's own question, `:exact` and the word rule ask it for the
 * value or its longest word (which a match must contain), so no value reads the whole table.
 */
function stringBits(
  table: readonly string[],
  substrings: SubstringIndex,
  modifier: string | null,
  values: string[],
): Bitset {
  const bits = createBitset(table.length);
  for (const value of values) {
    if (modifier === "contains") substrings.mark(fold(value), "anywhere", bits);
    else if (modifier === "exact") substrings.mark(fold(value), "whole", bits, (i) => table[i] === value);
    else {
      const wanted = words(value);
      if (wanted.length === 0) return bits.fill(0xffffffff);
      substrings.markWords(wanted, bits);
    }
  }
  return bits;
}

function organizationMatches(index: FhirIndex, { name, modifier, values }: Criterion, bits: Bitset) {
  const developers = index.developers.length;
  const { columns: c, strings: s } = index.data;
  const first = index.organizationFirst;
  /** Sets every organization whose first entry's `column` value is in `values` (a bitset over its string table). */
  const byColumn = (column: Int32Array, values: Bitset) => {
    for (let g = 0; g < first.length; g++) {
      const v = column[first[g]!]!;
      if (v >= 0 && hasBit(values, v)) setBit(bits, developers + g);
    }
  };
  const strings = (table: SearchedTable) => stringBits(s[table], index.substringIndexNow(table), modifier, values);
  switch (name) {
    case "_id":
      for (const value of values) {
        const p = index.findOrganization(value);
        if (p !== -1) setBit(bits, p);
      }
      return;
    case "name": {
      const tests = values.map((value) => stringTest(modifier, value));
      for (let p = 0; p < developers; p++) if (tests.some((test) => test(index.developers[p]!.name))) setBit(bits, p);
      if (modifier === null) for (const value of values) organizationsByNameWords(index, words(value), bits);
      else byColumn(c.organizationName, strings("organizationNames"));
      return;
    }
    case "identifier": {
      let anyNpi = false;
      const npis: number[] = [];
      for (const value of values) {
        const [system, code] = token(value);
        if (system !== null && system !== NPI_SYSTEM) continue;
        if (code === "") anyNpi = true;
        else if (/^\d{1,15}$/.test(code)) npis.push(Number(code));
      }
      // From the organizations in NPI order: all of them, or each NPI's run (found by bisection).
      const order = index.organizationsByNpi;
      const sorted = index.npisInOrder;
      // An indexed loop: `for … of` over a typed array is many times slower in Bun (100 ms at 1M).
      if (anyNpi) for (let k = 0; k < order.length; k++) setBit(bits, developers + order[k]!);
      else
        for (const npi of npis)
          for (let k = lowerBound(sorted, npi); k < sorted.length && sorted[k] === npi; k++)
            setBit(bits, developers + order[k]!);
      return;
    }
    case "_lastUpdated": {
      const within = intervalsTest(values.map((value) => parseDateValue(name, value)));
      for (let p = 0; p < developers; p++) if (within(index.developerUpdatedMs[p]!)) setBit(bits, p);
      markWithin(index.organizationUpdatedMs, within, bits, developers);
      return;
    }
    case "address-state":
      return byColumn(c.state, strings("states"));
    case "address-city":
      return byColumn(c.city, strings("cities"));
    case "address-postalcode":
      return byColumn(c.zipCode, strings("zipCodes"));
    case "near":
      // Each entry within the distance marks its organization (all of its entries share its place).
      for (const value of values) {
        const { latitude, longitude, miles } = parseNearValue(value);
        const ordinals = index.lookups.near(latitude, longitude, miles, false).ordinals();
        for (let k = 0; k < ordinals.length; k++) setBit(bits, developers + index.organizationOfOrdinal[ordinals[k]!]!);
      }
      return;
    case "endpoint": {
      const wanted = new Uint8Array(index.endpointCount);
      let any = false;
      for (const value of values) {
        const id = referencedId(value, "Endpoint");
        const e = id === null ? -1 : index.findEndpoint(id);
        if (e === -1) continue;
        wanted[e] = 1;
        any = true;
      }
      if (!any) return;
      const offsets = index.organizationEndpointOffsets;
      for (let g = 0; g < first.length; g++)
        for (let k = offsets[g]!; k < offsets[g + 1]!; k++)
          if (wanted[index.organizationEndpoints[k]!] === 1) {
            setBit(bits, developers + g);
            break;
          }
      return;
    }
  }
}

/** Sets bit `offset + i` of every instant `times[i]` within the intervals (a loop of its own, for the engine to optimise). */
function markWithin(times: Float64Array, within: (t: number) => boolean, bits: Bitset, offset: number) {
  for (let i = 0; i < times.length; i++) if (within(times[i]!)) setBit(bits, offset + i);
}

/** A test of an instant against date intervals (any of them), merged and sorted first. */
function intervalsTest(intervals: DateInterval[]): (t: number) => boolean {
  const sorted = intervals.filter(({ lo, hi }) => lo < hi).sort((a, b) => a.lo - b.lo);
  const merged: DateInterval[] = [];
  for (const interval of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && interval.lo <= last.hi) last.hi = Math.max(last.hi, interval.hi);
    else merged.push({ ...interval });
  }
  // Typed arrays read by index: the test runs once per resource.
  const los = Float64Array.from(merged, ({ lo }) => lo);
  const his = Float64Array.from(merged, ({ hi }) => hi);
  const count = merged.length;
  return (t) => {
    for (let k = 0; k < count; k++) {
      if (t < los[k]!) return false;
      if (t < his[k]!) return true;
    }
    return false;
  };
}

/**
 * Organizations with every word as the start of some word of their name, from the directory's
 * inverted index of name words (the JSON API's `query`): the postings of each word's prefix
 * range, mapped from entries to their organizations, intersected word by word. A word's set is
 * kept for the version with the criteria's (`index.matches`), whatever number of values repeat it.
 */
function organizationsByNameWords(index: FhirIndex, wanted: string[], bits: Bitset) {
  const developers = index.developers.length;
  const size = index.organizationPositions;
  if (wanted.length === 0) {
    for (let p = developers; p < size; p++) setBit(bits, p);
    return;
  }
  const { strings, postings, listed } = index.data;
  const sets = wanted.map((word) =>
    index.matches.getOrCompute(`name word\n${word}`, () => {
      const set = createBitset(size);
      const [from, to] = prefixRange(strings.nameWords, word);
      for (let i = from; i < to; i++)
        for (let k = postings.offsets[i]!; k < postings.offsets[i + 1]!; k++) {
          const o = postings.ordinals[k]!;
          if (o < listed) setBit(set, developers + index.organizationOfOrdinal[o]!);
        }
      return set;
    }),
  );
  // Their intersection, added word by word of the bitset (no bitset of its own: less garbage).
  for (let w = 0; w < bits.length; w++) {
    let all = sets[0]![w]!;
    for (let k = 1; k < sets.length && all !== 0; k++) all &= sets[k]![w]!;
    bits[w]! |= all;
  }
}

function endpointMatches(index: FhirIndex, { name, modifier, values }: Criterion, bits: Bitset) {
  const count = index.endpointCount;
  const each = (test: (e: number) => boolean) => {
    for (let e = 0; e < count; e++) if (test(e)) setBit(bits, e);
  };
  switch (name) {
    case "_id":
      for (const value of values) {
        const e = index.findEndpoint(value);
        if (e !== -1) setBit(bits, e);
      }
      return;
    case "_lastUpdated": {
      const within = intervalsTest(values.map((value) => parseDateValue(name, value)));
      return markWithin(index.endpointUpdatedMs, within, bits, 0);
    }
    case "organization":
      for (const value of values) {
        const id = referencedId(value, "Organization");
        const p = id === null ? -1 : index.findOrganization(id);
        if (p === -1 || p >= index.developers.length) continue;
        for (let k = index.developerEndpointOffsets[p]!; k < index.developerEndpointOffsets[p + 1]!; k++)
          setBit(bits, index.developerEndpoints[k]!);
      }
      return;
    case "status": {
      const codes = new Set<string>();
      for (const value of values) {
        const [system, code] = token(value);
        if (system === null || system === ENDPOINT_STATUS_SYSTEM) codes.add(code);
      }
      if (codes.size === 0) return;
      return each((e) => codes.has(endpointStatus(index, e)));
    }
    case "connection-type":
      for (const value of values) {
        const [system, code] = token(value);
        if ((system === null || system === CONNECTION_SYSTEM) && code === CONNECTION_CODE) return each(() => true);
      }
      return;
    case "address": {
      const { columns: c, strings: s } = index.data;
      const found = createBitset(s.urls.length);
      const urls = index.substringIndexNow("urls");
      for (const value of values)
        if (modifier === "exact") urls.mark(fold(value), "whole", found, (i) => s.urls[i] === value);
        else urls.mark(fold(value), modifier === "contains" ? "anywhere" : "start", found);
      return each((e) => hasBit(found, c.url[index.endpointFirst[e]!]!));
    }
    case "fhir-version": {
      const codes = new Set(values.map((value) => token(value)[1]));
      return each((e) => codes.has(endpointVersionCode(index, e) ?? ""));
    }
    case "supports":
    case "ready":
    case "developer-kind": {
      // Every entry of a URL shares its probe, so an Endpoint's first entry holds its facets; a
      // comma between codes means any of them. An Endpoint's entries are of its one developer.
      const facet = index.data.facets[name === "developer-kind" ? "kind" : name];
      const facets = values.flatMap((value) => facet.get(token(value)[1]) ?? []);
      if (facets.length === 0) return;
      return each((e) => facets.some((facet) => hasBit(facet, index.endpointFirst[e]!)));
    }
  }
}
