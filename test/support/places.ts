/**
 * The tests' own reading of places, written from the rules in docs/api.md ("Finding one
 * provider") rather than from the code: the NPI check digit, a URL's host, a folded city, and an
 * entry's point from the `zipcodes` package (its ZIP's, else the mean of its city's ZIPs) with
 * the haversine distance.
 */
import { codes } from "zipcodes";

/** What places an entry: its ZIP, city and state as stored. */
export interface Place {
  zip: string | null;
  city: string | null;
  state: string | null;
}

/** The test's own NPI check: Luhn over "80840" and the first nine digits. */
export function npiValid(npi: string): boolean {
  const digits = `80840${npi.slice(0, 9)}`;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return (sum + Number(npi[9])) % 10 === 0;
}

export const hostOf = (url: string) => new URL(url).hostname;
export const foldCity = (city: string) =>
  city
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(" ");

/** The most frequent value of `key` among the rows (ties: the smallest). */
export function mostCommon<R>(rows: R[], key: (row: R) => string | null): string {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const value = key(row);
    if (value !== null) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return [...counts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1))[0]![0];
}

/** Haversine miles (mean Earth radius 3958.7613 mi). */
export function haversine(a: [number, number], b: [number, number]): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b[0] - a[0]) * rad) / 2) ** 2 +
    Math.cos(a[0] * rad) * Math.cos(b[0] * rad) * Math.sin(((b[1] - a[1]) * rad) / 2) ** 2;
  return 2 * 3958.7613 * Math.asin(Math.sqrt(h));
}

/** A row's point: its ZIP's in the zipcodes package, else the mean of its city's ZIPs (in its state, or its one state). */
const zipsOfCity = new Map<string, NonNullable<(typeof codes)[string]>[]>();
for (const c of Object.values(codes))
  if (c !== undefined && c.country === "US" && /^\d{5}$/.test(c.zip)) {
    const city = foldCity(c.city);
    zipsOfCity.set(city, [...(zipsOfCity.get(city) ?? []), c]);
  }

export function pointOf(row: Place): [number, number] | null {
  const zip = row.zip?.match(/^\d{5}/)?.[0];
  const known = zip === undefined ? undefined : codes[zip];
  if (known && known.country === "US") return [known.latitude, known.longitude];
  if (row.city === null) return null;
  const matches = zipsOfCity.get(foldCity(row.city)) ?? [];
  const states = new Set(matches.map((c) => c!.state));
  const state = row.state ?? (states.size === 1 ? [...states][0] : null);
  const inState = matches.filter((c) => c!.state === state);
  if (inState.length === 0) return null;
  const mean = (values: number[]) => Math.round((values.reduce((s, v) => s + v, 0) / values.length) * 1e4) / 1e4;
  return [mean(inState.map((c) => c!.latitude)), mean(inState.map((c) => c!.longitude))];
}
