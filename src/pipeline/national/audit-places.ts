import type { Database } from "bun:sqlite";
import { type PlaceRow, placeRows } from "../../db/audit-rows";
import { cityKey } from "../../directory/lookups";
import { zipPlaces } from "../../model/zip-places";
import { placeOfName } from "../ingest/enrich/name-place";

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
  /** Entries without a state whose organization name states a place (enrich/name-place.ts): what it would add. */
  nameStates: { state: number; city: number; zip: number };
}

/**
 * The share of listed entries each lookup filter (`npi`, `city`, `near`, `state`) can find, per
 * kind of developer, and what the places organization names state would add (docs/api.md,
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
  for (const row of placeRows(sqlite)) byKind.set(row.kind, [...(byKind.get(row.kind) ?? []), row]);
  return [...byKind]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([kind, rows]) => {
      const named = rows.filter((r) => r.state === null).map((r) => placeOfName(r.name));
      return {
        kind,
        listed: rows.length,
        npi: rows.filter((r) => r.npi !== null).length,
        city: rows.filter((r) => r.city !== null).length,
        zip: rows.filter((r) => r.zipCode !== null).length,
        zipInTable: rows.filter((r) => zips.has(r.zipCode?.slice(0, 5) ?? "")).length,
        near: rows.filter(positioned).length,
        state: rows.filter((r) => r.state !== null).length,
        nameStates: {
          state: named.filter((p) => p !== null).length,
          city: named.filter((p) => p?.city != null).length,
          zip: named.filter((p) => p?.zipCode != null).length,
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
      `    without a state, the name states one for ${s.nameStates.state} (a city for ${s.nameStates.city}, a ZIP for ${s.nameStates.zip}): not read at ingest, as it would change those Organizations' ids`,
    ]),
  ];
}
