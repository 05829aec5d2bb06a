import { readFileSync } from "node:fs";
import { join } from "node:path";

/** One US ZIP code of the table: its USPS state, city and position (degrees). */
export interface ZipPlace {
  state: string;
  city: string;
  latitude: number;
  longitude: number;
}

/** zip-places.tsv.gz (generated from the `zipcodes` package by tools/data/zip-table.ts). */
const ZIP_TABLE = join(import.meta.dir, "zip-places.tsv.gz");

let table: Map<string, ZipPlace> | null = null;

/**
 * Every ZIP code the committed table knows (about 41,900), read on first use: ingest reads their
 * places, the list's `near` filter their positions. No network.
 */
export function zipPlaces(): Map<string, ZipPlace> {
  if (table) return table;
  let text: string;
  try {
    text = new TextDecoder().decode(Bun.gunzipSync(readFileSync(ZIP_TABLE)));
  } catch (error) {
    throw new Error(`${ZIP_TABLE}: cannot read the ZIP table (${(error as Error).message})`);
  }
  const zips = new Map<string, ZipPlace>();
  for (const line of text.split("\n")) {
    const [zip, state, city, latitude, longitude] = line.split("\t");
    if (!zip || !state || !city) continue;
    zips.set(zip, { state, city, latitude: Number(latitude), longitude: Number(longitude) });
  }
  table = zips;
  return table;
}

/** The Earth's mean radius in miles (IUGG), which the haversine distances use. */
export const EARTH_RADIUS_MILES = 3958.7613;
const RADIANS = Math.PI / 180;

/** Great-circle distance in miles between two positions in degrees (haversine, mean Earth radius). */
export function milesBetween(latitudeA: number, longitudeA: number, latitudeB: number, longitudeB: number): number {
  const dLat = (latitudeB - latitudeA) * RADIANS;
  const dLon = (longitudeB - longitudeA) * RADIANS;
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(latitudeA * RADIANS) * Math.cos(latitudeB * RADIANS) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(h)));
}
