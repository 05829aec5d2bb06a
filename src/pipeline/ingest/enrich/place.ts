import { US_STATES } from "../../../model/us-states";
import { zipPlaces } from "../../../model/zip-places";

export interface Place {
  /** Null when only the ZIP's first three digits are known (they settle a state, not a city). */
  city: string | null;
  state: string;
}

let prefixes: Map<string, string> | null = null;

/** The state of each 3-digit prefix whose every known ZIP lies in that one state (computed once). */
function prefixStates(): Map<string, string> {
  if (prefixes) return prefixes;
  const statesOfPrefix = new Map<string, Set<string>>();
  for (const [zip, { state }] of zipPlaces()) {
    const prefix = zip.slice(0, 3);
    if (!statesOfPrefix.has(prefix)) statesOfPrefix.set(prefix, new Set());
    statesOfPrefix.get(prefix)!.add(state);
  }
  prefixes = new Map();
  for (const [prefix, states] of statesOfPrefix) if (states.size === 1) prefixes.set(prefix, [...states][0]!);
  return prefixes;
}

/**
 * City and USPS state of a US ZIP code (the first five digits of a ZIP+4), from the table
 * generated from the `zipcodes` package (src/model/zip-places.ts); no network. A ZIP the table does not know gets the state
 * its first three digits settle (every ZIP the table knows with that prefix lies in one state:
 * `93697` is in California like all 65 known 936xx codes), without a city; a prefix shared by two
 * states (063: Connecticut and one New York ZIP) or unknown settles nothing, and gives null.
 */
export function placeOfZip(zip: string | null): Place | null {
  if (zip === null || !/^\d{5}/.test(zip)) return null;
  const known = zipPlaces().get(zip.slice(0, 5));
  if (known) return { state: known.state, city: known.city };
  const state = prefixStates().get(zip.slice(0, 3));
  return state === undefined ? null : { state, city: null };
}

/**
 * The state of a name published as `"XX - Name"` (athenahealth prefixes every practice with
 * its state): XX when it is a USPS code, else null.
 */
export function stateOfNamePrefix(name: string | null): string | null {
  const match = name === null ? null : /^([A-Z]{2}) - \S/.exec(name);
  return match && match[1]! in US_STATES ? match[1]! : null;
}
