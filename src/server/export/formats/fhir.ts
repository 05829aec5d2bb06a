import {
  type BrandPlan,
  brandKeyOf,
  brandsPage,
  newerIn,
  planBrands,
  sharedNpiNarrative,
  urlEvidenceOf,
} from "../../../directory/brands";
import { environmentRuleAt, lookup, type RecordSource } from "../../../directory/render";
import {
  ENVIRONMENT_CODE_SYSTEM,
  ENVIRONMENT_CODES,
  ENVIRONMENT_EXTENSION,
  type EnvironmentCode,
} from "../../../model/environment";
import { FHIR_VERSION_BASES, type FhirVersionBasis, URL_EVIDENCE, type UrlEvidence } from "../../../model/evidence";
import type { EndpointStatus, FhirVersion } from "../../../model/types";
import { ByteBuffer, encodeTable, equalFolded } from "../../http/byte-buffer";
import type { ExportWriter } from "./writer";

export const NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi";
const IDENTIFIER = `,"identifier":[{"system":"${NPI_SYSTEM}","value":"`;
/**
 * The identifier system of our own Organization identifiers (docs/api.md, "Export"): given to an
 * organization published with neither name nor NPI, its value the Organization's id, so that
 * every Organization meets FHIR's invariant org-1 (a name or an identifier).
 */
export const ORGANIZATION_ID_SYSTEM =
  "https://github.com/endpoint-directory/endpoint-directory/blob/main/docs/api.md#organization-identifier";
const OWN_IDENTIFIER = `,"identifier":[{"system":"${ORGANIZATION_ID_SYSTEM}","value":"`;
export const FHIR_VERSION_EXTENSION = "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version";
/**
 * Our own extension (docs/api.md, "FHIR version basis"), beside `endpoint-fhir-version`: how that
 * version is known, a code of FHIR_VERSION_BASES (`probe`, `list`, `url`, `certification`).
 */
export const FHIR_VERSION_BASIS_EXTENSION =
  "https://endpoint-directory.fly.dev/fhir/StructureDefinition/endpoint-fhir-version-basis";

/**
 * Our own extension on an Endpoint's `address` (docs/api.md, "Enrichment"): the address is not
 * the text the list published but a repair of it, of this kind (`cleaned`, `scheme-assumed`, or
 * `host-guessed`: a relative path given a host, a guess until a probe verifies it).
 */
export const URL_REPAIR_EXTENSION =
  "https://endpoint-directory.fly.dev/fhir/StructureDefinition/endpoint-address-repair";

/**
 * The `_address` element (FHIR JSON's place for a primitive's extensions) of an Endpoint whose
 * address is a repair, in the export and /fhir alike; none for an address as published.
 */
export const addressRepairElement = (evidence: UrlEvidence): { _address?: { extension: object[] } } =>
  evidence === "published" ? {} : { _address: { extension: [{ url: URL_REPAIR_EXTENSION, valueCode: evidence }] } };
/** addressRepairElement of each URL_EVIDENCE index, as the members it adds after `address` (with a comma). */
const ADDRESS_REPAIRS = URL_EVIDENCE.map((evidence) =>
  evidence === "published" ? "" : `,${JSON.stringify(addressRepairElement(evidence)).slice(1, -1)}`,
);

/**
 * The R5 cross-version extension of Endpoint.environmentType (docs/api.md, "Environment") for a
 * non-production Endpoint: its code of http://hl7.org/fhir/endpoint-environment.
 */
const environmentExtension = (code: EnvironmentCode) => ({
  url: ENVIRONMENT_EXTENSION,
  valueCodeableConcept: {
    coding: [{ system: ENVIRONMENT_CODE_SYSTEM, code, display: ENVIRONMENT_CODES[code] }],
  },
});

/** The environment code of the entry at ordinal o, or null for production (no extension). */
export const environmentCodeAt = (data: RecordSource["data"], o: number): EnvironmentCode | null =>
  environmentRuleAt(data, o)?.code ?? null;

/**
 * An Endpoint's `extension` array, in the export and /fhir alike, for the code of its release
 * (FHIR_VERSION_CODE), the basis of that release and a non-production environment's code: the
 * version's two extensions (none for an unknown version), then the environment's (none for
 * production); empty when neither.
 */
export const endpointExtensions = (
  code: string | null,
  basis: FhirVersionBasis,
  environment: EnvironmentCode | null,
): object[] => [
  ...(code === null
    ? []
    : [
        { url: FHIR_VERSION_EXTENSION, valueCode: code },
        { url: FHIR_VERSION_BASIS_EXTENSION, valueCode: basis },
      ]),
  ...(environment === null ? [] : [environmentExtension(environment)]),
];

/** The Endpoint's `extension` member (with its comma) for a release, its basis and environment; "" when it has none. */
function versionExtensions(version: FhirVersion, basis: FhirVersionBasis, environment: EnvironmentCode | null): string {
  const extension = endpointExtensions(FHIR_VERSION_CODE[version], basis, environment);
  return extension.length === 0 ? "" : `"extension":${JSON.stringify(extension)},`;
}

/** The environments an Endpoint's extensions tell apart: production (none), then each non-production code. */
const ENDPOINT_ENVIRONMENTS: (EnvironmentCode | null)[] = [
  null,
  ...(Object.keys(ENVIRONMENT_CODES) as EnvironmentCode[]).filter((code) => code !== "prod"),
];

/** Our status → FHIR Endpoint.status. listed: published by the vendor, not yet probed, so taken as active. */
export const FHIR_ENDPOINT_STATUS: Record<EndpointStatus, string> = {
  listed: "active",
  verified: "active",
  unresponsive: "error",
  removed: "off",
};

/** Our release → the FHIR version code of the `endpoint-fhir-version` extension (none for UNKNOWN). */
export const FHIR_VERSION_CODE: Record<FhirVersion, string | null> = {
  DSTU2: "1.0.2",
  STU3: "3.0.2",
  R4: "4.0.1",
  R4B: "4.3.0",
  R5: "5.0.0",
  UNKNOWN: null,
};

export const CONNECTION_TYPE =
  '{"system":"http://terminology.hl7.org/CodeSystem/endpoint-connection-type","code":"hl7-fhir-rest"}';
export const PAYLOAD_TYPE =
  '[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/endpoint-payload-type","code":"any","display":"Any"}]}]';
/** The payloadType a User-access Endpoint has (SMART App Launch 2.2 fixes the code `none`). */
const BRANDS_PAYLOAD_TYPE =
  '[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/endpoint-payload-type","code":"none","display":"None"}]}]';

/**
 * What the SMART App Launch 2.2 User-access Brands Bundle needs beyond the export
 * (docs/api.md, "Brands bundle"): each developer's page for app developers (its endpointListUrl),
 * given as the developer's `telecom` and each of its Endpoints' `contact`.
 */
export interface BrandsOptions {
  developerPages: ReadonlyMap<string, string>;
  /** Every entry the Bundle holds (list positions, in list order): its brands are planned from all of them. */
  entries(): readonly number[];
}

/**
 * A required element no list we read gives (a brand's own website, `Organization.telecom`):
 * SMART App Launch 2.2 lets the publisher give a Data Absent Reason instead, `asked-unknown` or
 * `asked-declined` only; `asked-unknown`: the vendor's published list, the source asked, has none.
 */
const ABSENT_WEBSITE =
  '[{"extension":[{"url":"http://hl7.org/fhir/StructureDefinition/data-absent-reason","valueCode":"asked-unknown"}],"system":"url"}]';

/**
 * An Endpoint's `contact` when its developer publishes no https:// page (the User Access Endpoint
 * profile requires a `url` contact whose value is an https:// URL for app developers, and no
 * http:// link is given to a patient app): the value absent, `asked-unknown` (the developer's
 * list, the source asked, gives none over https), on the primitive itself so that the required
 * `value` is present.
 */
const ABSENT_CONTACT =
  '[{"system":"url","_value":{"extension":[{"url":"http://hl7.org/fhir/StructureDefinition/data-absent-reason","valueCode":"asked-unknown"}]}}]';

/** Written for a null member of an organization's key: neither it nor NUL occurs in a published name or place. */
const NULL_PART = "\u0001";

/**
 * Int32 keys to int32 values (an open-addressing table in typed arrays), emptied in constant time
 * by a generation stamp: the organizations of a run by the hash of their key, run after run,
 * with nothing left for the collector (a Map allocates on every clear).
 */
class IntTable {
  private keys = new Int32Array(1024);
  private values = new Int32Array(1024);
  private stamps = new Uint32Array(1024);
  private generation = 1;
  private count = 0;

  clear() {
    this.generation++;
    this.count = 0;
  }

  /** The value of `key`, -1 when absent. */
  get(key: number): number {
    const mask = this.keys.length - 1;
    for (let i = key & mask; this.stamps[i] === this.generation; i = (i + 1) & mask)
      if (this.keys[i] === key) return this.values[i]!;
    return -1;
  }

  set(key: number, value: number) {
    const mask = this.keys.length - 1;
    let i = key & mask;
    for (; this.stamps[i] === this.generation; i = (i + 1) & mask)
      if (this.keys[i] === key) {
        this.values[i] = value;
        return;
      }
    this.keys[i] = key;
    this.values[i] = value;
    this.stamps[i] = this.generation;
    if (++this.count * 2 > this.keys.length) this.grow();
  }

  private grow() {
    const { keys, values, stamps, generation } = this;
    this.keys = new Int32Array(keys.length * 2);
    this.values = new Int32Array(keys.length * 2);
    this.stamps = new Uint32Array(keys.length * 2);
    this.generation = 1;
    this.count = 0;
    for (let i = 0; i < keys.length; i++) if (stamps[i] === generation) this.set(keys[i]!, values[i]!);
  }
}

function keyPart(key: ByteBuffer, value: string | null) {
  key.ascii("\0");
  if (value === null) key.ascii(NULL_PART);
  else key.utf8(value);
}

/**
 * Writes the key an Organization's id hashes into `key` (cleared first): "Organization", the
 * vendor id, then the name as published, NPI, city, state and ZIP of the entry at `o` (null
 * when its organization name gave them, `namePlace`),
 * NUL-separated, null parts as NULL_PART; UTF-8. Called with an organization's first entry in
 * list order: names that differ only in letter case are one organization (in the export, the
 * brands bundle and /fhir alike), whose id is that of its first spelling. The name is not
 * lowercased: the ids of the releases before are the ids of every organization with one
 * spelling, and /fhir answers another spelling's id with a redirect (docs/api.md, "Identifiers").
 * `lowercased-2026-11-27`: the key one release (2026-11-27) hashed, the name lowercased, whose
 * ids /fhir answers with a redirect too.
 */
export function writeOrganizationKey(
  key: ByteBuffer,
  { columns: c, strings: s }: RecordSource["data"],
  o: number,
  scheme: "published" | "lowercased-2026-11-27" = "published",
) {
  key.clear();
  key.ascii("Organization\n");
  key.utf8(s.vendorIds[c.vendor[o]!]!);
  const name = lookup(s.organizationNames, c.organizationName[o]!);
  keyPart(key, scheme === "published" ? name : (name?.toLowerCase() ?? null));
  const npi = c.npi[o]!;
  key.ascii("\0");
  if (npi === 0) key.ascii(NULL_PART);
  else key.integer(npi);
  // A place read from the name is left out: the Organization keeps the id it had before names were read.
  const named = c.namePlace[o] === 1;
  keyPart(key, named ? null : lookup(s.cities, c.city[o]!));
  keyPart(key, named ? null : lookup(s.states, c.state[o]!));
  keyPart(key, named ? null : lookup(s.zipCodes, c.zipCode[o]!));
}

type Columns = RecordSource["data"]["columns"];

/**
 * A hash of the key columns of the entry at `o` that tell the organizations of one run (a
 * vendor and a name) apart: NPI, city, state and ZIP. The name is left out: a run's names are
 * one name but for letter case, and an organization's key holds its first spelling
 * (writeOrganizationKey). Entries with equal hashes may still differ: `sameOrganization` tells.
 */
export function organizationHash(c: Columns, o: number): number {
  let h = Math.imul(c.city[o]! ^ 0x2545f491, 0x85ebca6b);
  h = Math.imul(h ^ c.state[o]!, 0xc2b2ae35);
  h = Math.imul(h ^ c.zipCode[o]!, 0x27d4eb2f);
  return h ^ (c.npi[o]! % 0x100000000);
}

/**
 * Whether the entries at `o` and `p` of one run are of one organization: the same NPI, city,
 * state and ZIP (a string table holds each value once, so an equal index is an equal value).
 */
export const sameOrganization = (c: Columns, o: number, p: number) =>
  c.npi[p] === c.npi[o] && c.city[p] === c.city[o] && c.state[p] === c.state[o] && c.zipCode[p] === c.zipCode[o];

const urlNewestByData = new WeakMap<RecordSource["data"], Int32Array>();

/**
 * Per URL of a dataset, its newest listed entry (a string index of lastUpdated, -1 none), as
 * /fhir gives an Endpoint's meta.lastUpdated: a pass over every listed entry, made once per
 * dataset rather than for each brands bundle written.
 */
function urlNewestOf(data: RecordSource["data"]): Int32Array {
  let newest = urlNewestByData.get(data);
  if (newest === undefined) {
    const { columns: c, strings: s } = data;
    newest = new Int32Array(s.urls.length).fill(-1);
    for (let o = 0; o < data.listed; o++) {
      const url = c.url[o]!;
      if (newerIn(s.lastUpdated, newest[url]!, c.lastUpdated[o]!)) newest[url] = c.lastUpdated[o]!;
    }
    urlNewestByData.set(data, newest);
  }
  return newest;
}

/**
 * One FHIR R4 Bundle of type `collection`, the shape vendors publish their lists in: an
 * Endpoint per distinct URL (first seen in list order; its status and version from that entry)
 * and an Organization per organization of a vendor (same vendor, name, NPI, city, state and
 * ZIP) with one `endpoint` reference per URL it publishes. Our own ingest reads it back into
 * the same entries (same ids). Resource ids are SHA-256 hashes: of the URL for an Endpoint, of
 * the organization's key for an Organization (stable across dataset versions).
 *
 * With `brands`, the same Bundle as a SMART App Launch 2.2 User-access Brands Bundle: `meta`
 * and `timestamp` always, `meta.lastUpdated` on every resource; only Endpoints of a known FHIR
 * version (the profile requires `endpoint-fhir-version`), with `payloadType` `none` and the
 * developer's page as `contact`; only organizations with a name (a brand's name is required)
 * and an Endpoint left, each with a `telecom` Data Absent Reason (no list gives a brand's
 * website) and `address.country` US. Every Endpoint is named by a brand: one that no named
 * organization names is named by its developer, written at the end as a brand (its page as
 * `telecom`) offering exactly those Endpoints; a developer with none is no brand and is left out.
 *
 * Streaming: the entries of one organization are adjacent in list order up to other
 * organizations of the same vendor and (case-insensitive) name, so organizations are collected
 * per such run and written when it ends; the URLs already seen, and those whose Endpoint was
 * written, are one bit each.
 */
export function fhirWriter(
  { data, vendorNames }: RecordSource,
  timestamp: string | null,
  origin: string,
  brands: BrandsOptions | null = null,
): ExportWriter {
  const { columns: c, strings: s } = data;
  const written = new Uint8Array((s.urls.length >> 3) + 1);
  // A brands bundle: what it holds (src/directory/brands.ts), planned from every entry of the
  // Bundle before the first is written.
  let plan: BrandPlan | null = null;
  /** Whether a URL seen so far has its Endpoint in the Bundle: every one, or as the brands plan says. */
  const isIncluded = (url: number) =>
    plan === null ? (written[url >> 3]! & (1 << (url & 7))) !== 0 : plan.inBundle(url);
  const hash = new Uint8Array(32);
  const endpointId = (out: ByteBuffer, urlIndex: number) => {
    Bun.SHA256.hash(s.urls[urlIndex]!, hash);
    out.hex(hash, 0, 32);
  };
  // Absolute URLs under the request's origin, as the FHIR API serves the same resources.
  const base = JSON.stringify(origin).slice(1, -1);
  const endpointUrl = `{"fullUrl":"${base}/fhir/Endpoint/`;
  const organizationUrl = `{"fullUrl":"${base}/fhir/Organization/`;
  // Per vendor: its developer Organization (in the export written at the vendor's first entry)
  // and the end of each of its Endpoints: in the export the developer as managingOrganization,
  // in a brands bundle the developer's page as contact (its developer is a brand only when it
  // names an Endpoint no organization does, so no Endpoint refers to it).
  const developerWritten = new Uint8Array(s.vendorIds.length);
  /** The developer's page as a ContactPoint list; null when there is none an app may be given (brandsPage). */
  const page = (vendorId: string) => {
    const url = brandsPage(brands?.developerPages.get(vendorId));
    return url === null ? null : `[{"system":"url","value":${JSON.stringify(url)}}]`;
  };
  const developerName = (vendorId: string) => JSON.stringify(vendorNames.get(vendorId) ?? vendorId);
  const developers = s.vendorIds.map(
    (vendorId) =>
      `${organizationUrl}developer-${vendorId}","resource":{"resourceType":"Organization","id":"developer-${vendorId}","name":${developerName(vendorId)}}}`,
  );
  const tails = s.vendorIds.map((vendorId) => {
    if (brands === null) return `,"managingOrganization":{"reference":"Organization/developer-${vendorId}"}}}`;
    return `,"contact":${page(vendorId) ?? ABSENT_CONTACT}}}`;
  });
  // Per status and version: the Endpoint's members between its id and its address.
  const statuses = s.statuses.map((status) => FHIR_ENDPOINT_STATUS[status as EndpointStatus]);
  const middles = s.fhirVersions.map((version) =>
    FHIR_VERSION_BASES.map((basis) =>
      ENDPOINT_ENVIRONMENTS.map((environment) => {
        const extension = versionExtensions(version as FhirVersion, basis, environment);
        return encodeTable(statuses, (out, status) =>
          out.ascii(
            `,${extension}"status":"${status}","connectionType":${CONNECTION_TYPE},"payloadType":${brands === null ? PAYLOAD_TYPE : BRANDS_PAYLOAD_TYPE},"address":`,
          ),
        );
      }),
    ),
  );

  // A brands bundle: when each resource last changed (string indexes of s.lastUpdated, -1 none).
  const newer = (a: number, b: number) => newerIn(s.lastUpdated, a, b);
  const urlNewest = brands === null ? null : urlNewestOf(data);
  const urlEvidence = urlEvidenceOf(data);
  /** Per vendor, its newest entry in the Bundle (its developer brand's meta.lastUpdated). */
  const vendorNewest = new Int32Array(s.vendorIds.length).fill(-1);
  const lastUpdatedMeta = (out: ByteBuffer, at: number) => {
    out.ascii(',"meta":{"lastUpdated":');
    out.json(s.lastUpdated[at]!);
    out.ascii("}");
  };

  // No `entry` at all when nothing matched: FHIR JSON has no empty arrays.
  let first = true;
  const item = (out: ByteBuffer) => {
    if (first) {
      first = false;
      out.ascii(',"entry":[');
    } else out.ascii(",");
  };

  // The current run: a vendor and an organization name (case-insensitive; NULL_PART for none).
  let runVendor = -1;
  let runName = -2;
  /** Whether two organization names (indexes, -1 for none) are the same case-insensitively. */
  const sameName = (a: number, b: number) =>
    a === b || (a >= 0 && b >= 0 && equalFolded(s.organizationNames[a]!, s.organizationNames[b]!));

  // The run's organizations, in order of appearance, kept in reused arrays (nothing per entry
  // for the collector): organization k was first seen in entry ordinals[k]; its URLs are a
  // linked list through urlPool/nextPool from firstUrl[k] to lastUrl[k]. byKey finds an
  // organization by its organizationHash, colliding ones chained through nextInBucket.
  const ordinals: number[] = [];
  /** Organization k's newest entry (a string index of s.lastUpdated). */
  const newestOf: number[] = [];
  const firstUrl: number[] = [];
  const lastUrl: number[] = [];
  const nextInBucket: number[] = [];
  let urlPool = new Int32Array(1024);
  let nextPool = new Int32Array(1024);
  let pooled = 0;
  const byKey = new IntTable();

  /** A pooled URL cell, at the end of nothing yet. */
  const cell = (url: number) => {
    if (pooled === urlPool.length) {
      const urls = new Int32Array(pooled * 2);
      urls.set(urlPool);
      urlPool = urls;
      const next = new Int32Array(pooled * 2);
      next.set(nextPool);
      nextPool = next;
    }
    urlPool[pooled] = url;
    nextPool[pooled] = -1;
    return pooled++;
  };

  // The key is written into a reused buffer (no string built), hashed through one view per key length.
  const key = new ByteBuffer(1024);
  // One view of the key buffer per key length, made once (a view per organization is garbage).
  const keyViews: Uint8Array[] = [];
  let keyViewsOf = key.bytes;
  const keyView = () => {
    if (keyViewsOf !== key.bytes) {
      keyViews.length = 0;
      keyViewsOf = key.bytes;
    }
    let view = keyViews[key.length];
    if (view === undefined) {
      view = key.bytes.subarray(0, key.length);
      keyViews[key.length] = view;
    }
    return view;
  };
  /** Writes the organization's id (its key's SHA-256, left in `hash`). */
  const organizationId = (out: ByteBuffer, o: number) => {
    writeOrganizationKey(key, data, o);
    Bun.SHA256.hash(keyView(), hash);
    out.hex(hash, 0, 32);
  };

  /** One member of the address (`member` written with its quotes and colon); whether a member was written so far. */
  const addressMember = (out: ByteBuffer, comma: boolean, member: string, value: string | null) => {
    if (value === null) return comma;
    if (comma) out.ascii(",");
    out.ascii(member);
    out.json(value);
    return true;
  };

  /** Whether organization k is in the Bundle: always, except under `brands` one the plan makes no brand. */
  const organizationIncluded = (k: number) => plan === null || plan.brands.has(brandKeyOf(data, ordinals[k]!));
  /** What a brands bundle merges into organization k: the others of its brand (BrandPlan), or undefined. */
  const mergedInto = (k: number) => plan?.merged.get(brandKeyOf(data, ordinals[k]!));

  const writeOrganization = (out: ByteBuffer, k: number) => {
    if (!organizationIncluded(k)) return;
    const o = ordinals[k]!;
    item(out);
    out.ascii(organizationUrl);
    organizationId(out, o);
    out.ascii('","resource":{"resourceType":"Organization","id":"');
    out.hex(hash, 0, 32);
    out.ascii('"');
    const merged = mergedInto(k);
    if (brands !== null)
      lastUpdatedMeta(out, merged && newer(newestOf[k]!, merged.newest) ? merged.newest : newestOf[k]!);
    const sharing = plan?.sharedNpi.get(brandKeyOf(data, o));
    if (sharing !== undefined) out.utf8(`,"text":${JSON.stringify(sharedNpiNarrative(data, vendorNames, o, sharing))}`);
    const npi = c.npi[o]!;
    const name = lookup(s.organizationNames, c.organizationName[o]!);
    if (npi !== 0) {
      out.ascii(IDENTIFIER);
      out.integer(npi);
      out.ascii('"}]');
    } else if (name === null) {
      out.ascii(OWN_IDENTIFIER);
      out.hex(hash, 0, 32);
      out.ascii('"}]');
    }
    if (name !== null) {
      out.ascii(',"name":');
      out.json(name);
    }
    // The other spellings of a brand merged into this one (the IG allows aliases).
    if (merged !== undefined && merged.names.length > 0) out.utf8(`,"alias":${JSON.stringify(merged.names)}`);
    if (brands !== null) out.ascii(`,"telecom":${ABSENT_WEBSITE}`);
    const city = lookup(s.cities, c.city[o]!);
    const state = lookup(s.states, c.state[o]!);
    const zipCode = lookup(s.zipCodes, c.zipCode[o]!);
    if (city !== null || state !== null || zipCode !== null) {
      out.ascii(',"address":[{');
      const comma = addressMember(out, addressMember(out, false, '"city":', city), '"state":', state);
      addressMember(out, comma, '"postalCode":', zipCode);
      out.ascii(brands === null ? "}]" : ',"country":"US"}]');
    }
    out.ascii(',"endpoint":[');
    let firstReference = true;
    const reference = (url: number) => {
      out.ascii(firstReference ? '{"reference":"Endpoint/' : ',{"reference":"Endpoint/');
      firstReference = false;
      endpointId(out, url);
      out.ascii('"}');
    };
    const own = merged === undefined ? null : new Set<number>();
    for (let u = firstUrl[k]!; u !== -1; u = nextPool[u]!) {
      const url = urlPool[u]!;
      if (!isIncluded(url) || own?.has(url)) continue;
      own?.add(url);
      reference(url);
    }
    // The merged organizations' Endpoints, in the Bundle whether written yet or not (BrandPlan).
    for (const url of merged?.urls ?? []) if (!own!.has(url)) reference(url);
    out.ascii("]}}");
  };

  const flush = (out: ByteBuffer) => {
    for (let k = 0; k < ordinals.length; k++) writeOrganization(out, k);
    ordinals.length = 0;
    newestOf.length = 0;
    firstUrl.length = 0;
    lastUrl.length = 0;
    nextInBucket.length = 0;
    pooled = 0;
    byKey.clear();
  };

  const entry = (out: ByteBuffer, o: number) => {
    const url = c.url[o]!;
    const vendor = c.vendor[o]!;
    if (brands !== null) {
      if (newer(vendorNewest[vendor]!, c.lastUpdated[o]!)) vendorNewest[vendor] = c.lastUpdated[o]!;
    } else if (developerWritten[vendor] === 0) {
      // Every vendor of the export has its developer, also one whose URLs are all another's.
      developerWritten[vendor] = 1;
      item(out);
      out.utf8(developers[vendor]!);
    }
    if ((written[url >> 3]! & (1 << (url & 7))) === 0) {
      written[url >> 3]! |= 1 << (url & 7);
      // A brands bundle leaves out an Endpoint of unknown version, or a guess no probe has verified.
      if (plan !== null && !plan.inBundle(url)) return organizationOf(out, o, url, vendor);
      item(out);
      out.ascii(endpointUrl);
      endpointId(out, url);
      out.ascii('","resource":{"resourceType":"Endpoint","id":"');
      out.hex(hash, 0, 32);
      out.ascii('"');
      if (urlNewest !== null) lastUpdatedMeta(out, urlNewest[url]!);
      const environment = ENDPOINT_ENVIRONMENTS.indexOf(environmentCodeAt(data, o));
      out.copy(middles[c.fhirVersion[o]!]![c.fhirVersionBasis[o]!]![environment]![c.status[o]!]!);
      out.json(s.urls[url]!);
      out.ascii(ADDRESS_REPAIRS[urlEvidence[url]!]!);
      out.utf8(tails[vendor]!);
    }
    organizationOf(out, o, url, vendor);
  };

  /**
   * A brands bundle's developers, after every organization: each developer whose Endpoints
   * include some that no brand names, as the brand that names them (BrandPlan's developers, in
   * the order they were written); the others are no brand and are left out.
   */
  const writeDeveloperBrands = (out: ByteBuffer) => {
    if (plan === null) return;
    for (const [v, urls] of plan.developers) {
      const vendorId = s.vendorIds[v]!;
      item(out);
      out.utf8(
        `${organizationUrl}developer-${vendorId}","resource":{"resourceType":"Organization","id":"developer-${vendorId}"`,
      );
      lastUpdatedMeta(out, vendorNewest[v]!);
      out.utf8(`,"name":${developerName(vendorId)},"telecom":${page(vendorId) ?? ABSENT_WEBSITE},"endpoint":[`);
      for (const [i, url] of urls.entries()) {
        out.ascii(i === 0 ? '{"reference":"Endpoint/' : ',{"reference":"Endpoint/');
        endpointId(out, url);
        out.ascii('"}');
      }
      out.ascii("]}}");
    }
  };

  /** Adds entry o's URL to its organization in the current run (a new run when the vendor or name changes). */
  const organizationOf = (out: ByteBuffer, o: number, url: number, vendor: number) => {
    const name = c.organizationName[o]!;
    // A new run: another vendor, or a name that differs from the run's first beyond letter case.
    if (vendor !== runVendor || !sameName(name, runName)) {
      flush(out);
      runVendor = vendor;
      runName = name;
    }
    const key = organizationHash(c, o);
    const head = byKey.get(key);
    let k = head;
    while (k !== -1 && !sameOrganization(c, o, ordinals[k]!)) k = nextInBucket[k]!;
    const u = cell(url);
    if (k !== -1) {
      nextPool[lastUrl[k]!] = u;
      lastUrl[k] = u;
      if (newer(newestOf[k]!, c.lastUpdated[o]!)) newestOf[k] = c.lastUpdated[o]!;
    } else {
      k = ordinals.length;
      ordinals.push(o);
      newestOf.push(c.lastUpdated[o]!);
      firstUrl.push(u);
      lastUrl.push(u);
      nextInBucket.push(head);
      byKey.set(key, k);
    }
  };

  return {
    begin: (out) => {
      if (brands === null)
        out.utf8(
          `{"resourceType":"Bundle","type":"collection"${timestamp === null ? "" : `,"timestamp":"${timestamp}"`}`,
        );
      else {
        // The profile requires both; an empty dataset, never refreshed, is as of the epoch.
        const at = timestamp ?? new Date(0).toISOString();
        out.utf8(`{"resourceType":"Bundle","meta":{"lastUpdated":"${at}"},"type":"collection","timestamp":"${at}"`);
      }
    },
    write(all, from, to, out) {
      if (brands !== null && plan === null) plan = planBrands(data, brands.entries());
      for (let i = from; i < to; i++) entry(out, all[i]!);
    },
    end(out) {
      flush(out);
      writeDeveloperBrands(out);
      out.ascii(first ? "}" : "]}");
    },
  };
}
