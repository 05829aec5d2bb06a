/**
 * Non-production entries (test, demo, sandbox… docs/api.md "Environment") over a real server:
 * listed and searchable with their environment, the rule by id and in /source, in the CSV,
 * NDJSON and FHIR exports, left out of the brands bundle and the capability statistics unless
 * `environment=` asks. Every JSON answer is checked against the published OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { canonicalUrl, entryId } from "../../../src/model/identity";
import { createTestApp } from "../../support/app";
import { fetchPublished, R4_METADATA, SMART_CONFIG } from "../../support/fixture";
import { seedDatabase } from "../../support/seed";
import { tempDbPath } from "../../support/temp-db";

const MGH = "https://fhir.mgh.example/api/FHIR/R4";
const MGH_TEST = "https://fhirtest.mgh.example/api/FHIR/R4";
const SHARED = "https://api.acme.example/fhir/r4";
const SANDBOX = "https://api.acme.example/fhir/r4/sandbox";

const ENTRIES = [
  { vendorId: "epic", url: MGH, organizationName: "Massachusetts General Hospital", fhirVersion: "R4" },
  { vendorId: "epic", url: MGH_TEST, organizationName: "Massachusetts General Hospital - Test", fhirVersion: "R4" },
  { vendorId: "acme", url: SHARED, organizationName: "A - Test Clinic", fhirVersion: "R4" },
  { vendorId: "acme", url: SHARED, organizationName: "Demopolis Family Practice", fhirVersion: "R4" },
  { vendorId: "acme", url: SHARED, organizationName: "Sandbox Pediatrics", fhirVersion: "R4" },
  { vendorId: "acme", url: SANDBOX, organizationName: "Epic Sandbox", fhirVersion: "R4" },
].map((e) => ({ ...e, status: e.url.startsWith("https://fhir") ? "verified" : "listed" }));
const NON_PRODUCTION = ["Massachusetts General Hospital - Test", "A - Test Clinic", "Epic Sandbox"];
const PRODUCTION = ["Massachusetts General Hospital", "Demopolis Family Practice", "Sandbox Pediatrics"];
const idOf = (e: (typeof ENTRIES)[number]) => entryId(e.vendorId, canonicalUrl(e.url), null, e.organizationName);
const named = (name: string) => ENTRIES.find((e) => e.organizationName === name)!;

let app: ReturnType<typeof createTestApp>;
let root: string;
const getJson = (path: string) => fetchPublished(app, root, path);

beforeAll(() => {
  const probe = (url: string) => ({
    url,
    probeStatus: "success",
    fhirVersion: "R4",
    metadataBody: R4_METADATA,
    smartBody: SMART_CONFIG,
    resources: ["Patient"],
    smartSupported: true,
  });
  const db = seedDatabase(tempDbPath(), {
    vendors: [
      { id: "epic", name: "Epic Systems" },
      { id: "acme", name: "Acme EHR" },
    ],
    entries: ENTRIES,
    probes: [probe(MGH), probe(MGH_TEST)],
    at: "2026-11-21T09:00:00.000Z",
  });
  app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  root = `http://127.0.0.1:${app.server!.port}`;
});
afterAll(() => app.stop(true));

const names = (body: { data: { organizationName: string }[] }) => body.data.map((e) => e.organizationName).sort();

describe("environment", () => {
  test("every record says its environment; real names with a rule's letters stay production", async () => {
    const { body } = await getJson("/api/v1/endpoints");
    expect(body.meta.total).toBe(6);
    const environments = Object.fromEntries(
      body.data.map((e: { organizationName: string; environment: string }) => [e.organizationName, e.environment]),
    );
    for (const name of NON_PRODUCTION) expect(environments[name]).toBe("non-production");
    for (const name of PRODUCTION) expect(environments[name]).toBe("production");
  });

  test("environment= filters the list; another value is a 400 naming the parameter", async () => {
    expect(names((await getJson("/api/v1/endpoints?environment=non-production")).body)).toEqual(
      [...NON_PRODUCTION].sort(),
    );
    const production = (await getJson("/api/v1/endpoints?environment=production&vendor=acme")).body;
    expect(names(production)).toEqual(["Demopolis Family Practice", "Sandbox Pediatrics"]);
    expect(production.meta.total).toBe(2);
    const bad = await getJson("/api/v1/endpoints?environment=test");
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toStartWith("environment:");
  });

  test("by id: meta.environment names the rule, its code and what it found; a production entry has no meta", async () => {
    const test = named("Massachusetts General Hospital - Test");
    for (const path of ["", "/capabilities", "/availability"]) {
      const { body } = await getJson(`/api/v1/endpoints/${idOf(test)}${path}`);
      expect(body.meta).toEqual({ environment: { rule: "host-test", code: "test", found: "fhirtest" } });
    }
    const sandbox = (await getJson(`/api/v1/endpoints/${idOf(named("Epic Sandbox"))}`)).body;
    expect(sandbox.meta.environment).toEqual({ rule: "path-demo", code: "test", found: "sandbox" });
    const production = (await getJson(`/api/v1/endpoints/${idOf(named("Sandbox Pediatrics"))}`)).body;
    expect(production.meta).toBeUndefined();
    expect(production.data.environment).toBe("production");
  });

  test("/source says the environment rule, null for a production entry", async () => {
    const clinic = (await getJson(`/api/v1/endpoints/${idOf(named("A - Test Clinic"))}/source`)).body;
    expect(clinic.data.environment).toEqual({ rule: "name-test", code: "test", found: "Test" });
    const mgh = (await getJson(`/api/v1/endpoints/${idOf(named("Massachusetts General Hospital"))}/source`)).body;
    expect(mgh.data.environment).toBeNull();
  });

  test("CSV has an environment column and NDJSON an environment member, as the list says", async () => {
    const listed = (await getJson("/api/v1/endpoints")).body.data as { id: string; environment: string }[];
    const csv = (await (await fetch(`${root}/api/v1/export?format=csv`)).text()).trim().split("\r\n");
    const header = csv[0]!.split(",");
    const column = header.indexOf("environment");
    expect(column).toBeGreaterThan(-1);
    const csvEnvironments = Object.fromEntries(csv.slice(1).map((row) => [row.slice(0, 64), row.split(",")[column]]));
    const ndjson = (await (await fetch(`${root}/api/v1/export?format=ndjson`)).text()).trim().split("\n");
    const lines = ndjson.map((line) => JSON.parse(line) as { id: string; environment: string });
    expect(lines).toEqual(listed);
    for (const record of listed) expect(csvEnvironments[record.id]).toBe(record.environment);
    const filtered = await (await fetch(`${root}/api/v1/export?format=ndjson&environment=non-production`)).text();
    expect(filtered.trim().split("\n")).toHaveLength(NON_PRODUCTION.length);
  });

  test("a non-production FHIR Endpoint carries R5's environmentType as its R4 extension; a production one none", async () => {
    const bundle = (await (await fetch(`${root}/api/v1/export?format=fhir`)).json()) as {
      entry: { resource: { id: string; address?: string; extension?: unknown[] } }[];
    };
    const endpoint = (address: string) => bundle.entry.find((e) => e.resource.address === address)!.resource;
    const extension = {
      url: "http://hl7.org/fhir/5.0/StructureDefinition/extension-Endpoint.environmentType",
      valueCodeableConcept: {
        coding: [{ system: "http://hl7.org/fhir/endpoint-environment", code: "test", display: "Test" }],
      },
    };
    expect(endpoint(MGH_TEST).extension).toContainEqual(extension);
    expect(endpoint(SANDBOX).extension).toContainEqual(extension);
    expect(JSON.stringify(endpoint(MGH))).not.toContain("environmentType");
    const read = (await (await fetch(`${root}/fhir/Endpoint/${endpoint(MGH_TEST).id}`)).json()) as {
      extension: unknown[];
    };
    expect(read.extension).toContainEqual(extension);
  });

  test("the brands bundle leaves non-production entries out, unless environment=non-production asks", async () => {
    const organizations = async (query: string) => {
      const bundle = (await (await fetch(`${root}/api/v1/brands${query}`)).json()) as {
        entry?: { resource: object }[];
      };
      const resources = (bundle.entry ?? []).map((e) => e.resource) as {
        resourceType: string;
        id: string;
        name?: string;
        address?: string;
      }[];
      return {
        names: resources
          .filter((r) => r.resourceType === "Organization" && !r.id.startsWith("developer-"))
          .map((r) => r.name)
          .sort(),
        addresses: resources
          .filter((r) => r.resourceType === "Endpoint")
          .map((r) => r.address)
          .sort(),
      };
    };
    expect(await organizations("")).toEqual({ names: [...PRODUCTION].sort(), addresses: [SHARED, MGH].sort() });
    expect((await organizations("?environment=non-production")).names).toEqual([...NON_PRODUCTION].sort());
  });

  test("the capability statistics count production entries only, overall and per developer", async () => {
    const { body } = await getJson("/api/v1/stats/capabilities");
    expect(body.data.endpoints).toBe(PRODUCTION.length);
    expect(body.data.verified).toBe(1);
    const epic = body.data.vendors.find((v: { vendorId: string }) => v.vendorId === "epic");
    expect(epic.endpoints).toBe(1);
    for (const statuses of Object.values(body.data.verdict) as Record<string, number>[])
      expect(Object.values(statuses).reduce((a, b) => a + b, 0)).toBe(PRODUCTION.length);
  });
});
