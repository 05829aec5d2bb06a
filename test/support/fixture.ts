import { loadConfig } from "../../src/config";
import type { Db } from "../../src/db/client";
import type { Logger } from "../../src/logger";
import { assertPublished } from "../contract/published-document";
import { createTestApp } from "./app";
import { type SeedEntry, type SeedProbe, type SeedVendor, seedDatabase } from "./seed";
import { tempDbPath } from "./temp-db";

export const VENDORS: SeedVendor[] = [
  {
    id: "epic",
    name: "Epic Systems",
    endpointListUrl: "https://open.epic.com/MyApps/Endpoints",
    lastScrapedAt: "2026-11-20T10:00:00.000Z",
  },
  { id: "oracle-health", name: "Oracle Health", endpointListUrl: "https://github.com/oracle-samples/ignite-endpoints" },
  {
    id: "athenahealth",
    name: "athenahealth",
    endpointListUrl: "https://docs.athenahealth.com/api/guides/base-fhir-urls",
  },
  { id: "meditech", name: "MEDITECH", endpointListUrl: "https://fhir.meditech.com/" },
];

export const R4_METADATA = `{
  "resourceType" : "CapabilityStatement",
  "fhirVersion" : "4.0.1",
  "software" : { "name" : "Epic", "version" : "1.10e2" },
  "rest" : [ { "mode" : "server", "resource" : [ { "type" : "Patient" }, { "type" : "Observation" }, { "type" : "Condition" } ] } ]
}`;
export const SMART_CONFIG = `{"authorization_endpoint":"https://a.example/oauth2/authorize","capabilities":["launch-standalone","launch-ehr","context-standalone-patient"],"grant_types_supported":["authorization_code","client_credentials"]}`;

/** 4 vendors, 12 entries with hand-picked names, states and capabilities; expectations in tests are written by hand. */
export const ENTRIES: SeedEntry[] = [
  {
    vendorId: "epic",
    url: "https://fhir.mgh.example/api/FHIR/R4/",
    organizationName: "Massachusetts General Hospital",
    npi: "1234567893",
    city: "Boston",
    state: "MA",
    zipCode: "02114",
    fhirVersion: "R4",
    access: ["patient", "provider"],
    status: "verified",
  },
  {
    vendorId: "epic",
    url: "https://fhir.bwh.example/api/FHIR/R4",
    organizationName: "Brigham and Women's Hospital",
    city: "Boston",
    state: "MA",
    zipCode: "02115",
    fhirVersion: "R4",
    access: ["patient"],
    status: "verified",
  },
  {
    vendorId: "epic",
    url: "https://fhir.ucsf.example/api/FHIR/DSTU2",
    organizationName: "UCSF Health",
    city: "San Francisco",
    state: "CA",
    zipCode: "94143-0001",
    fhirVersion: "DSTU2",
    access: ["patient"],
    status: "unresponsive",
  },
  {
    vendorId: "epic",
    url: "https://fhir.clinica.example/r4",
    organizationName: "Clínica Señor de los Milagros",
    state: "PR",
    fhirVersion: "R4",
    access: [],
    status: "listed",
  },
  {
    vendorId: "epic",
    url: "https://fhir.orphan.example/r4",
    organizationName: null,
    state: null,
    fhirVersion: "UNKNOWN",
    status: "removed",
  },
  {
    vendorId: "oracle-health",
    url: "https://fhir-myrecord.cerner.com/r4/ec2458f2-1e24-41c8-b71b-0e701af7583d",
    organizationName: "St. Mary's Medical Center (100% care)",
    tenantId: "ec2458f2-1e24-41c8-b71b-0e701af7583d",
    city: "Huntington",
    state: "WV",
    fhirVersion: "R4",
    access: ["patient"],
    status: "verified",
  },
  {
    vendorId: "oracle-health",
    url: "https://fhir-ehr.cerner.com/r4/0b8a0111-e8e6-4c26-a91c-5069cbc6b1ca",
    organizationName: "General Hospital_Of Texas",
    tenantId: "0b8a0111-e8e6-4c26-a91c-5069cbc6b1ca",
    state: "TX",
    fhirVersion: "R4B",
    access: ["provider"],
    status: "verified",
  },
  {
    vendorId: "athenahealth",
    url: "https://api.platform.athenahealth.com/fhir/r4",
    organizationName: "Family Practice of Austin",
    state: "TX",
    fhirVersion: "R4",
    access: ["patient"],
    status: "listed",
  },
  {
    vendorId: "athenahealth",
    url: "https://api.platform.athenahealth.com/fhir/r4",
    organizationName: "O'Brien & Sons Pediatrics",
    state: "NY",
    fhirVersion: "R4",
    access: ["patient"],
    status: "listed",
  },
  {
    vendorId: "athenahealth",
    url: "https://api.platform.athenahealth.com/fhir/r4",
    organizationName: "austin general clinic",
    state: "TX",
    fhirVersion: "R4",
    access: ["patient"],
    status: "listed",
  },
  {
    vendorId: "meditech",
    url: "https://fhir.valley.example/v1/stu3",
    organizationName: "Valley Regional",
    state: "NH",
    fhirVersion: "STU3",
    access: [],
    status: "verified",
  },
  {
    vendorId: "meditech",
    url: "https://fhir.lake.example/v2/r5",
    organizationName: "Lake Medical",
    state: "MN",
    fhirVersion: "R5",
    access: ["provider"],
    status: "verified",
  },
];

export const PROBES: SeedProbe[] = [
  {
    url: "https://fhir.mgh.example/api/FHIR/R4",
    probeStatus: "success",
    fhirVersion: "R4",
    metadataBody: R4_METADATA,
    smartBody: SMART_CONFIG,
    resources: ["Condition", "Observation", "Patient"],
    smartSupported: true,
    smartCapabilities: ["launch-standalone", "launch-ehr", "context-standalone-patient"],
    grantTypes: ["authorization_code", "client_credentials"],
    softwareName: "Epic",
    softwareVersion: "1.10e2",
    probedAt: "2026-11-21T08:00:00.000Z",
  },
  {
    url: "https://fhir.bwh.example/api/FHIR/R4",
    probeStatus: "partial",
    fhirVersion: "R4",
    metadataBody: '{"resourceType":"CapabilityStatement","fhirVersion":"4.0.1"}',
    resources: ["Observation", "Patient"],
  },
  { url: "https://fhir.ucsf.example/api/FHIR/DSTU2", probeStatus: "failed" },
  {
    url: "https://fhir-myrecord.cerner.com/r4/ec2458f2-1e24-41c8-b71b-0e701af7583d",
    probeStatus: "success",
    fhirVersion: "R4",
    metadataBody: "{}",
    smartBody: "{}",
    resources: ["Patient"],
    smartSupported: true,
  },
  {
    url: "https://fhir-ehr.cerner.com/r4/0b8a0111-e8e6-4c26-a91c-5069cbc6b1ca",
    probeStatus: "success",
    fhirVersion: "R4B",
    metadataBody: "{}",
    smartBody: "{}",
    resources: ["Condition", "Observation", "Patient"],
    smartSupported: true,
  },
  {
    url: "https://api.platform.athenahealth.com/fhir/r4",
    probeStatus: "partial",
    fhirVersion: "R4",
    metadataBody: "{}",
    resources: ["AllergyIntolerance", "Patient"],
  },
];

export function fixtureDb(): Db {
  return seedDatabase(tempDbPath(), {
    vendors: VENDORS,
    entries: ENTRIES,
    probes: PROBES,
    at: "2026-11-21T09:00:00.000Z",
  });
}

export function fixtureApp(env: Record<string, string> = {}, clock?: () => Date, log?: Logger) {
  const db = fixtureDb();
  const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", ...env }), clock, log });
  return { db, app };
}

/** An app of its own, whose /docs/json is the document every answer `get` sees is checked against. */
let reference: ReturnType<typeof fixtureApp>["app"] | undefined;
const referenceApp = () => {
  reference ??= fixtureApp().app;
  return reference;
};

export async function get(app: { handle(request: Request): Promise<Response> }, path: string, init?: RequestInit) {
  const response = await app.handle(new Request(`http://localhost${path}`, init));
  const text = await response.text();
  // Every answer the API tests see must be one the published OpenAPI document allows.
  await assertPublished(referenceApp, init?.method ?? "GET", path, response, text);
  return { response, status: response.status, body: text === "" ? null : JSON.parse(text), text };
}

/**
 * A GET over a real server listening at `root`, its answer checked as `get` checks one against
 * the document `app` publishes.
 */
export async function fetchPublished(app: { handle(request: Request): Promise<Response> }, root: string, path: string) {
  const response = await fetch(`${root}${path}`);
  const text = await response.text();
  await assertPublished(() => app, "GET", path, response, text);
  return { response, status: response.status, body: text === "" ? null : JSON.parse(text) };
}

export const orgNames = (body: { data: { organizationName: string | null }[] }) =>
  body.data.map((e) => e.organizationName);
