import type { Database } from "bun:sqlite";
import { type PlaceRow, placeRows } from "../../db/audit-rows";
import { cityKey } from "../../directory/lookups";
import { zipPlaces } from "../../model/zip-places";

/** Listed entries of one kind of developer, and how many of them each lookup filter can find. */
export interface PlaceShares {
  kind: string;
  listed: number;
  /** `npi=`: entries with an NPI. */
  npi: number;
  /** `city=`: entries with a city. */
  city: number;
  /** Entries with a ZIP code, and of those, the ZIPs the committed table knows. */
  zip: number;
  zipInTable: number;
  /** `near=`: entries with a position (a ZIP the table knows, else a city it knows, as src/directory/lookups.ts places them). */
  near: number;
  /** `state=`: entries with a state. */
  state: number;
  /** Of these, the states, cities and ZIPs read from organization names (state evidence `name-place`, enrich/name-place.ts). */
  fromNames: { state: number; city: number; zip: number; near: number };
}

/**
 * The share of listed entries each lookup filter (`npi`, `city`, `near`, `state`) can find, per
 * kind of developer, and how many of those figures organization names gave (docs/api.md,
 * "Finding one provider").
 */
export function placeShares(sqlite: Database): PlaceShares[] {
  const zips = zipPlaces();
  const statesOf = new Map<string, Set<string>>();
  for (const place of zips.values()) {
    const city = cityKey(place.city);
    if (!statesOf.has(city)) statesOf.set(city, new Set());
    statesOf.get(city)!.add(place.state);
  }
  const positioned = (row: PlaceRow) => {
    const zip = /^\d{5}/.exec(row.zipCode ?? "")?.[0];
    if (zip !== undefined && zips.has(zip)) return true;
    const states = row.city === null ? undefined : statesOf.get(cityKey(row.city));
    if (states === undefined) return false;
    return row.state !== null ? states.has(row.state) : states.size === 1;
  };
  const byKind = new Map<string, PlaceRow[]>();
  for (const row of placeRows(sqlite)) {
    const rows = byKind.get(row.kind);
    if (rows) rows.push(row);
    else byKind.set(row.kind, [row]);
  }
  return [...byKind]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([kind, rows]) => {
      const named = rows.filter((r) => r.stateEvidence === "name-place");
      return {
        kind,
        listed: rows.length,
        npi: rows.filter((r) => r.npi !== null).length,
        city: rows.filter((r) => r.city !== null).length,
        zip: rows.filter((r) => r.zipCode !== null).length,
        zipInTable: rows.filter((r) => zips.has(r.zipCode?.slice(0, 5) ?? "")).length,
        near: rows.filter(positioned).length,
        state: rows.filter((r) => r.state !== null).length,
        fromNames: {
          state: named.length,
          city: named.filter((r) => r.city !== null).length,
          zip: named.filter((r) => r.zipCode !== null).length,
          near: named.filter(positioned).length,
        },
      };
    });
}

const share = (n: number, of: number) => `${n} (${of === 0 ? "0.0" : ((100 * n) / of).toFixed(1)} %)`;

/** The shares as `data:audit` prints them. */
export function formatPlaceShares(shares: PlaceShares[]): string[] {
  return [
    "listed entries each lookup filter can find (npi, city, near: a ZIP or city the ZIP table knows, state):",
    ...shares.flatMap((s) => [
      `  ${s.kind}: ${s.listed} listed; npi ${share(s.npi, s.listed)}, city ${share(s.city, s.listed)}, ZIP ${share(s.zip, s.listed)} (${s.zipInTable} in the table), near ${share(s.near, s.listed)}, state ${share(s.state, s.listed)}`,
      `    read from organization names (name-place): state ${s.fromNames.state}, city ${s.fromNames.city}, ZIP ${s.fromNames.zip}, near ${s.fromNames.near}`,
    ]),
  ];
}
