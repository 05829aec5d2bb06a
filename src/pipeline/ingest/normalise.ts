import { canonicalUrl, entryId } from "../../model/identity";
import type { FhirVersion } from "../../model/types";
import { enrichEntry, repairPublishedUrl } from "./enrich";
import { fhirVersionFromString, fhirVersionFromUrl } from "./fhir-version";
import { tenantIdFromUrl } from "./tenant-rules";
import type { NormalisedEntry, RawEntry } from "./types";
import { validateEndpointUrl } from "./url-validation";
import { stateCode } from "./us-states";

/** Control characters other than line breaks and tabs, and bidi embedding/override/isolate controls. */
const CONTROL = /(?![\t\n\v\f\r\u0085])[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/** Control characters (NUL, ESC, BEL…) removed, trimmed, inner whitespace collapsed; empty → null. */
function cleanText(raw: string | null | undefined): string | null {
  if (typeof raw !== "string") return null;
  const text = raw
    .replace(CONTROL, "")
    .replace(/[\s\u0085]+/g, " ")
    .trim();
  return text === "" ? null : text;
}

/** 10 digits, or null. */
export function normaliseNpi(raw: string | null | undefined): string | null {
  const text = cleanText(raw);
  return text !== null && /^\d{10}$/.test(text) ? text : null;
}

/**
 * 5 digits or ZIP+4 (`12345-6789`). Nine bare digits become ZIP+4; four digits get back the
 * leading zero spreadsheets drop (New England, New Jersey); a broken +4 part keeps the 5-digit
 * ZIP. Anything else → null.
 */
export function normaliseZip(raw: string | null | undefined): string | null {
  const text = cleanText(raw);
  if (text === null) return null;
  if (/^\d{5}(-\d{4})?$/.test(text)) return text;
  if (/^\d{9}$/.test(text)) return `${text.slice(0, 5)}-${text.slice(5)}`;
  if (/^\d{4}$/.test(text)) return `0${text}`;
  const prefix = /^(\d{5})[- ]/.exec(text);
  return prefix ? prefix[1]! : null;
}

export interface NormaliseContext {
  vendorId: string;
  /** The version of a version-specific list, which wins over every other hint. */
  listFhirVersion: FhirVersion | null;
  /** The developer's one FHIR version (registry), for entries no hint gives a version. */
  defaultFhirVersion?: FhirVersion | null;
}

export interface NormaliseResult {
  entries: NormalisedEntry[];
  /** Raw items without a valid http(s) URL (validateEndpointUrl). */
  invalid: number;
  /** Raw items that collapsed into an earlier item with the same id. */
  duplicates: number;
  /** Items whose published URL was repaired (src/pipeline/ingest/enrich/url-repair.ts) and then accepted. */
  repaired: number;
}

/** Normalises every raw item of one list (docs/api.md, "Records"); duplicates collapse to the first. */
export function normaliseEntries(raw: RawEntry[], context: NormaliseContext): NormaliseResult {
  const byId = new Map<string, NormalisedEntry>();
  let invalid = 0;
  let duplicates = 0;
  let repaired = 0;
  for (const published of raw) {
    // Repair runs before validation: a repaired URL is then checked like any other.
    const repair = typeof published.url === "string" ? repairPublishedUrl(published.url) : null;
    const item = repair?.repaired ? { ...published, url: repair.url } : published;
    const entry = normaliseEntry(item, context);
    if (entry === null) invalid++;
    else if (byId.has(entry.id)) duplicates++;
    else {
      if (repair?.repaired) repaired++;
      byId.set(entry.id, enrichEntry(entry, context.defaultFhirVersion ?? null));
    }
  }
  return { entries: [...byId.values()], invalid, duplicates, repaired };
}

function normaliseEntry(item: RawEntry, context: NormaliseContext): NormalisedEntry | null {
  if (typeof item.url !== "string") return null;
  const checked = validateEndpointUrl(item.url);
  if ("reason" in checked) return null;
  const url = canonicalUrl(checked.url);
  const organizationName = cleanText(item.organizationName);
  const npi = normaliseNpi(item.npi);
  return {
    id: entryId(context.vendorId, url, npi, organizationName),
    url,
    organizationName,
    npi,
    tenantId: tenantIdFromUrl(context.vendorId, url),
    city: cleanText(item.city),
    state: stateCode(cleanText(item.state)),
    zipCode: normaliseZip(item.zipCode),
    listFhirVersion:
      context.listFhirVersion ?? fhirVersionFromString(item.fhirVersion) ?? fhirVersionFromUrl(url) ?? "UNKNOWN",
  };
}
