import type { FhirVersion } from "../../../model/types";
import type { NormalisedEntry } from "../types";
import { fhirVersionOfUrl } from "./fhir-version";
import { placeOfZip, stateOfNamePrefix } from "./place";

export { repairPublishedUrl } from "./url-repair";

/**
 * Fills in what a list leaves out, from what it does say (docs/api.md, "Enrichment at ingest"):
 * state (and city, when the list gives none) from the ZIP code; else state from a `"XX - Name"`
 * prefix; fhirVersion, while no hint gave one, from the URL's version pattern, else from the
 * developer's one version as the registry records it. Published values always win.
 */
export function enrichEntry(entry: NormalisedEntry, defaultFhirVersion: FhirVersion | null): NormalisedEntry {
  let { state, city, listFhirVersion } = entry;
  if (state === null) {
    const place = placeOfZip(entry.zipCode);
    if (place) {
      state = place.state;
      city ??= place.city;
    } else {
      state = stateOfNamePrefix(entry.organizationName);
    }
  }
  if (listFhirVersion === "UNKNOWN") listFhirVersion = fhirVersionOfUrl(entry.url) ?? defaultFhirVersion ?? "UNKNOWN";
  return state === entry.state && city === entry.city && listFhirVersion === entry.listFhirVersion
    ? entry
    : { ...entry, state, city, listFhirVersion };
}
