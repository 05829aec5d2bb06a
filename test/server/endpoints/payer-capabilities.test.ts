/**
 * A health plan's Patient Access API, probed for real: local servers over TLS publish one
 * statement declaring CARIN Blue Button and Da Vinci PDex (with ExplanationOfBenefit and a
 * SMART configuration for patient apps) and one declaring none of them and no authorization.
 * The directory's facets, `supports=` values, verdicts and statistics are read over HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { probeDue } from "../../../src/pipeline/probe";
import { insertEntry, json, type Route, serveTls, tempDb } from "../../pipeline/probe/helpers";
import { createTestApp } from "../../support/app";
import { fetchPublished } from "../../support/fixture";

/** As CARIN BB 2.0.0 and PDex 2.0.0 publish their canonicals; US Core 3.1.1 beside them. */
const CARIN_PDEX = JSON.stringify({
  resourceType: "CapabilityStatement",
  fhirVersion: "4.0.1",
  kind: "instance",
  format: ["json"],
  instantiates: ["http://hl7.org/fhir/us/carin-bb/CapabilityStatement/c4bb|2.0.0"],
  implementationGuide: [
    "http://hl7.org/fhir/us/carin-bb/ImplementationGuide/hl7.fhir.us.carin-bb|2.0.0",
    "http://hl7.org/fhir/us/davinci-pdex/ImplementationGuide/hl7.fhir.us.davinci-pdex|2.0.0",
  ],
  rest: [
    {
      mode: "server",
      resource: [
        {
          type: "Patient",
          supportedProfile: ["http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient|3.1.1"],
        },
        {
          type: "ExplanationOfBenefit",
          supportedProfile: [
            "http://hl7.org/fhir/us/carin-bb/StructureDefinition/C4BB-ExplanationOfBenefit-Inpatient-Institutional",
          ],
        },
        { type: "Coverage" },
      ],
    },
  ],
});
/** A patient-app SMART configuration: Patient Access for Standalone Apps, complete. */
const PATIENT_SMART = JSON.stringify({
  issuer: "https://auth.plan.example",
  jwks_uri: "https://auth.plan.example/jwks",
  authorization_endpoint: "https://auth.plan.example/authorize",
  token_endpoint: "https://auth.plan.example/token",
  grant_types_supported: ["authorization_code"],
  code_challenge_methods_supported: ["S256"],
  capabilities: [
    "launch-standalone",
    "client-public",
    "client-confidential-symmetric",
    "context-standalone-patient",
    "permission-patient",
    "permission-offline",
    "permission-v2",
    "sso-openid-connect",
  ],
});
/** A plan's statement that names no guide, no ExplanationOfBenefit, no security. */
const NONE = JSON.stringify({
  resourceType: "CapabilityStatement",
  fhirVersion: "4.0.1",
  kind: "instance",
  format: ["json"],
  rest: [{ mode: "server", resource: [{ type: "Patient" }, { type: "Coverage" }] }],
});

const route: Route = (request) => {
  const path = new URL(request.url).pathname;
  if (path === "/carin/metadata") return json(CARIN_PDEX);
  if (path === "/carin/.well-known/smart-configuration") return json(PATIENT_SMART);
  if (path === "/none/metadata") return json(NONE);
  return new Response("not found", { status: 404 });
};
const fhir = serveTls(route);
const ctx = tempDb();
const urls = { carin: `${fhir.url}/carin`, none: `${fhir.url}/none` };
const ids: Record<string, string> = {};
let app: ReturnType<typeof createTestApp>;
let root: string;

beforeAll(async () => {
  ctx.db.sqlite
    .prepare(
      "INSERT INTO vendors (id, name, endpoint_list_url, kind) VALUES ('plan', 'A Plan', 'https://plan.example/dev', 'payer')",
    )
    .run();
  for (const [site, url] of Object.entries(urls)) ids[site] = insertEntry(ctx.db, { url, vendorId: "plan" });
  await probeDue(ctx.db, { ...fhir.probeOptions, timeoutMs: 5000 });
  app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  root = `http://127.0.0.1:${app.server!.port}`;
});
afterAll(async () => {
  await app?.stop();
  app?.directory.close();
  fhir.stop();
  ctx.cleanup();
});

async function sites(query: string): Promise<string[]> {
  const { status, body } = await fetchPublished(app, root, `/api/v1/endpoints?${query}&limit=100`);
  expect(status).toBe(200);
  const byUrl = new Map(Object.entries(urls).map(([site, url]) => [url, site]));
  return (body.data as { url: string }[]).map((e) => byUrl.get(e.url) ?? e.url).sort();
}

describe("a health plan's Patient Access API", () => {
  test("the payer facets: the guides declared, with their versions, and ExplanationOfBenefit", async () => {
    const carin = (await fetchPublished(app, root, `/api/v1/endpoints/${ids.carin}/capabilities`)).body.data;
    expect(carin.summary.payer).toEqual({
      carinBlueButton: { declared: true, versions: ["2.0.0"] },
      pdex: { declared: true, versions: ["2.0.0"] },
      planNet: { declared: false, versions: [] },
      explanationOfBenefit: true,
    });
    expect(carin.summary.usCore).toEqual({ declared: true, versions: ["3.1.1"] });
    const none = (await fetchPublished(app, root, `/api/v1/endpoints/${ids.none}/capabilities`)).body.data;
    expect(none.summary.payer).toEqual({
      carinBlueButton: { declared: false, versions: [] },
      pdex: { declared: false, versions: [] },
      planNet: { declared: false, versions: [] },
      explanationOfBenefit: false,
    });
  });

  test("the verdicts: ready for patient apps where SMART's patient set is declared over https; undeclared where nothing is", async () => {
    const carin = (await fetchPublished(app, root, `/api/v1/endpoints/${ids.carin}/capabilities`)).body.data;
    // A standalone patient app's whole set; not launched from a portal (no launch-ehr): said in a note.
    expect(carin.verdict.patientApps).toEqual({
      status: "ready",
      sets: ["patient-standalone"],
      reasons: [],
      notes: [
        "ready for standalone patient apps (Patient Access for Standalone Apps); apps launched from the patient portal: missing launch-ehr, context-ehr-patient",
      ],
    });
    expect(carin.verdict.backendServices.status).toBe("no");
    const none = (await fetchPublished(app, root, `/api/v1/endpoints/${ids.none}/capabilities`)).body.data;
    for (const kind of ["patientApps", "providerApps", "backendServices"])
      expect([kind, none.verdict[kind].status]).toEqual([kind, "undeclared"]);
  });

  test("each payer facet is a supports= value; with kind= and ready=", async () => {
    expect(await sites("supports=carin-bb")).toEqual(["carin"]);
    expect(await sites("supports=davinci-pdex")).toEqual(["carin"]);
    expect(await sites("supports=explanation-of-benefit")).toEqual(["carin"]);
    expect(await sites("supports=plan-net")).toEqual([]);
    expect(await sites("supports=carin-bb,davinci-pdex,us-core&kind=payer&ready=patient-apps")).toEqual(["carin"]);
    expect(await sites("kind=payer")).toEqual(["carin", "none"]);
    expect(await sites("kind=ehr")).toEqual([]);
    const bad = await fetchPublished(app, root, "/api/v1/endpoints?supports=carin");
    expect(bad.status).toBe(400);
  });

  test("the capability statistics count them, in all and for the payers", async () => {
    const all = (await fetchPublished(app, root, "/api/v1/stats/capabilities")).body.data;
    expect(all.supports).toMatchObject({
      "carin-bb": 1,
      "davinci-pdex": 1,
      "plan-net": 0,
      "explanation-of-benefit": 1,
    });
    expect(all.verdict.patientApps).toMatchObject({ ready: 1, undeclared: 1 });
    const payers = (await fetchPublished(app, root, "/api/v1/stats/capabilities?kind=payer")).body.data;
    expect(payers).toMatchObject({ kind: "payer", endpoints: 2, verified: 2 });
    expect(payers.supports["carin-bb"]).toBe(1);
    const ehr = (await fetchPublished(app, root, "/api/v1/stats/capabilities?kind=ehr")).body.data;
    expect(ehr).toMatchObject({ kind: "ehr", endpoints: 0, verified: 0, vendors: [] });
  });

  test("/fhir: developer-kind= finds the plan's Endpoints", async () => {
    const response = await fetch(`${root}/fhir/Endpoint?developer-kind=payer`, {
      headers: { accept: "application/fhir+json" },
    });
    expect(response.status).toBe(200);
    const bundle = (await response.json()) as { total: number; entry: { resource: { address: string } }[] };
    expect(bundle.entry.map((e) => e.resource.address).sort()).toEqual([urls.carin, urls.none].sort());
    const ehr = await fetch(`${root}/fhir/Endpoint?developer-kind=ehr`, {
      headers: { accept: "application/fhir+json" },
    });
    expect(((await ehr.json()) as { total: number }).total).toBe(0);
    // Documented: in the OpenAPI document and as a SearchParameter of our own.
    const docs = (await (await fetch(`${root}/docs/json`)).json()) as {
      paths: Record<string, { get: { parameters: { name: string }[] } }>;
    };
    const fhirPath = Object.keys(docs.paths).find((p) => p.startsWith("/fhir/Endpoint"))!;
    expect(docs.paths[fhirPath]!.get.parameters.map((p) => p.name)).toContain("developer-kind");
    expect(docs.paths["/api/v1/endpoints"]!.get.parameters.map((p) => p.name)).toContain("kind");
    const parameter = await fetch(`${root}/fhir/SearchParameter/endpoint-developer-kind`, {
      headers: { accept: "application/fhir+json" },
    });
    expect(parameter.status).toBe(200);
    expect(((await parameter.json()) as { code: string }).code).toBe("developer-kind");
    const bad = await fetch(`${root}/fhir/Endpoint?developer-kind=insurer`, {
      headers: { accept: "application/fhir+json" },
    });
    expect(bad.status).toBe(400);
  });
});
