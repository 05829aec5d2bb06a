import {
  type Bitset,
  countBits,
  createBitset,
  hasBit,
  intersectInto,
  selectBits,
  setBit,
} from "../../directory/bitset";
import { lowerBound } from "../../directory/lower-bound";
import { foldText, words } from "../../directory/text";
import { NPI_SYSTEM } from "../export/formats/fhir";
import { parseDateValue } from "./date-search";
import type { FhirIndex } from "./fhir-index";
import { FhirError } from "./outcome";
import { CONNECTION_CODE, CONNECTION_SYSTEM, endpointStatus, endpointVersionCode } from "./resources";
import type { Criterion, ResourceType, SearchRequest } from "./search-params";

const ENDPOINT_STATUS_SYSTEM = "http://hl7.org/fhir/endpoint-status";
/** At most this many resources are included in one page (`_revinclude` of a developer can be its whole list). */
const MAX_INCLUDED = 1_000;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range starts at NUL
const ASCII = /^[\x00-\x7f]*$/;
/** Lowercased, accents removed (plain ASCII only lowercased: the same result, far faster). */
const fold = (text: string) => (ASCII.test(text) ? text.toLowerCase() : foldText(text));

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
    const scratch = createBitset(size);
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
    for (const p of matches) if (p < developers) for (const e of endpointsOfDeveloper(index, p)) add(e);
  return included;
}

function endpointsOfDeveloper(index: FhirIndex, p: number): number[] {
  const out: number[] = [];
  for (let e = 0; e < index.endpointCount; e++) if (index.developerOfEndpoint(e) === p) out.push(e);
  return out;
}

/** The bitset of one criterion: the union of its alternatives, cached per dataset version. */
function criterionBits(index: FhirIndex, type: ResourceType, criterion: Criterion): Bitset {
  const key = `${type}\n${criterion.name}\n${criterion.modifier}\n${criterion.values.join("\n")}`;
  return index.matches.getOrCompute(key, () => {
    const bits = createBitset(universe(index, type));
    const match = type === "Endpoint" ? endpointMatcher : organizationMatcher;
    for (const value of criterion.values) match(index, criterion.name, criterion.modifier, value, bits);
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

/** The string rule (src/fhir/search-params.ts): a test of one field value, made once per search value. */
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

/** Per value of a string table: 1 when it passes `test`. */
const tableFlags = (table: readonly string[], test: (field: string) => boolean) =>
  Uint8Array.from(table, (field) => (test(field) ? 1 : 0));

function organizationMatcher(index: FhirIndex, name: string, modifier: string | null, value: string, bits: Bitset) {
  const developers = index.developers.length;
  const { columns: c, strings: s } = index.data;
  const first = index.organizationFirst;
  /** Sets every organization whose first entry's `column` value is flagged. */
  const byColumn = (column: Int32Array, flags: Uint8Array) => {
    for (let g = 0; g < first.length; g++) {
      const v = column[first[g]!]!;
      if (v >= 0 && flags[v] === 1) setBit(bits, developers + g);
    }
  };
  switch (name) {
    case "_id": {
      const p = index.findOrganization(value);
      if (p !== -1) setBit(bits, p);
      return;
    }
    case "name": {
      const test = stringTest(modifier, value);
      for (let p = 0; p < developers; p++) if (test(index.developers[p]!.name)) setBit(bits, p);
      if (modifier === null) organizationsByNameWords(index, words(value), bits);
      else byColumn(c.organizationName, tableFlags(s.organizationNames, test));
      return;
    }
    case "identifier": {
      const [system, code] = token(value);
      if (system !== null && system !== NPI_SYSTEM) return;
      if (code !== "" && !/^\d{1,15}$/.test(code)) return;
      const npi = Number(code);
      for (let g = 0; g < first.length; g++) {
        const have = c.npi[first[g]!]!;
        if (have !== 0 && (code === "" || have === npi)) setBit(bits, developers + g);
      }
      return;
    }
    case "_lastUpdated": {
      const { lo, hi } = parseDateValue(name, value);
      for (let p = 0; p < developers; p++) {
        const t = index.developerUpdatedMs[p]!;
        if (t >= lo && t < hi) setBit(bits, p);
      }
      const entries = index.lastUpdatedMs;
      const updated = index.organizationUpdated;
      for (let g = 0; g < first.length; g++) {
        const t = entries[updated[g]!]!;
        if (t >= lo && t < hi) setBit(bits, developers + g);
      }
      return;
    }
    case "address-state":
      return byColumn(c.state, tableFlags(s.states, stringTest(modifier, value)));
    case "address-city":
      return byColumn(c.city, tableFlags(s.cities, stringTest(modifier, value)));
    case "address-postalcode":
      return byColumn(c.zipCode, tableFlags(s.zipCodes, stringTest(modifier, value)));
    case "endpoint": {
      const id = referencedId(value, "Endpoint");
      const e = id === null ? -1 : index.findEndpoint(id);
      if (e === -1) return;
      const offsets = index.organizationEndpointOffsets;
      for (let g = 0; g < first.length; g++)
        for (let k = offsets[g]!; k < offsets[g + 1]!; k++)
          if (index.organizationEndpoints[k] === e) setBit(bits, developers + g);
      return;
    }
  }
}

/**
 * Organizations with every word as the start of some word of their name, from the directory's
 * inverted index of name words (the JSON API's `query`): the postings of each word's prefix
 * range, mapped from entries to their organizations, intersected word by word.
 */
function organizationsByNameWords(index: FhirIndex, wanted: string[], bits: Bitset) {
  const developers = index.developers.length;
  const size = index.organizationPositions;
  if (wanted.length === 0) {
    for (let p = developers; p < size; p++) setBit(bits, p);
    return;
  }
  const { strings, postings, listed } = index.data;
  const nameWords = strings.nameWords;
  const perWord = wanted.map((word) => {
    const set = createBitset(size);
    for (let i = lowerBound(nameWords, word); i < nameWords.length && nameWords[i]!.startsWith(word); i++)
      for (let k = postings.offsets[i]!; k < postings.offsets[i + 1]!; k++) {
        const o = postings.ordinals[k]!;
        if (o < listed) setBit(set, developers + index.organizationOfOrdinal[o]!);
      }
    return set;
  });
  const both = createBitset(size);
  intersectInto(both, perWord);
  for (let w = 0; w < bits.length; w++) bits[w]! |= both[w]!;
}

function endpointMatcher(index: FhirIndex, name: string, modifier: string | null, value: string, bits: Bitset) {
  const count = index.endpointCount;
  const each = (test: (e: number) => boolean) => {
    for (let e = 0; e < count; e++) if (test(e)) setBit(bits, e);
  };
  switch (name) {
    case "_id": {
      const e = index.findEndpoint(value);
      if (e !== -1) setBit(bits, e);
      return;
    }
    case "_lastUpdated": {
      const { lo, hi } = parseDateValue(name, value);
      const entries = index.lastUpdatedMs;
      const updated = index.endpointUpdated;
      for (let e = 0; e < count; e++) {
        const t = entries[updated[e]!]!;
        if (t >= lo && t < hi) setBit(bits, e);
      }
      return;
    }
    case "organization": {
      const id = referencedId(value, "Organization");
      const p = id === null ? -1 : index.findOrganization(id);
      if (p === -1 || p >= index.developers.length) return;
      return each((e) => index.developerOfEndpoint(e) === p);
    }
    case "status": {
      const [system, code] = token(value);
      if (system !== null && system !== ENDPOINT_STATUS_SYSTEM) return;
      return each((e) => endpointStatus(index, e) === code);
    }
    case "connection-type": {
      const [system, code] = token(value);
      if ((system !== null && system !== CONNECTION_SYSTEM) || code !== CONNECTION_CODE) return;
      return each(() => true);
    }
    case "address": {
      const { columns: c, strings: s } = index.data;
      const wanted = modifier === "exact" ? value : value.toLowerCase();
      const test =
        modifier === "exact"
          ? (url: string) => url === wanted
          : modifier === "contains"
            ? (url: string) => url.toLowerCase().includes(wanted)
            : (url: string) => url.toLowerCase().startsWith(wanted);
      return each((e) => test(s.urls[c.url[index.endpointFirst[e]!]!]!));
    }
    case "fhir-version": {
      const [, code] = token(value);
      return each((e) => endpointVersionCode(index, e) === code);
    }
    case "supports":
    case "ready": {
      // Every entry of a URL shares its probe, so an Endpoint's first entry holds its facets.
      const [, code] = token(value);
      const facet = index.data.facets[name].get(code);
      if (facet === undefined) return;
      return each((e) => hasBit(facet, index.endpointFirst[e]!));
    }
  }
}
