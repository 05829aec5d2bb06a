import type { ParseResult, RawEntry } from "../types";
import { isObject, type Json } from "./fhir-organization";

/** Field names seen in flat endpoint lists: Lantern's format first, then vendors' own (MEDHOST…). */
const FIELDS = {
  url: ["URL", "url", "serviceBaseUrl", "serviceBaseURL", "baseUrl", "fhirUrl", "FhirURL", "address", "endpoint"],
  organizationName: ["OrganizationName", "organizationName", "facilityName", "organization", "name"],
  npi: ["NPIID", "npi", "NPI"],
  city: ["OrganizationCity", "city"],
  state: ["OrganizationState", "state"],
  zipCode: ["OrganizationZipCode", "zipCode", "zip", "postalCode"],
  fhirVersion: ["FHIRVersion", "fhirVersion"],
} as const;

function pick(item: Json, names: readonly string[]): string | null {
  for (const name of names) {
    const value = item[name];
    if (typeof value === "string") return value;
    if (typeof value === "number") return String(value);
  }
  return null;
}

/** The items of `{"Endpoints": [...]}` or of a top-level array, or null when it is neither. */
export function flatItems(json: unknown): unknown[] | null {
  if (Array.isArray(json)) return json;
  if (isObject(json) && Array.isArray(json.Endpoints)) return json.Endpoints;
  return null;
}

/** Lantern's `{"Endpoints":[{URL, OrganizationName, NPIID, OrganizationZipCode}]}` and plain arrays like it. */
export function parseFlatJson(items: unknown[]): ParseResult {
  const entries: RawEntry[] = [];
  let skipped = 0;
  for (const item of items) {
    const url = isObject(item) ? pick(item, FIELDS.url) : null;
    if (!isObject(item) || !url || url.trim() === "") {
      skipped++;
      continue;
    }
    entries.push({
      url: url.trim(),
      organizationName: pick(item, FIELDS.organizationName),
      npi: pick(item, FIELDS.npi),
      city: pick(item, FIELDS.city),
      state: pick(item, FIELDS.state),
      zipCode: pick(item, FIELDS.zipCode),
      fhirVersion: pick(item, FIELDS.fhirVersion),
    });
  }
  return { format: "lantern-json", entries, skipped };
}
