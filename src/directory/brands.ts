import { URL_EVIDENCE } from "../model/evidence";
import type { DirectoryData } from "./directory-data";
import type { DirectorySearch, EndpointFilter } from "./search";

/**
 * What a SMART App Launch 2.2 User-access Brands Bundle holds (docs/api.md, "Brands bundle"),
 * decided once for the server's bundle (src/server/export/formats/fhir.ts writes it) and for
 * `data:audit`, which counts what the bundle serves: which entries it reads, which Endpoints it
 * publishes, which organizations are brands, how one practice's spellings merge into one brand,
 * which developers are brands, and which brands share an NPI under other names.
 */

/**
 * The filter of a brands bundle: the list's, production entries only unless `environment=`
 * asks otherwise (test, demo, sandbox servers and placeholder organizations are no provider a
 * patient should pick; src/model/environment.ts).
 */
export const brandsFilter = (asked: EndpointFilter): EndpointFilter =>
  asked.environment === undefined ? { ...asked, environment: "production" } : asked;

/** Entries read from the search per page. */
const PAGE = 4096;

/** Every entry a brands bundle of `filter` holds (brandsFilter's), in list order. */
export function brandsEntries(search: DirectorySearch, filter: EndpointFilter): number[] {
  const all: number[] = [];
  for (let offset = 0; ; ) {
    const { ordinals } = search.search(filter, offset, PAGE);
    for (const o of ordinals) all.push(o);
    offset += ordinals.length;
    if (ordinals.length < PAGE) return all;
  }
}

/** Whether the time at string index `b` of a lastUpdated table is newer than at `a` (-1: none). */
export const newerIn = (lastUpdated: string[], a: number, b: number) => a === -1 || lastUpdated[b]! > lastUpdated[a]!;

const urlEvidenceByData = new WeakMap<DirectoryData, Uint8Array>();

/**
 * Per URL of a dataset, how its address is known (an index into URL_EVIDENCE): the least repair
 * among its listed entries, so that a URL one item of a list publishes in full is not a guess
 * because another gave it as a relative path. An Endpoint's `_address` mark and the brands
 * bundle's rule for guesses read it; made once per dataset.
 */
export function urlEvidenceOf(data: DirectoryData): Uint8Array {
  let evidence = urlEvidenceByData.get(data);
  if (evidence === undefined) {
    const { columns: c, strings: s } = data;
    evidence = new Uint8Array(s.urls.length).fill(URL_EVIDENCE.length - 1);
    for (let o = 0; o < data.listed; o++)
      if (c.urlEvidence[o]! < evidence[c.url[o]!]!) evidence[c.url[o]!] = c.urlEvidence[o]!;
    urlEvidenceByData.set(data, evidence);
  }
  return evidence;
}

const HOST_GUESSED = URL_EVIDENCE.indexOf("host-guessed");

/** A name with letter case, punctuation and spacing folded away ("Tribury Eye Care" = "Tribury Eyecare"). */
export const brandFold = (name: string) =>
  name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");

/** An organization's identity as a Bundle groups it: vendor, name but for letter case, NPI, city, state, ZIP. */
export function brandKeyOf({ columns: c, strings: s }: DirectoryData, o: number): string {
  const name = c.organizationName[o]!;
  return `${c.vendor[o]}\0${name < 0 ? "" : s.organizationNames[name]!.toLowerCase()}\0${c.npi[o]}\0${c.city[o]}\0${c.state[o]}\0${c.zipCode[o]}`;
}

/**
 * What a brands bundle of some entries holds. Organizations are named by their key
 * (brandKeyOf). One brand per practice: a developer's organizations whose names differ only in
 * letter case, punctuation or spacing and that share an Endpoint, or an NPI and an address, are
 * one brand, the first in list order, with the others' spellings as aliases and their Endpoints.
 */
export interface BrandPlan {
  /** Whether the URL (an index of the URL table) has its Endpoint in the Bundle. */
  inBundle(url: number): boolean;
  /** The brands (named organizations, first of their brand, offering an Endpoint): key → first entry, in list order. */
  brands: Map<string, number>;
  /** Each organization merged into another brand: its key → the brand's key. */
  aliasOf: Map<string, string>;
  /**
   * Per brand that others merged into, or whose entries spell its name in more than one way:
   * the others' Endpoints in the Bundle, every other spelling, the others' newest entry.
   */
  merged: Map<string, { urls: number[]; names: string[]; newest: number }>;
  /**
   * The developers that are brands: per vendor (an index of the vendor table, in table order),
   * the Endpoints in the Bundle that no named organization offers, in list order.
   */
  developers: Map<number, number[]>;
  /**
   * Brands whose NPI other brands of the Bundle carry under another name (the lists publish it
   * so): brand key → the first entries of those other brands.
   */
  sharedNpi: Map<string, number[]>;
}

const bit = (bits: Uint8Array, i: number) => (bits[i >> 3]! & (1 << (i & 7))) !== 0;
const setBit = (bits: Uint8Array, i: number) => {
  bits[i >> 3]! |= 1 << (i & 7);
};

/**
 * The brands bundle of `ordinals` (brandsEntries', in list order). An Endpoint per distinct URL,
 * decided by its first entry: its FHIR version known (the profile requires the extension) and
 * its address no guess (a `host-guessed` URL not yet verified by a probe, unless another item
 * published it in full). A brand per named organization with an Endpoint there, merged as
 * BrandPlan says; a developer is a brand offering the Endpoints no named organization offers.
 */
export function planBrands(data: DirectoryData, ordinals: readonly number[]): BrandPlan {
  const { columns: c, strings: s } = data;
  const urlEvidence = urlEvidenceOf(data);
  const seen = new Uint8Array((s.urls.length >> 3) + 1);
  const included = new Uint8Array((s.urls.length >> 3) + 1);
  /** URLs some named organization publishes. */
  const named = new Uint8Array((s.urls.length >> 3) + 1);
  /** URLs in the Bundle in list order of their first entry, with that entry's vendor. */
  const firstSeen: [url: number, vendor: number][] = [];
  for (const o of ordinals) {
    const url = c.url[o]!;
    if (c.organizationName[o]! >= 0) setBit(named, url);
    if (bit(seen, url)) continue;
    setBit(seen, url);
    const guess = urlEvidence[url] === HOST_GUESSED && s.statuses[c.status[o]!] !== "verified";
    // A User Access Endpoint names its version (the `endpoint-fhir-version` extension is required).
    if (s.fhirVersions[c.fhirVersion[o]!] !== "UNKNOWN" && !guess) {
      setBit(included, url);
      firstSeen.push([url, c.vendor[o]!]);
    }
  }
  const inBundle = (url: number) => bit(included, url);

  // Named organizations (by key) in list order of their first entry, with their entries.
  const first = new Map<string, number>();
  const entriesOf = new Map<string, number[]>();
  for (const o of ordinals) {
    if (c.organizationName[o]! < 0) continue;
    const k = brandKeyOf(data, o);
    if (!first.has(k)) first.set(k, o);
    const list = entriesOf.get(k);
    if (list) list.push(o);
    else entriesOf.set(k, [o]);
  }
  // Union-find over organizations, by a folded name with the NPI and address, or with a URL.
  const parent = new Map<string, string>();
  const find = (k: string): string => {
    let root = k;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(k, root);
    return root;
  };
  const union = (a: string, b: string) => {
    const [ra, rb] = [find(a), find(b)];
    if (ra === rb) return;
    // The organization first in list order stays the brand.
    if (first.get(ra)! < first.get(rb)!) parent.set(rb, ra);
    else parent.set(ra, rb);
  };
  const byPlace = new Map<string, string>();
  const byUrl = new Map<string, string>();
  for (const [k, o] of first) {
    parent.set(k, k);
    const folded = `${c.vendor[o]}\0${brandFold(s.organizationNames[c.organizationName[o]!]!)}`;
    const place = `${folded}\0${c.npi[o]}\0${c.city[o]}\0${c.state[o]}\0${c.zipCode[o]}`;
    const other = byPlace.get(place);
    if (other === undefined) byPlace.set(place, k);
    else union(other, k);
    for (const e of entriesOf.get(k)!) {
      const shared = `${folded}\0${c.url[e]}`;
      const same = byUrl.get(shared);
      if (same === undefined) byUrl.set(shared, k);
      else union(same, k);
    }
  }
  const aliasOf = new Map<string, string>();
  const merged: BrandPlan["merged"] = new Map();
  for (const [k, o] of first) {
    const root = find(k);
    if (root === k) continue;
    aliasOf.set(k, root);
    const into = merged.get(root) ?? { urls: [], names: [], newest: -1 };
    const rootName = s.organizationNames[c.organizationName[first.get(root)!]!]!;
    const name = s.organizationNames[c.organizationName[o]!]!;
    if (name !== rootName && !into.names.includes(name)) into.names.push(name);
    for (const e of entriesOf.get(k)!) {
      if (inBundle(c.url[e]!) && !into.urls.includes(c.url[e]!)) into.urls.push(c.url[e]!);
      if (newerIn(s.lastUpdated, into.newest, c.lastUpdated[e]!)) into.newest = c.lastUpdated[e]!;
    }
    merged.set(root, into);
  }
  // Spellings that differ only in letter case are one organization (one key), but a brand
  // names them all: each other spelling of its entries, and of those merged into it, is an alias.
  for (const [k, entries] of entriesOf) {
    const root = find(k);
    const rootName = s.organizationNames[c.organizationName[first.get(root)!]!]!;
    for (const e of entries) {
      const name = s.organizationNames[c.organizationName[e]!]!;
      if (name === rootName) continue;
      const into = merged.get(root) ?? { urls: [], names: [], newest: -1 };
      if (!into.names.includes(name)) into.names.push(name);
      merged.set(root, into);
    }
  }

  // A brand: a named organization, first of its brand, offering an Endpoint of its own or merged.
  const brands = new Map<string, number>();
  for (const [k, o] of first)
    if (
      !aliasOf.has(k) &&
      (entriesOf.get(k)!.some((e) => inBundle(c.url[e]!)) || (merged.get(k)?.urls.length ?? 0) > 0)
    )
      brands.set(k, o);

  const unnamed = new Map<number, number[]>();
  for (const [url, vendor] of firstSeen) {
    if (bit(named, url)) continue;
    const urls = unnamed.get(vendor);
    if (urls) urls.push(url);
    else unnamed.set(vendor, [url]);
  }
  const developers = new Map([...unnamed].sort(([a], [b]) => a - b));

  // Brands carrying one NPI under names that differ beyond case, punctuation and spacing.
  const byNpi = new Map<number, [key: string, o: number][]>();
  for (const [k, o] of brands) {
    const npi = c.npi[o]!;
    if (npi === 0) continue;
    const group = byNpi.get(npi);
    if (group) group.push([k, o]);
    else byNpi.set(npi, [[k, o]]);
  }
  const sharedNpi = new Map<string, number[]>();
  const foldedName = (o: number) => brandFold(s.organizationNames[c.organizationName[o]!]!);
  for (const group of byNpi.values()) {
    if (group.length < 2) continue;
    for (const [k, o] of group) {
      const others = group.filter(([, p]) => foldedName(p) !== foldedName(o)).map(([, p]) => p);
      if (others.length > 0) sharedNpi.set(k, others);
    }
  }
  return { inBundle, brands, aliasOf, merged, developers, sharedNpi };
}

/**
 * A developer's page (its endpointListUrl) as a brands bundle gives it, as its Endpoints'
 * `contact` and its own `telecom` when it is a brand: only an https:// URL. The User Access
 * Endpoint profile asks for an https:// URL for app developers, and a patient app is given no
 * http:// link; without one the bundle says the value is absent (src/server/export/formats/fhir.ts).
 */
export const brandsPage = (url: string | undefined): string | null => (url?.startsWith("https://") ? url : null);

const xmlText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * Why a brand carries an NPI other brands of the Bundle carry under another name (BrandPlan's
 * sharedNpi), as its Organization's narrative (`text`, status `additional`: what the structured
 * data does not say). The IG lets apps merge brands that share an identifier into one card;
 * these are not merged, as each is published with a name and FHIR endpoints of its own.
 */
export function sharedNpiNarrative(
  { columns: c, strings: s }: DirectoryData,
  vendorNames: ReadonlyMap<string, string>,
  o: number,
  others: readonly number[],
): { status: "additional"; div: string } {
  const named = (p: number) => {
    const vendorId = s.vendorIds[c.vendor[p]!]!;
    return `${s.organizationNames[c.organizationName[p]!]!} (${vendorNames.get(vendorId) ?? vendorId})`;
  };
  const text = `NPI ${c.npi[o]} is also published for ${others.map(named).join(", ")}: another organization with its own name and FHIR endpoints, so a brand of its own. The lists publish this NPI for both and do not say which one it belongs to.`;
  return { status: "additional", div: `<div xmlns="http://www.w3.org/1999/xhtml"><p>${xmlText(text)}</p></div>` };
}
