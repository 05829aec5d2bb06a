import { readFileSync } from "node:fs";
import { join } from "node:path";
import { US_STATES } from "../../../model/us-states";

export interface Place {
  /** Null when only the ZIP's first three digits are known (they settle a state, not a city). */
  city: string | null;
  state: string;
}

/** zip-places.tsv.gz (generated from the `zipcodes` package by tools/data/zip-table.ts). */
const ZIP_TABLE = join(import.meta.dir, "zip-places.tsv.gz");

interface ZipTable {
  /** City and state of each ZIP code the table knows. */
  zips: Map<string, Place>;
  /** The state of each 3-digit prefix whose every known ZIP lies in that one state. */
  prefixes: Map<string, string>;
}

let table: ZipTable | null = null;

/** The ZIP table, read on first use (about 41,000 ZIP codes), and the prefixes it settles. */
function zipTable(): ZipTable {
  if (table) return table;
  let text: string;
  try {
    text = new TextDecoder().decode(Bun.gunzipSync(readFileSync(ZIP_TABLE)));
  } catch (error) {
    throw new Error(`${ZIP_TABLE}: cannot read the ZIP table (${(error as Error).message})`);
  }
  const zips = new Map<string, Place>();
  const statesOfPrefix = new Map<string, Set<string>>();
  for (const line of text.split("\n")) {
    const [zip, state, city] = line.split("\t");
    if (!zip || !state || !city) continue;
    zips.set(zip, { state, city });
    const prefix = zip.slice(0, 3);
    if (!statesOfPrefix.has(prefix)) statesOfPrefix.set(prefix, new Set());
    statesOfPrefix.get(prefix)!.add(state);
  }
  const prefixes = new Map<string, string>();
  for (const [prefix, states] of statesOfPrefix) if (states.size === 1) prefixes.set(prefix, [...states][0]!);
  table = { zips, prefixes };
  return table;
}

/**
 * City and USPS state of a US ZIP code (the first five digits of a ZIP+4), from the table
 * generated from the `zipcodes` package; no network. A ZIP the table does not know gets the state
 * its first three digits settle (every ZIP the table knows with that prefix lies in one state:
 * `93697` is in California like all 65 known 936xx codes), without a city; a prefix shared by two
 * states (063: Connecticut and one New York ZIP) or unknown settles nothing, and gives null.
 */
export function placeOfZip(zip: string | null): Place | null {
  if (zip === null || !/^\d{5}/.test(zip)) return null;
  const { zips, prefixes } = zipTable();
  const known = zips.get(zip.slice(0, 5));
  if (known) return known;
  const state = prefixes.get(zip.slice(0, 3));
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
