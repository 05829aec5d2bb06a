import { readFileSync } from "node:fs";
import { join } from "node:path";
import { US_STATES } from "../../../model/us-states";

export interface Place {
  city: string;
  state: string;
}

/** zip-places.tsv.gz (generated from the `zipcodes` package by tools/data/zip-table.ts). */
const ZIP_TABLE = join(import.meta.dir, "zip-places.tsv.gz");

let table: Map<string, Place> | null = null;

/** The ZIP table, read on first use (about 41,000 ZIP codes). */
function zipTable(): Map<string, Place> {
  if (table) return table;
  let text: string;
  try {
    text = new TextDecoder().decode(Bun.gunzipSync(readFileSync(ZIP_TABLE)));
  } catch (error) {
    throw new Error(`${ZIP_TABLE}: cannot read the ZIP table (${(error as Error).message})`);
  }
  const places = new Map<string, Place>();
  for (const line of text.split("\n")) {
    const [zip, state, city] = line.split("\t");
    if (zip && state && city) places.set(zip, { state, city });
  }
  table = places;
  return places;
}

/**
 * City and USPS state of a US ZIP code (the first five digits of a ZIP+4), from the table
 * generated from the `zipcodes` package; no network. A ZIP the table does not know gives null.
 */
export function placeOfZip(zip: string | null): Place | null {
  if (zip === null || !/^\d{5}/.test(zip)) return null;
  return zipTable().get(zip.slice(0, 5)) ?? null;
}

/**
 * The state of a name published as `"XX - Name"` (athenahealth prefixes every practice with
 * its state): XX when it is a USPS code, else null.
 */
export function stateOfNamePrefix(name: string | null): string | null {
  const match = name === null ? null : /^([A-Z]{2}) - \S/.exec(name);
  return match && match[1]! in US_STATES ? match[1]! : null;
}
