import type { FhirVersion } from "../../../model/types";
import type { NormalisedEntry } from "../types";
import { placeOfZip, stateOfNamePrefix } from "./place";
import { fhirVersionOfUrl } from "./version-of-url";

export { repairPublishedUrl } from "./url-repair";

/**
 * Fills in what a list leaves out, from what it does say (docs/api.md, "Enrichment at ingest"):
 * state (and city, when the list gives none) from the ZIP code; else state from a `"XX - Name"`
 * prefix; fhirVersion, while no hint gave one, from the URL's version pattern, else from the
 * developer's certified version where it may stand (`developerVersion`, decided by the caller).
 * Published values always win; each filled value records how it is known.
 */
export function enrichEntry(entry: NormalisedEntry, developerVersion: FhirVersion | null): NormalisedEntry {
  let { state, city, listFhirVersion, stateEvidence, versionEvidence } = entry;
  if (state === null) {
    const place = placeOfZip(entry.zipCode);
    if (place) {
      state = place.state;
      city ??= place.city;
      stateEvidence = "zip";
    } else {
      state = stateOfNamePrefix(entry.organizationName);
      stateEvidence = state === null ? null : "name";
    }
  }
  if (listFhirVersion === "UNKNOWN") {
    const fromUrl = fhirVersionOfUrl(entry.url);
    listFhirVersion = fromUrl ?? developerVersion ?? "UNKNOWN";
    versionEvidence = fromUrl !== null ? "url" : developerVersion !== null ? "developer" : null;
  }
  return { ...entry, state, city, listFhirVersion, stateEvidence, versionEvidence };
}
