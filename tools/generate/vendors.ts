import type { Audience } from "../../src/model/types";
import type { SmartKind } from "../fhir/capability-documents";
import type { ProfileSpec, Version } from "./capabilities";
import type { Rng } from "./prng";

export interface ListModel {
  /** vendor_lists.id is `${vendorId}-${suffix}`. */
  suffix: string;
  url: string;
  format: string;
  audience: Audience | null;
  fhirVersion: Version | null;
}

interface UrlShape {
  url: string;
  tenantId: string | null;
}

type UrlModel =
  | { kind: "pool"; entriesPerUrl: number; make: (rng: Rng, version: Version, audience: Audience | null) => UrlShape }
  | { kind: "shared"; urls: { url: string; version: Version; weight: number }[] };

type SmartModel = (rng: Rng, audience: Audience | null) => SmartKind;

/**
 * Vendor ids, names and list ids follow the project's registry (`db/vendors.json`) where the
 * vendor is there; the others are smaller real vendors with plausible lists.
 *
 * How one vendor publishes: its lists, how its URLs look, how many entries share a URL, which
 * FHIR versions and SMART flavours its servers run. Shares are relative sizes of the vendor in
 * the dataset; the first vendors hold most entries, as in the real directory.
 */
export interface VendorModel {
  id: string;
  name: string;
  share: number;
  endpointListUrl: string;
  oauthHost: string;
  lists: ListModel[];
  /** Version of a URL's server, by weight. */
  versions: [Version, number][];
  profiles: ProfileSpec[];
  /**
   * Either a pool of per-tenant URLs (`entriesPerUrl` on average, skewed so the first URLs
   * carry hundreds or thousands of entries) or a fixed set of URLs every practice shares.
   */
  urls: UrlModel;
  /** Chance that a URL carrying both audiences is listed in the patient and the provider list. */
  bothListsChance: number;
  npiRate: number;
  /** Share of entries named like health systems and hospitals rather than practices. */
  systemNameShare: number;
  smart: SmartModel;
}

const slugWords = [
  "mercy",
  "valley",
  "summit",
  "baptist",
  "northside",
  "harbor",
  "unity",
  "prairie",
  "coastal",
  "trinity",
  "st-lukes",
  "hope",
  "allina",
  "pioneer",
];
function slug(rng: Rng): string {
  return `${rng.pick(slugWords)}${rng.int(10000)}`;
}
function upperCode(rng: Rng, n: number): string {
  return rng.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ", n);
}
const uuid = (rng: Rng) => rng.uuid();
const digits = (n: number) => (rng: Rng) => rng.digits(n);

/** SMART flavours drawn by weight, whatever the list's audience. */
const weighted =
  (...weights: [SmartKind, number][]): SmartModel =>
  (rng) =>
    rng.weighted(weights);
const always =
  (kind: SmartKind): SmartModel =>
  () =>
    kind;
const SMART_BY_AUDIENCE: Record<Audience | "none", [SmartKind, number][]> = {
  patient: [
    ["patient", 0.7],
    ["both", 0.28],
    ["backend", 0.02],
  ],
  provider: [
    ["provider", 0.75],
    ["both", 0.23],
    ["backend", 0.02],
  ],
  none: [
    ["both", 0.5],
    ["patient", 0.3],
    ["provider", 0.15],
    ["backend", 0.05],
  ],
};
/** SMART flavours that follow the audience of the URL's list. */
const byListAudience: SmartModel = (rng, audience) => rng.weighted(SMART_BY_AUDIENCE[audience ?? "none"]);
/** The flavours of a list for no audience in particular, whatever the URL's list says. */
const mixedAudience: SmartModel = (rng) => rng.weighted(SMART_BY_AUDIENCE.none);

const versionPath: Record<Version, string> = { DSTU2: "DSTU2", STU3: "STU3", R4: "R4", R4B: "R4B", R5: "R5" };

/** A published list; most are FHIR Bundles for no single audience. */
function list(
  suffix: string,
  url: string,
  {
    version = null,
    audience = null,
    format = "fhir-bundle",
  }: Partial<{ version: Version | null; audience: Audience | null; format: string }> = {},
): ListModel {
  return { suffix, url, format, audience, fhirVersion: version };
}
/** Per-tenant URLs: `tenant` draws the tenant id, `url` writes it into the URL. */
function tenantPool(
  entriesPerUrl: number,
  tenant: (rng: Rng) => string,
  url: (tenant: string, version: Version, audience: Audience | null) => string,
): UrlModel {
  return {
    kind: "pool",
    entriesPerUrl,
    make: (rng, version, audience) => {
      const tenantId = tenant(rng);
      return { url: url(tenantId, version, audience), tenantId };
    },
  };
}
/** Per-customer hosts or paths that name no tenant id. */
function hostPool(entriesPerUrl: number, url: (rng: Rng, version: Version) => string): UrlModel {
  return { kind: "pool", entriesPerUrl, make: (rng, version) => ({ url: url(rng, version), tenantId: null }) };
}

type VendorSpec = Omit<VendorModel, "bothListsChance"> & Partial<Pick<VendorModel, "bothListsChance">>;
const vendor = (spec: VendorSpec): VendorModel => ({ bothListsChance: 0, ...spec });

export const VENDORS: VendorModel[] = [
  vendor({
    id: "epic",
    name: "Epic Systems",
    share: 0.27,
    endpointListUrl: "https://open.epic.com/MyApps/Endpoints",
    oauthHost: "fhir.epic.com/interconnect-fhir-oauth",
    lists: [
      list("r4", "https://open.epic.com/Endpoints/R4", { version: "R4", audience: "patient" }),
      list("stu3", "https://open.epic.com/Endpoints/STU3", { version: "STU3", audience: "patient" }),
      list("dstu2", "https://open.epic.com/Endpoints/DSTU2", { version: "DSTU2", audience: "patient" }),
    ],
    versions: [
      ["R4", 0.82],
      ["STU3", 0.06],
      ["DSTU2", 0.12],
    ],
    profiles: [
      { version: "R4", softwareName: "Epic", softwareVersion: "November 2025", extra: [30, 70], dropCore: 0.05 },
      { version: "STU3", softwareName: "Epic", softwareVersion: "August 2019", extra: [5, 20], dropCore: 0.1 },
      { version: "DSTU2", softwareName: "Epic", softwareVersion: "May 2018", extra: [0, 10], dropCore: 0.1 },
    ],
    urls: hostPool(20, (rng, version) => {
      const host = rng.chance(0.5) ? `epicproxy.et${rng.digits(4)}.epichosted.com` : `fhir.${slug(rng)}.org`;
      return `https://${host}/FHIRProxy/api/FHIR/${versionPath[version]}`;
    }),
    npiRate: 0.2,
    systemNameShare: 0.55,
    smart: weighted(["patient", 0.55], ["both", 0.43], ["backend", 0.02]),
  }),
  vendor({
    id: "oracle-health",
    name: "Oracle Health",
    share: 0.16,
    endpointListUrl: "https://github.com/oracle-samples/ignite-endpoints",
    oauthHost: "authorization.cerner.com/tenants/ec2458f2-1e24-41c8-b71b-0e701af7583d/protocols",
    lists: [
      list(
        "millennium-patient-r4",
        "https://raw.githubusercontent.com/oracle-samples/ignite-endpoints/main/oracle_health_fhir_endpoints/millennium_patient_r4_endpoints.json",
        { version: "R4", audience: "patient" },
      ),
      list(
        "millennium-provider-r4",
        "https://raw.githubusercontent.com/oracle-samples/ignite-endpoints/main/oracle_health_fhir_endpoints/millennium_provider_r4_endpoints.json",
        { version: "R4", audience: "provider" },
      ),
      list(
        "millennium-patient-dstu2",
        "https://raw.githubusercontent.com/oracle-samples/ignite-endpoints/main/millennium_patient_dstu2_endpoints.json",
        { version: "DSTU2", audience: "patient" },
      ),
    ],
    versions: [
      ["R4", 0.9],
      ["DSTU2", 0.1],
    ],
    profiles: [
      { version: "R4", softwareName: "Millennium", softwareVersion: "2025.01", extra: [20, 60], dropCore: 0.05 },
      { version: "DSTU2", softwareName: "Millennium", softwareVersion: "2018.05", extra: [0, 8], dropCore: 0.15 },
    ],
    urls: tenantPool(8, uuid, (tenant, version, audience) => {
      const host = audience === "provider" ? "fhir-ehr.cerner.com" : "fhir-myrecord.cerner.com";
      return `https://${host}/${version === "DSTU2" ? "dstu2" : "r4"}/${tenant}`;
    }),
    npiRate: 0.6,
    systemNameShare: 0.5,
    smart: byListAudience,
  }),
  vendor({
    id: "athenahealth",
    name: "athenahealth",
    share: 0.15,
    endpointListUrl: "https://docs.athenahealth.com/api/guides/base-fhir-urls",
    oauthHost: "api.platform.athenahealth.com/oauth2/v1",
    lists: [
      list("r4", "https://service-base-urls.api.fhir.athena.io/athena-fhir-service-base-urls.json", { version: "R4" }),
    ],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "athenaOne", softwareVersion: "25.11", extra: [10, 25], dropCore: 0 }],
    urls: {
      kind: "shared",
      urls: [
        { url: "https://api.platform.athenahealth.com/fhir/r4", version: "R4", weight: 0.985 },
        { url: "https://api.preview.platform.athenahealth.com/fhir/r4", version: "R4", weight: 0.015 },
      ],
    },
    npiRate: 0.35,
    systemNameShare: 0.05,
    smart: always("both"),
  }),
  vendor({
    id: "eclinicalworks",
    name: "eClinicalWorks",
    share: 0.1,
    endpointListUrl: "https://fhir.eclinicalworks.com/ecwopendev",
    oauthHost: "oauthserver.eclinicalworks.com/oauth",
    lists: [list("r4", "https://fhir.eclinicalworks.com/ecwopendev/external/practiceList", { version: "R4" })],
    versions: [["R4", 1]],
    profiles: [
      { version: "R4", softwareName: "eClinicalWorks FHIR", softwareVersion: "12.0.3", extra: [0, 12], dropCore: 0.1 },
    ],
    urls: tenantPool(
      4,
      (rng) => upperCode(rng, 6),
      (code) => `https://fhir4.eclinicalworks.com/fhir/r4/${code}`,
    ),
    npiRate: 0.55,
    systemNameShare: 0.03,
    smart: weighted(["patient", 0.7], ["both", 0.3]),
  }),
  vendor({
    id: "nextgen",
    name: "NextGen Healthcare",
    share: 0.08,
    endpointListUrl: "https://www.nextgen.com/api/practice-search",
    oauthHost: "fhir.nextgen.com/nge/prod/patient-oauth",
    lists: [list("practices", "https://www.nextgen.com/api/practice-search")],
    versions: [["R4", 1]],
    profiles: [
      { version: "R4", softwareName: "NextGen Enterprise EHR", softwareVersion: "8.4", extra: [15, 35], dropCore: 0 },
      {
        version: "DSTU2",
        softwareName: "NextGen Enterprise EHR",
        softwareVersion: "6.2021",
        extra: [0, 5],
        dropCore: 0,
      },
    ],
    urls: {
      kind: "shared",
      urls: [
        { url: "https://fhir.nextgen.com/nge/prod/fhir-api-r4/fhir/r4", version: "R4", weight: 0.72 },
        { url: "https://fhir.meditouchehr.com/api/fhir/r4", version: "R4", weight: 0.18 },
        { url: "https://fhir.nextgen.com/nge/prod/fhir-api-dstu2/fhir/dstu2", version: "DSTU2", weight: 0.1 },
      ],
    },
    npiRate: 0.3,
    systemNameShare: 0.03,
    smart: always("both"),
  }),
  vendor({
    id: "meditech",
    name: "MEDITECH",
    share: 0.05,
    endpointListUrl: "https://fhir.meditech.com/explorer/endpoints",
    oauthHost: "greenfield-fhir.meditech.com/oauth",
    lists: [list("endpoints", "https://fhir.meditech.com/explorer/endpoints")],
    versions: [
      ["R4", 0.7],
      ["DSTU2", 0.3],
    ],
    profiles: [
      { version: "R4", softwareName: "MEDITECH Expanse", softwareVersion: "2.2", extra: [5, 20], dropCore: 0.1 },
      { version: "DSTU2", softwareName: "MEDITECH 6.x", softwareVersion: "6.16", extra: [0, 4], dropCore: 0.3 },
    ],
    urls: hostPool(6, (rng, version) => {
      const host = `${slug(rng)}-fhir.meditech.cloud`;
      return version === "DSTU2" ? `https://${host}/v1/argonaut/v1` : `https://${host}/v2/uscore/R4`;
    }),
    npiRate: 0.15,
    systemNameShare: 0.7,
    smart: weighted(["patient", 0.8], ["provider", 0.2]),
  }),
  vendor({
    id: "veradigm",
    name: "Veradigm",
    share: 0.04,
    endpointListUrl: "https://open.platform.veradigm.com/fhirendpoints",
    oauthHost: "open.allscripts.com/oauth",
    lists: [
      list("r4", "https://open.platform.veradigm.com/fhirendpoints/download/R4?endpointFilter=All", { version: "R4" }),
      list("dstu2", "https://open.platform.veradigm.com/fhirendpoints/download/DSTU2", { version: "DSTU2" }),
    ],
    versions: [
      ["R4", 0.85],
      ["DSTU2", 0.15],
    ],
    profiles: [
      { version: "R4", softwareName: "Veradigm FHIR Server", softwareVersion: "24.1", extra: [5, 30], dropCore: 0.05 },
      {
        version: "DSTU2",
        softwareName: "Veradigm FHIR Server",
        softwareVersion: "19.4",
        extra: [0, 6],
        dropCore: 0.15,
      },
    ],
    urls: tenantPool(6, digits(8), (id) => `https://fhir.fhirpoint.open.allscripts.com/fhirroute/fhir/${id}`),
    npiRate: 0.4,
    systemNameShare: 0.2,
    smart: weighted(["both", 0.6], ["patient", 0.4]),
  }),
  vendor({
    id: "greenway",
    name: "Greenway Health",
    share: 0.03,
    endpointListUrl: "https://developers.greenwayhealth.com/developer-platform/page/fhir-base-urls",
    oauthHost: "authz.fhirprod.aws.greenwayhealth.com",
    lists: [
      list("r4", "https://developers.greenwayhealth.com/developer-platform/page/fhir-base-urls", { version: "R4" }),
    ],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "Intergy", softwareVersion: "12.10", extra: [0, 15], dropCore: 0.2 }],
    urls: tenantPool(
      4,
      (rng) => `2.16.840.1.113883.3.${rng.int(9000) + 1000}.${rng.int(900) + 100}`,
      (oid, version) => `https://fhir-api.fhirprod.aws.greenwayhealth.com/fhir/${versionPath[version]}/${oid}`,
    ),
    npiRate: 0.3,
    systemNameShare: 0.05,
    smart: weighted(["patient", 0.5], ["both", 0.5]),
  }),
  vendor({
    id: "practice-fusion",
    name: "Practice Fusion",
    share: 0.025,
    endpointListUrl: "https://www.practicefusion.com/assets/static_files/ServiceBaseURLs.json",
    oauthHost: "api.practicefusion.com/ehr/oauth2",
    lists: [list("r4", "https://www.practicefusion.com/assets/static_files/ServiceBaseURLs.json", { version: "R4" })],
    versions: [["R4", 1]],
    profiles: [
      { version: "R4", softwareName: "Practice Fusion", softwareVersion: "4.2", extra: [0, 6], dropCore: 0.3 },
    ],
    urls: tenantPool(2, uuid, (tenant) => `https://api.practicefusion.com/fhir/r4/v1/${tenant}`),
    npiRate: 0.5,
    systemNameShare: 0,
    smart: always("patient"),
  }),
  vendor({
    id: "medhost",
    name: "MEDHOST",
    share: 0.012,
    endpointListUrl: "https://api.mhdi10xasayd.com/medhost-developer-composition/v1/fhir-base-urls.json",
    oauthHost: "api.medhost.com/oauth2",
    lists: [
      list("r4", "https://api.mhdi10xasayd.com/medhost-developer-composition/v1/fhir-base-urls.json", {
        format: "lantern-json",
      }),
    ],
    versions: [["R4", 1]],
    profiles: [
      { version: "R4", softwareName: "MEDHOST Enterprise", softwareVersion: "2024.2", extra: [0, 10], dropCore: 0.2 },
    ],
    urls: tenantPool(2.5, uuid, (tenant) => `https://api.medhost.com/fhir/tenant/${tenant}/r4`),
    npiRate: 0.4,
    systemNameShare: 0.8,
    smart: byListAudience,
  }),
  vendor({
    id: "drchrono",
    name: "DrChrono",
    share: 0.01,
    endpointListUrl: "https://drchrono-fhirpresentation.everhealthsoftware.com/fhir/r4/endpoints",
    oauthHost: "drchrono.com/o",
    lists: [
      list("r4", "https://drchrono-fhirpresentation.everhealthsoftware.com/fhir/r4/endpoints", { version: "R4" }),
    ],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "DrChrono FHIR", softwareVersion: "3.1", extra: [0, 5], dropCore: 0.2 }],
    urls: tenantPool(1.5, digits(6), (id) => `https://drchrono-fhir.everhealthsoftware.com/fhir/${id}`),
    npiRate: 0.6,
    systemNameShare: 0,
    smart: always("patient"),
  }),
  vendor({
    id: "cpsi",
    name: "TruBridge (CPSI)",
    share: 0.008,
    endpointListUrl: "https://fhir.cpsinet.com/endpoints",
    oauthHost: "fhir.cpsinet.com/oauth",
    lists: [list("endpoints", "https://fhir.cpsinet.com/endpoints", { format: "csv" })],
    versions: [
      ["R4", 0.7],
      ["DSTU2", 0.3],
    ],
    profiles: [
      { version: "R4", softwareName: "Thrive", softwareVersion: "22", extra: [0, 8], dropCore: 0.2 },
      { version: "DSTU2", softwareName: "Evident", softwareVersion: "19", extra: [0, 2], dropCore: 0.3 },
    ],
    urls: hostPool(3, (rng) => `https://fhir.cpsinet.com/${slug(rng)}/fhir`),
    npiRate: 0.3,
    systemNameShare: 0.8,
    smart: mixedAudience,
  }),
  vendor({
    id: "modmed",
    name: "Modernizing Medicine",
    share: 0.008,
    endpointListUrl: "https://portal.ema-api.com/endpoints",
    oauthHost: "portal.ema-api.com/oauth",
    lists: [list("endpoints", "https://portal.ema-api.com/endpoints", { audience: "provider" })],
    versions: [
      ["R4", 0.5],
      ["R4B", 0.5],
    ],
    profiles: [
      { version: "R4", softwareName: "EMA", softwareVersion: "7.12", extra: [0, 10], dropCore: 0.1 },
      { version: "R4B", softwareName: "EMA", softwareVersion: "8.0", extra: [5, 20], dropCore: 0.1 },
    ],
    urls: tenantPool(2, slug, (firm) => `https://${firm}.ema-api.com/ema/fhir/v2`),
    npiRate: 0.5,
    systemNameShare: 0,
    smart: weighted(["provider", 0.6], ["both", 0.4]),
  }),
  vendor({
    id: "netsmart",
    name: "Netsmart",
    share: 0.006,
    endpointListUrl: "https://fhir.netsmartcloud.com/endpoints",
    oauthHost: "oauth.netsmartcloud.com",
    lists: [list("endpoints", "https://fhir.netsmartcloud.com/endpoints", { version: "R4", format: "csv" })],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "myAvatar", softwareVersion: "2024", extra: [0, 6], dropCore: 0.4 }],
    urls: hostPool(3, (rng) => `https://fhir.netsmartcloud.com/${slug(rng)}/fhir/r4`),
    npiRate: 0.2,
    systemNameShare: 0.3,
    smart: mixedAudience,
  }),
  vendor({
    id: "elation",
    name: "Elation Health",
    share: 0.006,
    endpointListUrl: "https://docs.elationhealth.com/reference/fhir-endpoints",
    oauthHost: "app.elationemr.com/api/2.0/oauth2",
    lists: [
      list("endpoints", "https://docs.elationhealth.com/reference/fhir-endpoints", {
        audience: "patient",
        format: "json",
      }),
    ],
    versions: [["R4B", 1]],
    profiles: [{ version: "R4B", softwareName: "Elation FHIR", softwareVersion: "2.4", extra: [10, 30], dropCore: 0 }],
    urls: { kind: "shared", urls: [{ url: "https://fhir.elationemr.com/fhir", version: "R4B", weight: 1 }] },
    npiRate: 0.5,
    systemNameShare: 0,
    smart: always("patient"),
  }),
  vendor({
    id: "tebra",
    name: "Tebra",
    share: 0.005,
    endpointListUrl: "https://fhir.prd.cloud.tebra.com/fhir-endpoints",
    oauthHost: "fhir.prd.cloud.tebra.com/oauth",
    lists: [
      list("endpoints", "https://fhir.prd.cloud.tebra.com/fhir-endpoints", { version: "R4", audience: "patient" }),
    ],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "Tebra EHR", softwareVersion: "5.3", extra: [0, 6], dropCore: 0.2 }],
    urls: tenantPool(1.5, uuid, (tenant) => `https://fhir.prd.cloud.tebra.com/fhirapi/${tenant}/R4`),
    npiRate: 0.6,
    systemNameShare: 0,
    smart: always("patient"),
  }),
  vendor({
    id: "advancedmd",
    name: "AdvancedMD",
    share: 0.005,
    endpointListUrl: "https://providerapi.advancedmd.com/v1/r4/endpoints",
    oauthHost: "providerapi.advancedmd.com/v1/oauth2",
    lists: [
      list("patient-r4", "https://providerapi.advancedmd.com/v1/r4/endpoints?audience=patient", {
        version: "R4",
        audience: "patient",
      }),
      list("provider-r4", "https://providerapi.advancedmd.com/v1/r4/endpoints?audience=provider", {
        version: "R4",
        audience: "provider",
      }),
    ],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "AdvancedMD", softwareVersion: "25.2", extra: [0, 8], dropCore: 0.1 }],
    urls: tenantPool(1.5, digits(6), (office) => `https://providerapi.advancedmd.com/v1/r4/${office}`),
    bothListsChance: 0.6,
    npiRate: 0.5,
    systemNameShare: 0,
    smart: mixedAudience,
  }),
  vendor({
    id: "carecloud",
    name: "CareCloud",
    share: 0.004,
    endpointListUrl: "https://fhirapi.carecloud.com/endpoints",
    oauthHost: "fhirapi.carecloud.com/oauth2",
    lists: [list("endpoints", "https://fhirapi.carecloud.com/endpoints", { audience: "patient", format: "json" })],
    versions: [
      ["R5", 0.6],
      ["R4", 0.4],
    ],
    profiles: [
      { version: "R5", softwareName: "CareCloud Central", softwareVersion: "5.0.1", extra: [20, 60], dropCore: 0.05 },
      { version: "R4", softwareName: "CareCloud Central", softwareVersion: "4.9", extra: [5, 20], dropCore: 0.05 },
    ],
    urls: tenantPool(
      2,
      uuid,
      (tenant, version) => `https://fhirapi.carecloud.com/${tenant}/fhir/${versionPath[version]}`,
    ),
    npiRate: 0.5,
    systemNameShare: 0,
    smart: always("patient"),
  }),
  vendor({
    id: "nextech",
    name: "Nextech",
    share: 0.004,
    endpointListUrl: "https://www.nextech.com/developers-portal",
    oauthHost: "select.nextech-api.com/oauth",
    lists: [list("r4", "https://www.nextech.com/hubfs/Nextech%20FHIR%20Base%20URL.csv", { format: "csv" })],
    versions: [["R4", 1]],
    profiles: [
      { version: "R4", softwareName: "Nextech Select", softwareVersion: "16.3", extra: [0, 10], dropCore: 0.1 },
    ],
    urls: tenantPool(1.5, uuid, (tenant) => `https://select.nextech-api.com/api/fhir/${tenant}`),
    npiRate: 0.5,
    systemNameShare: 0,
    smart: mixedAudience,
  }),
  vendor({
    id: "azalea",
    name: "Azalea Health",
    share: 0.003,
    endpointListUrl: "https://app.azaleahealth.com/fhir/endpoints",
    oauthHost: "app.azaleahealth.com/oauth2",
    lists: [list("endpoints", "https://app.azaleahealth.com/fhir/endpoints", { version: "R4", format: "json" })],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "Azalea EHR", softwareVersion: "11.2", extra: [0, 6], dropCore: 0.2 }],
    urls: tenantPool(2, digits(5), (id) => `https://app.azaleahealth.com/fhir/R4/${id}`),
    npiRate: 0.4,
    systemNameShare: 0.5,
    smart: mixedAudience,
  }),
  vendor({
    id: "canvas",
    name: "Canvas Medical",
    share: 0.003,
    endpointListUrl: "https://docs.canvasmedical.com/api/fhir-endpoints",
    oauthHost: "canvasmedical.com/auth",
    lists: [list("endpoints", "https://docs.canvasmedical.com/api/fhir-endpoints", { format: "json" })],
    versions: [
      ["R4", 0.4],
      ["R4B", 0.3],
      ["R5", 0.3],
    ],
    profiles: [
      { version: "R4", softwareName: "Canvas", softwareVersion: "2025.3", extra: [5, 15], dropCore: 0.05 },
      { version: "R4B", softwareName: "Canvas", softwareVersion: "2025.3", extra: [5, 15], dropCore: 0.05 },
      { version: "R5", softwareName: "Canvas", softwareVersion: "2025.9", extra: [10, 40], dropCore: 0.05 },
    ],
    urls: tenantPool(1.5, slug, (customer) => `https://fumage-${customer}.canvasmedical.com`),
    npiRate: 0.5,
    systemNameShare: 0,
    smart: mixedAudience,
  }),
];
