import { prefixRange } from "../../directory/lower-bound";
import type { SubstringIndex } from "../../directory/substring-index";
import { fold, words } from "../../directory/text";
import { bitsetUnits, REQUEST_CAPS, WORK } from "../../model/request-caps";
import type { FhirIndex, SearchedTable } from "./fhir-index";
import { parseNearValue } from "./near-search";
import { tooCostly } from "./outcome";
import type { Criterion, ResourceType, SearchRequest } from "./search-params";

/** The string table of each `address-*` parameter of Organization. */
const ADDRESS_TABLES = new Map<string, SearchedTable>([
  ["address-state", "states"],
  ["address-city", "cities"],
  ["address-postalcode", "zipCodes"],
]);

/** The string table a criterion finds text in through its substring index; null when it needs none. */
export function searchedTable(type: ResourceType, { name, modifier }: Criterion): SearchedTable | null {
  if (type === "Endpoint") return name === "address" ? "urls" : null;
  if (name === "name") return modifier === null ? null : "organizationNames";
  return ADDRESS_TABLES.get(name) ?? null;
}

/** Units of a lookup by id or NPI (a bisection of a sorted table). */
const LOOKUP = 40;

/** Units of a pass over `count` resources. */
const pass = (count: number) => Math.ceil(count / WORK.passItemsPerUnit);

/** What a search would cost, in work units (src/model/request-caps.ts, WORK): in all, and per criterion. */
export interface SearchCost {
  total: number;
  criteria: { criterion: Criterion; units: number }[];
}

/**
 * The work units a search costs at most, from the sizes of what it would read (the substring
 * indexes its criteria need must be built: `searchedTable`), counted before any of it is done
 * and whether or not a criterion's matches are kept from an earlier search, so the same request
 * always costs the same in the same dataset version. Null when a substring index it needs is
 * not built yet.
 */
export function searchCost(index: FhirIndex, request: SearchRequest): SearchCost | null {
  const size = request.type === "Endpoint" ? index.endpointCount : index.organizationPositions;
  const bitset = bitsetUnits(size);
  const nameWords = new Set<string>();
  const criteria: SearchCost["criteria"] = [];
  for (const criterion of request.criteria) {
    const table = searchedTable(request.type, criterion);
    const substrings = table === null ? null : index.substringIndexIfBuilt(table);
    if (table !== null && substrings === null) return null;
    const units =
      bitset +
      (request.type === "Endpoint"
        ? endpointCost(index, criterion, substrings)
        : organizationCost(index, criterion, substrings, nameWords));
    criteria.push({ criterion, units });
  }
  let total = criteria.reduce((sum, { units }) => sum + units, 0);
  // The intersection, the page's selection, the page and what it includes.
  if (criteria.length > 1) total += criteria.length * bitset;
  total += bitset;
  if (!request.summaryCount) {
    total += request.count * WORK.resource;
    if (request.include || request.revinclude) total += REQUEST_CAPS.includedResources * WORK.resource;
  }
  return { total, criteria };
}

/** Units of finding strings of a table by the string rule or a modifier (as `stringBits` in search.ts). */
function stringCost(substrings: SubstringIndex, modifier: string | null, values: string[]): number {
  let units = 0;
  for (const value of values) {
    if (modifier === "contains") units += substrings.markCost(fold(value), "anywhere");
    else if (modifier === "exact") units += substrings.markCost(fold(value), "whole", 1);
    else {
      const wanted = words(value);
      units += wanted.length === 0 ? 0 : substrings.markWordsCost(wanted);
    }
  }
  return units;
}

function organizationCost(
  index: FhirIndex,
  { name, modifier, values }: Criterion,
  substrings: SubstringIndex | null,
  nameWords: Set<string>,
): number {
  const developers = index.developers.length;
  const organizations = index.organizationCount;
  switch (name) {
    case "name": {
      const tests = developers * values.length;
      if (modifier !== null) return tests + stringCost(substrings!, modifier, values) + pass(organizations);
      let units = tests;
      const bits = bitsetUnits(index.organizationPositions);
      for (const value of values) {
        const wanted = words(value);
        units += Math.max(1, wanted.length) * bits;
        for (const word of wanted) {
          if (nameWords.has(word)) continue;
          nameWords.add(word);
          units += namePostings(index, word) * WORK.namePosting;
        }
      }
      return units;
    }
    case "identifier":
      return values.some((value) => value.endsWith("|") || value === "")
        ? index.npisInOrder.length + values.length * LOOKUP
        : values.length * LOOKUP;
    case "_lastUpdated":
      return pass(developers + organizations);
    case "address-state":
    case "address-city":
    case "address-postalcode":
      return stringCost(substrings!, modifier, values) + pass(organizations);
    case "endpoint":
      return values.length * LOOKUP + pass(index.organizationEndpoints.length);
    case "near":
      return values.reduce((units, value) => {
        const { latitude, longitude, miles } = parseNearValue(value);
        const { positions, entries } = index.lookups.nearSize(latitude, miles, longitude);
        return units + positions * WORK.check + entries * 5;
      }, 0);
    default:
      return values.length * LOOKUP;
  }
}

/** Postings of the name words starting with `word` (the entries they name), read from the name index. */
function namePostings(index: FhirIndex, word: string): number {
  const { strings, postings } = index.data;
  const [from, to] = prefixRange(strings.nameWords, word);
  return postings.offsets[to]! - postings.offsets[from]!;
}

function endpointCost(index: FhirIndex, { name, modifier, values }: Criterion, substrings: SubstringIndex | null) {
  const endpoints = pass(index.endpointCount);
  switch (name) {
    case "_id":
      return values.length * LOOKUP;
    case "address": {
      let units = endpoints;
      for (const value of values)
        units +=
          modifier === "exact"
            ? substrings!.markCost(fold(value), "whole", 1)
            : substrings!.markCost(fold(value), modifier === "contains" ? "anywhere" : "start");
      return units;
    }
    case "supports":
    case "ready":
      return endpoints * values.length;
    default:
      return values.length * LOOKUP + endpoints;
  }
}

/** The words a refusal uses for a parameter: as the client wrote it. */
const written = ({ name, modifier }: Criterion) => (modifier === null ? name : `${name}:${modifier}`);

/**
 * Refuses a search over the work budget with 400 `too-costly`, naming its costliest parameter
 * and the share of the budget it asks for; else returns the cost.
 */
export function checkSearchCost(cost: SearchCost, type: ResourceType): SearchCost {
  if (cost.total <= WORK.budget) return cost;
  const costliest = cost.criteria.reduce<SearchCost["criteria"][number] | null>(
    (a, b) => (a === null || b.units > a.units ? b : a),
    null,
  );
  const times = (cost.total / WORK.budget).toFixed(1);
  throw tooCostly(
    costliest === null
      ? `this ${type} search would cost ${times} times the work one request may do; ask for a smaller _count`
      : `this ${type} search would cost ${times} times the work one request may do; ${written(costliest.criterion)} alone asks for ${Math.round((costliest.units / WORK.budget) * 100)} % of it: narrow it (longer values, fewer alternatives or repetitions) or search with fewer parameters`,
  );
}
