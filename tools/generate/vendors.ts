import type { Audience } from "../../src/model/types";
import type { ProfileSpec, SmartKind, Version } from "./capabilities";
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
  urls:
    | { kind: "pool"; entriesPerUrl: number; make: (rng: Rng, version: Version, audience: Audience | null) => UrlShape }
    | { kind: "shared"; urls: { url: string; version: Version; weight: number }[] };
  /** Chance that a URL carrying both audiences is listed in the patient and the provider list. */
  bothListsChance: number;
  npiRate: number;
  /** Share of entries named like health systems and hospitals rather than practices. */
  systemNameShare: number;
  smart: (rng: Rng, audience: Audience | null) => SmartKind;
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
function pickSmart(rng: Rng, weights: [SmartKind, number][]): SmartKind {
  let r = rng.next() * weights.reduce((sum, [, w]) => sum + w, 0);
  for (const [kind, w] of weights) {
    r -= w;
    if (r < 0) return kind;
  }
  return weights[weights.length - 1]![0];
}
function byAudience(audience: Audience | null, rng: Rng): SmartKind {
  if (audience === "patient")
    return pickSmart(rng, [
      ["patient", 0.7],
      ["both", 0.28],
      ["backend", 0.02],
    ]);
  if (audience === "provider")
    return pickSmart(rng, [
      ["provider", 0.75],
      ["both", 0.23],
      ["backend", 0.02],
    ]);
  return pickSmart(rng, [
    ["both", 0.5],
    ["patient", 0.3],
    ["provider", 0.15],
    ["backend", 0.05],
  ]);
}
const versionPath: Record<Version, string> = { DSTU2: "DSTU2", STU3: "STU3", R4: "R4", R4B: "R4B", R5: "R5" };

export const VENDORS: VendorModel[] = [
  {
    id: "epic",
    name: "Epic Systems",
    share: 0.27,
    endpointListUrl: "https://open.epic.com/MyApps/Endpoints",
    oauthHost: "fhir.epic.com/interconnect-fhir-oauth",
    lists: [
      {
        suffix: "r4",
        url: "https://open.epic.com/Endpoints/R4",
        format: "fhir-bundle",
        audience: "patient",
        fhirVersion: "R4",
      },
      {
        suffix: "stu3",
        url: "https://open.epic.com/Endpoints/STU3",
        format: "fhir-bundle",
        audience: "patient",
        fhirVersion: "STU3",
      },
      {
        suffix: "dstu2",
        url: "https://open.epic.com/Endpoints/DSTU2",
        format: "fhir-bundle",
        audience: "patient",
        fhirVersion: "DSTU2",
      },
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
    urls: {
      kind: "pool",
      entriesPerUrl: 20,
      make: (rng, version) => {
        const host = rng.chance(0.5) ? `epicproxy.et${rng.digits(4)}.epichosted.com` : `fhir.${slug(rng)}.org`;
        return { url: `https://${host}/FHIRProxy/api/FHIR/${versionPath[version]}`, tenantId: null };
      },
    },
    bothListsChance: 0,
    npiRate: 0.2,
    systemNameShare: 0.55,
    smart: (rng) =>
      pickSmart(rng, [
        ["patient", 0.55],
        ["both", 0.43],
        ["backend", 0.02],
      ]),
  },
  {
    id: "oracle-health",
    name: "Oracle Health",
    share: 0.16,
    endpointListUrl: "https://github.com/oracle-samples/ignite-endpoints",
    oauthHost: "authorization.cerner.com/tenants/ec2458f2-1e24-41c8-b71b-0e701af7583d/protocols",
    lists: [
      {
        suffix: "millennium-patient-r4",
        url: "https://raw.githubusercontent.com/oracle-samples/ignite-endpoints/main/oracle_health_fhir_endpoints/millennium_patient_r4_endpoints.json",
        format: "fhir-bundle",
        audience: "patient",
        fhirVersion: "R4",
      },
      {
        suffix: "millennium-provider-r4",
        url: "https://raw.githubusercontent.com/oracle-samples/ignite-endpoints/main/oracle_health_fhir_endpoints/millennium_provider_r4_endpoints.json",
        format: "fhir-bundle",
        audience: "provider",
        fhirVersion: "R4",
      },
      {
        suffix: "millennium-patient-dstu2",
        url: "https://raw.githubusercontent.com/oracle-samples/ignite-endpoints/main/millennium_patient_dstu2_endpoints.json",
        format: "fhir-bundle",
        audience: "patient",
        fhirVersion: "DSTU2",
      },
    ],
    versions: [
      ["R4", 0.9],
      ["DSTU2", 0.1],
    ],
    profiles: [
      { version: "R4", softwareName: "Millennium", softwareVersion: "2025.01", extra: [20, 60], dropCore: 0.05 },
      { version: "DSTU2", softwareName: "Millennium", softwareVersion: "2018.05", extra: [0, 8], dropCore: 0.15 },
    ],
    urls: {
      kind: "pool",
      entriesPerUrl: 8,
      make: (rng, version, audience) => {
        const tenant = rng.uuid();
        const host = audience === "provider" ? "fhir-ehr.cerner.com" : "fhir-myrecord.cerner.com";
        return { url: `https://${host}/${version === "DSTU2" ? "dstu2" : "r4"}/${tenant}`, tenantId: tenant };
      },
    },
    bothListsChance: 0,
    npiRate: 0.6,
    systemNameShare: 0.5,
    smart: (rng, audience) => byAudience(audience, rng),
  },
  {
    id: "athenahealth",
    name: "athenahealth",
    share: 0.15,
    endpointListUrl: "https://docs.athenahealth.com/api/guides/base-fhir-urls",
    oauthHost: "api.platform.athenahealth.com/oauth2/v1",
    lists: [
      {
        suffix: "r4",
        url: "https://service-base-urls.api.fhir.athena.io/athena-fhir-service-base-urls.json",
        format: "fhir-bundle",
        audience: null,
        fhirVersion: "R4",
      },
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
    bothListsChance: 0,
    npiRate: 0.35,
    systemNameShare: 0.05,
    smart: () => "both",
  },
  {
    id: "eclinicalworks",
    name: "eClinicalWorks",
    share: 0.1,
    endpointListUrl: "https://fhir.eclinicalworks.com/ecwopendev",
    oauthHost: "oauthserver.eclinicalworks.com/oauth",
    lists: [
      {
        suffix: "r4",
        url: "https://fhir.eclinicalworks.com/ecwopendev/external/practiceList",
        format: "fhir-bundle",
        audience: null,
        fhirVersion: "R4",
      },
    ],
    versions: [["R4", 1]],
    profiles: [
      { version: "R4", softwareName: "eClinicalWorks FHIR", softwareVersion: "12.0.3", extra: [0, 12], dropCore: 0.1 },
    ],
    urls: {
      kind: "pool",
      entriesPerUrl: 4,
      make: (rng) => {
        const code = upperCode(rng, 6);
        return { url: `https://fhir4.eclinicalworks.com/fhir/r4/${code}`, tenantId: code };
      },
    },
    bothListsChance: 0,
    npiRate: 0.55,
    systemNameShare: 0.03,
    smart: (rng) =>
      pickSmart(rng, [
        ["patient", 0.7],
        ["both", 0.3],
      ]),
  },
  {
    id: "nextgen",
    name: "NextGen Healthcare",
    share: 0.08,
    endpointListUrl: "https://www.nextgen.com/api/practice-search",
    oauthHost: "fhir.nextgen.com/nge/prod/patient-oauth",
    lists: [
      {
        suffix: "practices",
        url: "https://www.nextgen.com/api/practice-search",
        format: "fhir-bundle",
        audience: null,
        fhirVersion: null,
      },
    ],
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
    bothListsChance: 0,
    npiRate: 0.3,
    systemNameShare: 0.03,
    smart: () => "both",
  },
  {
    id: "meditech",
    name: "MEDITECH",
    share: 0.05,
    endpointListUrl: "https://fhir.meditech.com/explorer/endpoints",
    oauthHost: "greenfield-fhir.meditech.com/oauth",
    lists: [
      {
        suffix: "endpoints",
        url: "https://fhir.meditech.com/explorer/endpoints",
        format: "fhir-bundle",
        audience: null,
        fhirVersion: null,
      },
    ],
    versions: [
      ["R4", 0.7],
      ["DSTU2", 0.3],
    ],
    profiles: [
      { version: "R4", softwareName: "MEDITECH Expanse", softwareVersion: "2.2", extra: [5, 20], dropCore: 0.1 },
      { version: "DSTU2", softwareName: "MEDITECH 6.x", softwareVersion: "6.16", extra: [0, 4], dropCore: 0.3 },
    ],
    urls: {
      kind: "pool",
      entriesPerUrl: 6,
      make: (rng, version) => {
        const host = `${slug(rng)}-fhir.meditech.cloud`;
        return {
          url: version === "DSTU2" ? `https://${host}/v1/argonaut/v1` : `https://${host}/v2/uscore/R4`,
          tenantId: null,
        };
      },
    },
    bothListsChance: 0,
    npiRate: 0.15,
    systemNameShare: 0.7,
    smart: (rng) =>
      pickSmart(rng, [
        ["patient", 0.8],
        ["provider", 0.2],
      ]),
  },
  {
    id: "veradigm",
    name: "Veradigm",
    share: 0.04,
    endpointListUrl: "https://open.platform.veradigm.com/fhirendpoints",
    oauthHost: "open.allscripts.com/oauth",
    lists: [
      {
        suffix: "r4",
        url: "https://open.platform.veradigm.com/fhirendpoints/download/R4?endpointFilter=All",
        format: "fhir-bundle",
        audience: null,
        fhirVersion: "R4",
      },
      {
        suffix: "dstu2",
        url: "https://open.platform.veradigm.com/fhirendpoints/download/DSTU2",
        format: "fhir-bundle",
        audience: null,
        fhirVersion: "DSTU2",
      },
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
    urls: {
      kind: "pool",
      entriesPerUrl: 6,
      make: (rng) => {
        const id = rng.digits(8);
        return { url: `https://fhir.fhirpoint.open.allscripts.com/fhirroute/fhir/${id}`, tenantId: id };
      },
    },
    bothListsChance: 0,
    npiRate: 0.4,
    systemNameShare: 0.2,
    smart: (rng) =>
      pickSmart(rng, [
        ["both", 0.6],
        ["patient", 0.4],
      ]),
  },
  {
    id: "greenway",
    name: "Greenway Health",
    share: 0.03,
    endpointListUrl: "https://developers.greenwayhealth.com/developer-platform/page/fhir-base-urls",
    oauthHost: "authz.fhirprod.aws.greenwayhealth.com",
    lists: [
      {
        suffix: "r4",
        url: "https://developers.greenwayhealth.com/developer-platform/page/fhir-base-urls",
        format: "fhir-bundle",
        audience: null,
        fhirVersion: "R4",
      },
    ],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "Intergy", softwareVersion: "12.10", extra: [0, 15], dropCore: 0.2 }],
    urls: {
      kind: "pool",
      entriesPerUrl: 4,
      make: (rng, version) => {
        const oid = `2.16.840.1.113883.3.${rng.int(9000) + 1000}.${rng.int(900) + 100}`;
        return {
          url: `https://fhir-api.fhirprod.aws.greenwayhealth.com/fhir/${versionPath[version]}/${oid}`,
          tenantId: oid,
        };
      },
    },
    bothListsChance: 0,
    npiRate: 0.3,
    systemNameShare: 0.05,
    smart: (rng) =>
      pickSmart(rng, [
        ["patient", 0.5],
        ["both", 0.5],
      ]),
  },
  {
    id: "practice-fusion",
    name: "Practice Fusion",
    share: 0.025,
    endpointListUrl: "https://www.practicefusion.com/assets/static_files/ServiceBaseURLs.json",
    oauthHost: "api.practicefusion.com/ehr/oauth2",
    lists: [
      {
        suffix: "r4",
        url: "https://www.practicefusion.com/assets/static_files/ServiceBaseURLs.json",
        format: "fhir-bundle",
        audience: null,
        fhirVersion: "R4",
      },
    ],
    versions: [["R4", 1]],
    profiles: [
      { version: "R4", softwareName: "Practice Fusion", softwareVersion: "4.2", extra: [0, 6], dropCore: 0.3 },
    ],
    urls: {
      kind: "pool",
      entriesPerUrl: 2,
      make: (rng) => {
        const tenant = rng.uuid();
        return { url: `https://api.practicefusion.com/fhir/r4/v1/${tenant}`, tenantId: tenant };
      },
    },
    bothListsChance: 0,
    npiRate: 0.5,
    systemNameShare: 0,
    smart: () => "patient",
  },
  {
    id: "medhost",
    name: "MEDHOST",
    share: 0.012,
    endpointListUrl: "https://api.mhdi10xasayd.com/medhost-developer-composition/v1/fhir-base-urls.json",
    oauthHost: "api.medhost.com/oauth2",
    lists: [
      {
        suffix: "r4",
        url: "https://api.mhdi10xasayd.com/medhost-developer-composition/v1/fhir-base-urls.json",
        format: "lantern-json",
        audience: null,
        fhirVersion: null,
      },
    ],
    versions: [["R4", 1]],
    profiles: [
      { version: "R4", softwareName: "MEDHOST Enterprise", softwareVersion: "2024.2", extra: [0, 10], dropCore: 0.2 },
    ],
    urls: {
      kind: "pool",
      entriesPerUrl: 2.5,
      make: (rng) => {
        const tenant = rng.uuid();
        return { url: `https://api.medhost.com/fhir/tenant/${tenant}/r4`, tenantId: tenant };
      },
    },
    bothListsChance: 0,
    npiRate: 0.4,
    systemNameShare: 0.8,
    smart: (rng, audience) => byAudience(audience, rng),
  },
  {
    id: "drchrono",
    name: "DrChrono",
    share: 0.01,
    endpointListUrl: "https://drchrono-fhirpresentation.everhealthsoftware.com/fhir/r4/endpoints",
    oauthHost: "drchrono.com/o",
    lists: [
      {
        suffix: "r4",
        url: "https://drchrono-fhirpresentation.everhealthsoftware.com/fhir/r4/endpoints",
        format: "fhir-bundle",
        audience: null,
        fhirVersion: "R4",
      },
    ],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "DrChrono FHIR", softwareVersion: "3.1", extra: [0, 5], dropCore: 0.2 }],
    urls: {
      kind: "pool",
      entriesPerUrl: 1.5,
      make: (rng) => {
        const id = rng.digits(6);
        return { url: `https://drchrono-fhir.everhealthsoftware.com/fhir/${id}`, tenantId: id };
      },
    },
    bothListsChance: 0,
    npiRate: 0.6,
    systemNameShare: 0,
    smart: () => "patient",
  },
  {
    id: "cpsi",
    name: "TruBridge (CPSI)",
    share: 0.008,
    endpointListUrl: "https://fhir.cpsinet.com/endpoints",
    oauthHost: "fhir.cpsinet.com/oauth",
    lists: [
      {
        suffix: "endpoints",
        url: "https://fhir.cpsinet.com/endpoints",
        format: "csv",
        audience: null,
        fhirVersion: null,
      },
    ],
    versions: [
      ["R4", 0.7],
      ["DSTU2", 0.3],
    ],
    profiles: [
      { version: "R4", softwareName: "Thrive", softwareVersion: "22", extra: [0, 8], dropCore: 0.2 },
      { version: "DSTU2", softwareName: "Evident", softwareVersion: "19", extra: [0, 2], dropCore: 0.3 },
    ],
    urls: {
      kind: "pool",
      entriesPerUrl: 3,
      make: (rng) => ({ url: `https://fhir.cpsinet.com/${slug(rng)}/fhir`, tenantId: null }),
    },
    bothListsChance: 0,
    npiRate: 0.3,
    systemNameShare: 0.8,
    smart: (rng) => byAudience(null, rng),
  },
  {
    id: "modmed",
    name: "Modernizing Medicine",
    share: 0.008,
    endpointListUrl: "https://portal.ema-api.com/endpoints",
    oauthHost: "portal.ema-api.com/oauth",
    lists: [
      {
        suffix: "endpoints",
        url: "https://portal.ema-api.com/endpoints",
        format: "fhir-bundle",
        audience: "provider",
        fhirVersion: null,
      },
    ],
    versions: [
      ["R4", 0.5],
      ["R4B", 0.5],
    ],
    profiles: [
      { version: "R4", softwareName: "EMA", softwareVersion: "7.12", extra: [0, 10], dropCore: 0.1 },
      { version: "R4B", softwareName: "EMA", softwareVersion: "8.0", extra: [5, 20], dropCore: 0.1 },
    ],
    urls: {
      kind: "pool",
      entriesPerUrl: 2,
      make: (rng) => {
        const firm = `${slug(rng)}`;
        return { url: `https://${firm}.ema-api.com/ema/fhir/v2`, tenantId: firm };
      },
    },
    bothListsChance: 0,
    npiRate: 0.5,
    systemNameShare: 0,
    smart: (rng) =>
      pickSmart(rng, [
        ["provider", 0.6],
        ["both", 0.4],
      ]),
  },
  {
    id: "netsmart",
    name: "Netsmart",
    share: 0.006,
    endpointListUrl: "https://fhir.netsmartcloud.com/endpoints",
    oauthHost: "oauth.netsmartcloud.com",
    lists: [
      {
        suffix: "endpoints",
        url: "https://fhir.netsmartcloud.com/endpoints",
        format: "csv",
        audience: null,
        fhirVersion: "R4",
      },
    ],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "myAvatar", softwareVersion: "2024", extra: [0, 6], dropCore: 0.4 }],
    urls: {
      kind: "pool",
      entriesPerUrl: 3,
      make: (rng) => ({ url: `https://fhir.netsmartcloud.com/${slug(rng)}/fhir/r4`, tenantId: null }),
    },
    bothListsChance: 0,
    npiRate: 0.2,
    systemNameShare: 0.3,
    smart: (rng) => byAudience(null, rng),
  },
  {
    id: "elation",
    name: "Elation Health",
    share: 0.006,
    endpointListUrl: "https://docs.elationhealth.com/reference/fhir-endpoints",
    oauthHost: "app.elationemr.com/api/2.0/oauth2",
    lists: [
      {
        suffix: "endpoints",
        url: "https://docs.elationhealth.com/reference/fhir-endpoints",
        format: "json",
        audience: "patient",
        fhirVersion: null,
      },
    ],
    versions: [["R4B", 1]],
    profiles: [{ version: "R4B", softwareName: "Elation FHIR", softwareVersion: "2.4", extra: [10, 30], dropCore: 0 }],
    urls: { kind: "shared", urls: [{ url: "https://fhir.elationemr.com/fhir", version: "R4B", weight: 1 }] },
    bothListsChance: 0,
    npiRate: 0.5,
    systemNameShare: 0,
    smart: () => "patient",
  },
  {
    id: "tebra",
    name: "Tebra",
    share: 0.005,
    endpointListUrl: "https://fhir.prd.cloud.tebra.com/fhir-endpoints",
    oauthHost: "fhir.prd.cloud.tebra.com/oauth",
    lists: [
      {
        suffix: "endpoints",
        url: "https://fhir.prd.cloud.tebra.com/fhir-endpoints",
        format: "fhir-bundle",
        audience: "patient",
        fhirVersion: "R4",
      },
    ],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "Tebra EHR", softwareVersion: "5.3", extra: [0, 6], dropCore: 0.2 }],
    urls: {
      kind: "pool",
      entriesPerUrl: 1.5,
      make: (rng) => {
        const tenant = rng.uuid();
        return { url: `https://fhir.prd.cloud.tebra.com/fhirapi/${tenant}/R4`, tenantId: tenant };
      },
    },
    bothListsChance: 0,
    npiRate: 0.6,
    systemNameShare: 0,
    smart: () => "patient",
  },
  {
    id: "advancedmd",
    name: "AdvancedMD",
    share: 0.005,
    endpointListUrl: "https://providerapi.advancedmd.com/v1/r4/endpoints",
    oauthHost: "providerapi.advancedmd.com/v1/oauth2",
    lists: [
      {
        suffix: "patient-r4",
        url: "https://providerapi.advancedmd.com/v1/r4/endpoints?audience=patient",
        format: "fhir-bundle",
        audience: "patient",
        fhirVersion: "R4",
      },
      {
        suffix: "provider-r4",
        url: "https://providerapi.advancedmd.com/v1/r4/endpoints?audience=provider",
        format: "fhir-bundle",
        audience: "provider",
        fhirVersion: "R4",
      },
    ],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "AdvancedMD", softwareVersion: "25.2", extra: [0, 8], dropCore: 0.1 }],
    urls: {
      kind: "pool",
      entriesPerUrl: 1.5,
      make: (rng) => {
        const office = rng.digits(6);
        return { url: `https://providerapi.advancedmd.com/v1/r4/${office}`, tenantId: office };
      },
    },
    bothListsChance: 0.6,
    npiRate: 0.5,
    systemNameShare: 0,
    smart: (rng) => byAudience(null, rng),
  },
  {
    id: "carecloud",
    name: "CareCloud",
    share: 0.004,
    endpointListUrl: "https://fhirapi.carecloud.com/endpoints",
    oauthHost: "fhirapi.carecloud.com/oauth2",
    lists: [
      {
        suffix: "endpoints",
        url: "https://fhirapi.carecloud.com/endpoints",
        format: "json",
        audience: "patient",
        fhirVersion: null,
      },
    ],
    versions: [
      ["R5", 0.6],
      ["R4", 0.4],
    ],
    profiles: [
      { version: "R5", softwareName: "CareCloud Central", softwareVersion: "5.0.1", extra: [20, 60], dropCore: 0.05 },
      { version: "R4", softwareName: "CareCloud Central", softwareVersion: "4.9", extra: [5, 20], dropCore: 0.05 },
    ],
    urls: {
      kind: "pool",
      entriesPerUrl: 2,
      make: (rng, version) => {
        const tenant = rng.uuid();
        return { url: `https://fhirapi.carecloud.com/${tenant}/fhir/${versionPath[version]}`, tenantId: tenant };
      },
    },
    bothListsChance: 0,
    npiRate: 0.5,
    systemNameShare: 0,
    smart: () => "patient",
  },
  {
    id: "nextech",
    name: "Nextech",
    share: 0.004,
    endpointListUrl: "https://www.nextech.com/developers-portal",
    oauthHost: "select.nextech-api.com/oauth",
    lists: [
      {
        suffix: "r4",
        url: "https://www.nextech.com/hubfs/Nextech%20FHIR%20Base%20URL.csv",
        format: "csv",
        audience: null,
        fhirVersion: null,
      },
    ],
    versions: [["R4", 1]],
    profiles: [
      { version: "R4", softwareName: "Nextech Select", softwareVersion: "16.3", extra: [0, 10], dropCore: 0.1 },
    ],
    urls: {
      kind: "pool",
      entriesPerUrl: 1.5,
      make: (rng) => {
        const tenant = rng.uuid();
        return { url: `https://select.nextech-api.com/api/fhir/${tenant}`, tenantId: tenant };
      },
    },
    bothListsChance: 0,
    npiRate: 0.5,
    systemNameShare: 0,
    smart: (rng) => byAudience(null, rng),
  },
  {
    id: "azalea",
    name: "Azalea Health",
    share: 0.003,
    endpointListUrl: "https://app.azaleahealth.com/fhir/endpoints",
    oauthHost: "app.azaleahealth.com/oauth2",
    lists: [
      {
        suffix: "endpoints",
        url: "https://app.azaleahealth.com/fhir/endpoints",
        format: "json",
        audience: null,
        fhirVersion: "R4",
      },
    ],
    versions: [["R4", 1]],
    profiles: [{ version: "R4", softwareName: "Azalea EHR", softwareVersion: "11.2", extra: [0, 6], dropCore: 0.2 }],
    urls: {
      kind: "pool",
      entriesPerUrl: 2,
      make: (rng) => {
        const id = rng.digits(5);
        return { url: `https://app.azaleahealth.com/fhir/R4/${id}`, tenantId: id };
      },
    },
    bothListsChance: 0,
    npiRate: 0.4,
    systemNameShare: 0.5,
    smart: (rng) => byAudience(null, rng),
  },
  {
    id: "canvas",
    name: "Canvas Medical",
    share: 0.003,
    endpointListUrl: "https://docs.canvasmedical.com/api/fhir-endpoints",
    oauthHost: "canvasmedical.com/auth",
    lists: [
      {
        suffix: "endpoints",
        url: "https://docs.canvasmedical.com/api/fhir-endpoints",
        format: "json",
        audience: null,
        fhirVersion: null,
      },
    ],
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
    urls: {
      kind: "pool",
      entriesPerUrl: 1.5,
      make: (rng) => {
        const customer = `${slug(rng)}`;
        return { url: `https://fumage-${customer}.canvasmedical.com`, tenantId: customer };
      },
    },
    bothListsChance: 0,
    npiRate: 0.5,
    systemNameShare: 0,
    smart: (rng) => byAudience(null, rng),
  },
];
