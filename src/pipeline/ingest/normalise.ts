import { cleanText } from "../../model/clean-text";
import type { UrlEvidence } from "../../model/evidence";
import { fhirVersionFromUrl } from "../../model/fhir-version";
import { canonicalUrl, entryId } from "../../model/identity";
import type { FhirVersion } from "../../model/types";
import { enrichEntry, repairPublishedUrl } from "./enrich";
import { fhirVersionOfUrl } from "./enrich/version-of-url";
import { listHostRules } from "./list-hosts";
import { stateCode } from "./state-code";
import { fhirVersionFromString } from "./stated-version";
import { tenantIdFromUrl } from "./tenant-rules";
import type { NormalisedEntry, RawEntry } from "./types";
import { type Unusable, unusableReason } from "./unusable";
import { validateEndpointUrl } from "./url-validation";

/** 10 digits, or null. */
export function normaliseNpi(raw: string | null | undefined): string | null {
  const text = cleanText(raw);
  return text !== null && /^\d{10}$/.test(text) ? text : null;
}

/**
 * 5 digits or ZIP+4 (`12345-6789`). Nine bare digits become ZIP+4; a broken +4 part keeps the
 * 5-digit ZIP. Four digits are not padded: a spreadsheet may have dropped a leading zero (New
 * England) or the publisher a trailing digit (`4850` for Ozark, Missouri, 65xxx), and a padded
 * guess would place the entry in another state. Anything else → null.
 */
export function normaliseZip(raw: string | null | undefined): string | null {
  const text = cleanText(raw);
  if (text === null) return null;
  if (/^\d{5}(-\d{4})?$/.test(text)) return text;
  if (/^\d{9}$/.test(text)) return `${text.slice(0, 5)}-${text.slice(5)}`;
  const prefix = /^(\d{5})[- ]/.exec(text);
  return prefix ? prefix[1]! : null;
}

export interface NormaliseContext {
  vendorId: string;
  /** The version of a version-specific list, which wins over every other hint. */
  listFhirVersion: FhirVersion | null;
  /** The developer's one FHIR version (registry), for entries no hint gives a version. */
  defaultFhirVersion?: FhirVersion | null;
  /** Private and loopback hosts are usable (ALLOW_PRIVATE_NETWORK: local development and tests). */
  allowPrivateNetwork?: boolean;
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
    const entry = normaliseEntry(item, context, repair?.repaired ? "repaired" : "published");
    if (entry === null) invalid++;
    else if (byId.has(entry.id)) duplicates++;
    else {
      if (repair?.repaired) repaired++;
      byId.set(entry.id, entry);
    }
  }
  const developerVersion = developerVersionFor([...byId.values()], context.defaultFhirVersion ?? null);
  const hostRule = listHostRules([...byId.values()].map((entry) => entry.url));
  const entries = [...byId.values()].map((entry) => {
    const listed = entry.unusable === null ? unusableFields(hostRule(entry.url)) : null;
    return enrichEntry(listed?.unusable ? { ...entry, ...listed } : entry, developerVersion(entry.url));
  });
  return { entries, invalid, duplicates, repaired };
}

/**
 * The developer's certified version, per URL, where it may stand for a version nobody stated: only
 * when the developer has a single FHIR API and nothing in the URLs contradicts it. A list whose
 * URLs name another version (Altera's `/R2/` paths beside its R4 ones) shows the developer serves
 * more than one API: then no unversioned URL of the list is given the certified version. Nor is
 * an unversioned URL on a host that also publishes a versioned path (`https://h/FHIR` beside
 * `https://h/R4/FHIR`: the unversioned one is the older API).
 */
function developerVersionFor(
  entries: NormalisedEntry[],
  certified: FhirVersion | null,
): (url: string) => FhirVersion | null {
  if (certified === null) return () => null;
  const versionedHosts = new Set<string>();
  for (const entry of entries) {
    const named = fhirVersionOfUrl(entry.url);
    if (named !== null && named !== certified) return () => null;
    if (named !== null) versionedHosts.add(hostOf(entry.url));
  }
  return (url) => (versionedHosts.has(hostOf(url)) ? null : certified);
}

const hostOf = (url: string) => /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1]?.toLowerCase() ?? "";

function normaliseEntry(item: RawEntry, context: NormaliseContext, urlEvidence: UrlEvidence): NormalisedEntry | null {
  if (typeof item.url !== "string") return null;
  const checked = validateEndpointUrl(item.url);
  if ("reason" in checked) return null;
  const url = canonicalUrl(checked.url);
  const organizationName = cleanText(item.organizationName);
  const npi = normaliseNpi(item.npi);
  const state = stateCode(cleanText(item.state));
  const listVersion = context.listFhirVersion ?? fhirVersionFromString(item.fhirVersion);
  const urlVersion = listVersion === null ? fhirVersionFromUrl(url) : null;
  return {
    id: entryId(context.vendorId, url, npi, organizationName),
    url,
    organizationName,
    npi,
    tenantId: tenantIdFromUrl(context.vendorId, url),
    city: cleanText(item.city),
    state,
    zipCode: normaliseZip(item.zipCode),
    listFhirVersion: listVersion ?? urlVersion ?? "UNKNOWN",
    versionEvidence: listVersion !== null ? "list" : urlVersion !== null ? "url" : null,
    stateEvidence: state !== null ? "list" : null,
    urlEvidence,
    ...unusableFields(unusableReason(url, organizationName, context.allowPrivateNetwork)),
  };
}

/** An entry's `unusable` and `unusableDetail`: the rule's kind and what it found, or both null. */
const unusableFields = (found: Unusable | null) => ({
  unusable: found?.kind ?? null,
  unusableDetail: found?.reason ?? null,
});
