import { cleanText } from "../../model/clean-text";
import type { UrlEvidence } from "../../model/evidence";
import { fhirVersionFromUrl } from "../../model/fhir-version";
import { canonicalUrl, entryId } from "../../model/identity";
import type { FhirVersion } from "../../model/types";
import { enrichEntry, repairPublishedUrl } from "./enrich";
import { repairName } from "./enrich/name-repair";
import { isRelativePath, relativeUrlResolver } from "./enrich/relative-url";
import { fhirVersionOfUrl } from "./enrich/version-of-url";
import { listHostRules } from "./list-hosts";
import { stateCode } from "./state-code";
import { fhirVersionFromString } from "./stated-version";
import { tenantIdFromUrl } from "./tenant-rules";
import type { DroppedItem, NameRepairItem, NormalisedEntry, RawEntry, RepairedItem } from "./types";
import { type Unusable, unusableReason } from "./unusable";
import { validateEndpointUrl } from "./url-validation";

/** 10 digits, or null. */
export function normaliseNpi(raw: string | null | undefined): string | null {
  const text = cleanText(raw);
  return text !== null && /^\d{10}$/.test(text) ? text : null;
}

/**
 * A ZIP code as published: 5 digits, or ZIP+4 written either way (`12345-6789`, or nine bare
 * digits `123456789`, kept without a hyphen added: the list's text, not our rewrite of it). Else
 * the 5-digit ZIP a longer text starts with, when no digit follows it (`79761?`, a broken +4 part
 * `20814-191`). Four digits are not padded: a spreadsheet may have dropped a leading zero (New
 * England) or the publisher a trailing digit (`4850` for Ozark, Missouri, 65xxx), and a padded
 * guess would place the entry in another state. Anything else (`350954`, `KY1-1010`) → null.
 */
export function normaliseZip(raw: string | null | undefined): string | null {
  const text = cleanText(raw);
  if (text === null) return null;
  if (/^(?:\d{5}(?:-\d{4})?|\d{9})$/.test(text)) return text;
  const prefix = /^(\d{5})(?!\d)/.exec(text);
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
  /** Raw items without a URL that can be stored (validateEndpointUrl, a relative path without a host), each with why. */
  dropped: DroppedItem[];
  /** Raw items that collapsed into an earlier item with the same id. */
  duplicates: number;
  /** Entries whose organization name was repaired (enrich/name-repair.ts), in list order. */
  nameRepairs: NameRepairItem[];
  /** Entries whose published URL was repaired (enrich/url-repair.ts, enrich/relative-url.ts) and then accepted. */
  repairs: RepairedItem[];
}

/** A raw item kept out as the report names it: its published URL, its cleaned name, why. */
const droppedItem = (published: string, item: RawEntry, reason: string): DroppedItem => ({
  published,
  organizationName: cleanText(item.organizationName),
  reason,
});

/** Normalises every raw item of one list (docs/api.md, "Records"); duplicates collapse to the first. */
export function normaliseEntries(raw: RawEntry[], context: NormaliseContext): NormaliseResult {
  const byId = new Map<string, NormalisedEntry>();
  const dropped: DroppedItem[] = [];
  const repairs: RepairedItem[] = [];
  const nameRepairs: NameRepairItem[] = [];
  let duplicates = 0;
  // Repair runs before validation: a repaired URL is then checked like any other.
  const repaired = raw.map((item) => (typeof item.url === "string" ? repairPublishedUrl(item.url) : null));
  // Built when the list has a relative path: from every URL of the list that is valid as it stands.
  let resolveRelative: ReturnType<typeof relativeUrlResolver> | null = null;
  const absoluteUrls = () =>
    repaired.flatMap((r) => (r !== null && "url" in validateEndpointUrl(r.url) ? [r.url] : []));
  for (const [index, published] of raw.entries()) {
    let repair = repaired[index]!;
    if (repair !== null && repair.repair === null && isRelativePath(repair.url)) {
      resolveRelative ??= relativeUrlResolver(absoluteUrls());
      const resolved = resolveRelative(repair.url);
      if ("reason" in resolved) {
        dropped.push(droppedItem(published.url, published, resolved.reason));
        continue;
      }
      repair = resolved;
    }
    const fixed = repair?.repair ?? null;
    const kind = fixed !== null ? repair!.kind : "published";
    const item = fixed !== null ? { ...published, url: repair!.url } : published;
    const entry = normaliseEntry(item, context, kind, fixed !== null ? String(published.url) : null);
    if ("reason" in entry) dropped.push(droppedItem(String(published.url ?? ""), published, entry.reason));
    else if (byId.has(entry.id)) duplicates++;
    else {
      if (fixed !== null)
        repairs.push({
          published: published.url,
          url: entry.url,
          organizationName: entry.organizationName,
          repair: fixed,
          kind: kind as Exclude<UrlEvidence, "published">,
        });
      // The name is repaired after the id is made: the id stays that of the name as published.
      const named = repairName(entry.organizationName);
      if (named !== null) nameRepairs.push({ published: entry.organizationName!, ...named });
      byId.set(entry.id, named === null ? entry : { ...entry, organizationName: named.name });
    }
  }
  const developerVersion = developerVersionFor([...byId.values()], context.defaultFhirVersion ?? null);
  const hostRule = listHostRules([...byId.values()].map((entry) => entry.url));
  const entries = [...byId.values()].map((entry) => {
    const listed = entry.unusable === null ? unusableFields(hostRule(entry.url)) : null;
    return enrichEntry(listed?.unusable ? { ...entry, ...listed } : entry, developerVersion(entry.url));
  });
  return { entries, dropped, duplicates, repairs, nameRepairs };
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

function normaliseEntry(
  item: RawEntry,
  context: NormaliseContext,
  urlEvidence: UrlEvidence,
  urlPublished: string | null,
): NormalisedEntry | { reason: string } {
  if (typeof item.url !== "string") return { reason: "no URL" };
  const checked = validateEndpointUrl(item.url);
  if ("reason" in checked) return checked;
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
    urlPublished,
    ...unusableFields(unusableReason(url, organizationName, context.allowPrivateNetwork)),
  };
}

/** An entry's `unusable` and `unusableDetail`: the rule's kind and what it found, or both null. */
const unusableFields = (found: Unusable | null) => ({
  unusable: found?.kind ?? null,
  unusableDetail: found?.reason ?? null,
});
