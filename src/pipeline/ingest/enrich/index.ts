import type { FhirVersion } from "../../../model/types";
import type { NormalisedEntry } from "../types";
import { placeOfName } from "./name-place";
import { placeOfZip, stateOfNamePrefix } from "./place";
import { fhirVersionOfUrl } from "./version-of-url";

export { repairPublishedUrl } from "./url-repair";

/**
 * Fills in what a list leaves out, from what it does say (docs/api.md, "Enrichment at ingest"):
 * state (and city, when the list gives none) from the ZIP code; else state from a `"XX - Name"`
 * prefix; else, when the list gives no place at all, the place the organization name states
 * (name-place.ts: state, and city and ZIP when it writes them); fhirVersion, while no hint gave one, from the URL's version pattern, else from the
 * developer's certified version where it may stand (`developerVersion`, decided by the caller).
 * Published values always win; each filled value records how it is known.
 */
export function enrichEntry(entry: NormalisedEntry, developerVersion: FhirVersion | null): NormalisedEntry {
  let { state, city, zipCode, listFhirVersion, stateEvidence, versionEvidence } = entry;
  if (state === null) {
    const place = placeOfZip(zipCode);
    const prefix = place === null ? stateOfNamePrefix(entry.organizationName) : null;
    // Only where the list gives no place: an Organization's id then hashes the name's as null.
    const named =
      place === null && prefix === null && city === null && zipCode === null
        ? placeOfName(entry.organizationName)
        : null;
    if (place) {
      state = place.state;
      city ??= place.city;
      stateEvidence = "zip";
    } else if (prefix !== null) {
      state = prefix;
      stateEvidence = "name";
    } else if (named !== null) {
      ({ state, city, zipCode } = named);
      stateEvidence = "name-place";
    }
  }
  if (listFhirVersion === "UNKNOWN") {
    const fromUrl = fhirVersionOfUrl(entry.url);
    listFhirVersion = fromUrl ?? developerVersion ?? "UNKNOWN";
    versionEvidence = fromUrl !== null ? "url" : developerVersion !== null ? "developer" : null;
  }
  return { ...entry, state, city, zipCode, listFhirVersion, stateEvidence, versionEvidence };
}
