/**
 * format=fhir: one FHIR R4 Bundle that the official R4 JSON schema accepts, holding an
 * Endpoint per distinct URL and an Organization per organization, which our own ingest (the
 * real CLI, as a subprocess) reads back into the same entries with the same ids.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ValidateFunction } from "ajv";
import { fhirVersionOfUrl } from "../../../src/pipeline/ingest/enrich/version-of-url";
import { findVendor, loadRegistry } from "../../../src/pipeline/ingest/registry";
import { fixtureApp } from "../../support/fixture";
import { appOnGeneratedDataset } from "../../support/generated-app";
import { runScript } from "../../support/run-script";
import { bundleValidator } from "./fhir-schema";
import { exportText, type FhirBundle, type ListRecord, pageThroughList } from "./helpers";

const NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi";

let validate: ValidateFunction;
const fixture = fixtureApp({ LOG_LEVEL: "error" });

const live = appOnGeneratedDataset({ endpoints: 4_000, seed: 7 });

beforeAll(async () => {
  validate = await bundleValidator();
});

afterAll(() => {
  fixture.app.directory.close();
  fixture.db.sqlite.close();
});

async function bundleOf(target: { handle(request: Request): Promise<Response> }, query: string) {
  const { response, text } = await exportText(target, `format=fhir${query ? `&${query}` : ""}`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/fhir+json");
  return JSON.parse(text) as FhirBundle;
}

type Resource = NonNullable<FhirBundle["entry"]>[number]["resource"];
const isDeveloper = (resource: Resource) => resource.id.startsWith("developer-");
/** The Bundle's resources of a type; Organizations without the developers (see `developers`). */
const resources = (bundle: FhirBundle, type: string) =>
  (bundle.entry ?? [])
    .map((item) => item.resource)
    .filter((resource) => resource.resourceType === type && !isDeveloper(resource));
const developers = (bundle: FhirBundle) =>
  (bundle.entry ?? []).map((item) => item.resource).filter((resource) => isDeveloper(resource));

/** The (organization fields, URL) pairs a bundle states: one per entry it should stand for. */
function pairsOf(bundle: FhirBundle): string[] {
  const addressOf = new Map(resources(bundle, "Endpoint").map((e) => [`Endpoint/${e.id}`, e.address as string]));
  const pairs: string[] = [];
  for (const organization of resources(bundle, "Organization") as (Resource & Record<string, unknown>)[]) {
    const npi = (organization.identifier as { system: string; value: string }[] | undefined)?.find(
      (i) => i.system === NPI_SYSTEM,
    );
    const address = (organization.address as Record<string, string>[] | undefined)?.[0];
    for (const link of organization.endpoint as { reference: string }[]) {
      const url = addressOf.get(link.reference);
      if (url === undefined) throw new Error(`dangling reference ${link.reference}`);
      pairs.push(
        JSON.stringify([
          url,
          organization.name ?? null,
          npi?.value ?? null,
          address?.city ?? null,
          address?.state ?? null,
          address?.postalCode ?? null,
        ]),
      );
    }
  }
  return pairs.sort();
}

const expectedPairs = (records: ListRecord[]) =>
  records.map((r) => JSON.stringify([r.url, r.organizationName, r.npi, r.city, r.state, r.zipCode])).sort();

describe("the FHIR Bundle", () => {
  test("validates against the official FHIR R4 JSON schema, whole and filtered", async () => {
    for (const [target, query] of [
      [fixture.app, ""],
      [live.app, ""],
      [live.app, "vendor=meditech"],
      [live.app, "state=CA&fhirVersion=R4"],
      [live.app, "vendor=no-such-vendor"],
    ] as const) {
      const bundle = await bundleOf(target, query);
      const valid = validate(bundle);
      expect({ query, errors: valid ? null : validate.errors?.slice(0, 3) }).toEqual({ query, errors: null });
      expect(bundle.resourceType).toBe("Bundle");
      expect(bundle.type).toBe("collection");
    }
  });

  test("the validator is not vacuous: a broken resource is rejected", async () => {
    const bundle = await bundleOf(fixture.app, "vendor=epic");
    const endpoint = resources(bundle, "Endpoint")[0]!;
    endpoint.status = "verified";
    expect(validate(bundle)).toBe(false);
    endpoint.status = "active";
    expect(validate(bundle)).toBe(true);
    (resources(bundle, "Organization")[0] as Record<string, unknown>).name = null;
    expect(validate(bundle)).toBe(false);
  });

  test("an Endpoint per distinct URL, an Organization per organization, a reference per entry", async () => {
    for (const query of ["", "vendor=athenahealth", "query=health", "access=patient&smartSupported=false"]) {
      const records = await pageThroughList(live.app, query);
      const bundle = await bundleOf(live.app, query);
      const endpoints = resources(bundle, "Endpoint");
      expect(endpoints.map((e) => e.address)).toEqual([...new Set(records.map((r) => r.url))]);
      expect(new Set(endpoints.map((e) => e.id)).size).toBe(endpoints.length);
      for (const endpoint of endpoints) {
        expect(endpoint.connectionType).toMatchObject({ code: "hl7-fhir-rest" });
        expect((endpoint.payloadType as unknown[]).length).toBeGreaterThan(0);
      }
      // Every entry is exactly one (Organization, Endpoint) link, and nothing else is.
      expect(pairsOf(bundle)).toEqual(expectedPairs(records));
      // One Organization per distinct organization of a vendor.
      const organizations = new Set(
        records.map((r) => JSON.stringify([r.vendorId, r.organizationName, r.npi, r.city, r.state, r.zipCode])),
      );
      expect(resources(bundle, "Organization").length).toBe(organizations.size);
    }
  });

  test("status, version, NPI and address as the list states them", async () => {
    const bundle = await bundleOf(fixture.app, "");
    const byAddress = new Map(resources(bundle, "Endpoint").map((e) => [e.address as string, e]));
    const status = (url: string) => byAddress.get(url)?.status;
    expect(status("https://fhir.mgh.example/api/FHIR/R4")).toBe("active"); // verified
    expect(status("https://fhir.clinica.example/r4")).toBe("active"); // listed
    expect(status("https://fhir.ucsf.example/api/FHIR/DSTU2")).toBe("error"); // unresponsive
    const version = (url: string) => (byAddress.get(url)?.extension as { valueCode: string }[] | undefined)?.[0];
    expect(version("https://fhir.ucsf.example/api/FHIR/DSTU2")).toEqual({
      url: "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version",
      valueCode: "1.0.2",
    } as never);
    expect(version("https://fhir.lake.example/v2/r5")?.valueCode).toBe("5.0.0");
    const mgh = resources(bundle, "Organization").find((o) => o.name === "Massachusetts General Hospital")!;
    expect(mgh.identifier).toEqual([{ system: NPI_SYSTEM, value: "1234567893" }]);
    expect(mgh.address).toEqual([{ city: "Boston", state: "MA", postalCode: "02114" }]);
    expect(mgh.endpoint).toEqual([
      { reference: `Endpoint/${byAddress.get("https://fhir.mgh.example/api/FHIR/R4")!.id}` },
    ]);
    // Three practices behind one athenahealth URL: three Organizations, one Endpoint.
    const athena = byAddress.get("https://api.platform.athenahealth.com/fhir/r4")!;
    const linked = resources(bundle, "Organization").filter((o) =>
      (o.endpoint as { reference: string }[]).some((l) => l.reference === `Endpoint/${athena.id}`),
    );
    expect(linked.map((o) => o.name).sort()).toEqual([
      "Family Practice of Austin",
      "O'Brien & Sons Pediatrics",
      "austin general clinic",
    ]);
  });
});

describe("the FHIR Bundle's identity rules", () => {
  test("the whole export's fullUrls name the configured public origin whatever the Host; a filtered one the request's", async () => {
    // fixtureApp's configuration names no PUBLIC_ORIGIN: http://localhost:<PORT>, 3000.
    const fullUrls = async (target: string) => {
      const response = await fixture.app.handle(new Request(target));
      const text = await response.text();
      expect({ status: response.status, text: text.slice(0, 200) }).toMatchObject({ status: 200 });
      const bundle = JSON.parse(text) as FhirBundle;
      expect(bundle.entry!.length).toBeGreaterThan(0);
      return bundle.entry!.map(({ fullUrl, resource }) => [fullUrl, `${resource.resourceType}/${resource.id}`]);
    };
    for (const origin of ["http://localhost", "http://directory.example.org:8443"]) {
      for (const [fullUrl, path] of await fullUrls(`${origin}/api/v1/export?format=fhir`))
        expect(fullUrl).toBe(`http://localhost:3000/fhir/${path}`);
      for (const [fullUrl, path] of await fullUrls(`${origin}/api/v1/export?format=fhir&state=TX`))
        expect(fullUrl).toBe(`${origin}/fhir/${path}`);
    }
    // A filtered export's ETag follows the origin: a cache must not hand one origin's URLs to another.
    const etag = async (origin: string) =>
      (
        await fixture.app.handle(new Request(`${origin}/api/v1/export?format=fhir&state=TX`, { method: "HEAD" }))
      ).headers.get("etag");
    expect(await etag("http://localhost")).not.toBe(await etag("http://directory.example.org:8443"));
  });

  test("each developer is an Organization, named by its Endpoints' managingOrganization", async () => {
    const bundle = await bundleOf(fixture.app, "");
    const records = await pageThroughList(fixture.app, "");
    const vendors = new Map(records.map((r) => [r.vendorId, r.vendorName]));
    expect(developers(bundle).map((d) => [d.id, d.name])).toEqual(
      [...vendors].map(([id, name]) => [`developer-${id}`, name]),
    );
    const vendorOf = new Map(records.map((r) => [r.url, r.vendorId]));
    for (const endpoint of resources(bundle, "Endpoint"))
      expect(endpoint.managingOrganization).toEqual({
        reference: `Organization/developer-${vendorOf.get(endpoint.address as string)}`,
      });
  });

  test("an export that matches nothing has no entry key (FHIR JSON forbids empty arrays)", async () => {
    const bundle = await bundleOf(fixture.app, "vendor=no-such-vendor");
    expect(bundle).not.toHaveProperty("entry");
    expect(validate(bundle)).toBe(true);
  });
});

describe("round trip through our own ingest", () => {
  /** The fields an exported Endpoint carries back into an entry. */
  type Row = Pick<
    ListRecord,
    "id" | "url" | "organizationName" | "npi" | "tenantId" | "city" | "state" | "zipCode" | "fhirVersion"
  >;
  const fields = (r: Row | ListRecord): Row => ({
    id: r.id,
    url: r.url,
    organizationName: r.organizationName,
    npi: r.npi,
    tenantId: r.tenantId,
    city: r.city,
    state: r.state,
    zipCode: r.zipCode,
    fhirVersion: r.fhirVersion,
  });

  for (const vendor of ["meditech", "athenahealth", "oracle-health"]) {
    test(`export ${vendor}, ingest the file as ${vendor} into an empty database: the same entries, the same ids`, async () => {
      const records = await pageThroughList(live.app, `vendor=${vendor}`);
      expect(records.length).toBeGreaterThan(20);
      const file = join(live.dir, `${vendor}.fhir.json`);
      writeFileSync(file, (await exportText(live.app, `format=fhir&vendor=${vendor}`)).text);
      const target = join(live.dir, `${vendor}-roundtrip.sqlite`);
      const {
        code: exitCode,
        stdout,
        stderr,
      } = await runScript("src/pipeline/ingest/cli.ts", ["--vendor", vendor, "--file", file], {
        DATABASE_PATH: target,
      });
      expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: "" });
      expect(stdout).toContain(vendor);
      const copy = new Database(target, { readonly: true });
      const rows = copy
        .prepare(
          `SELECT id, url, organization_name AS organizationName, npi, tenant_id AS tenantId, city, state,
                  zip_code AS zipCode, fhir_version AS fhirVersion FROM entries WHERE vendor_id = ?`,
        )
        .all(vendor) as Row[];
      const total = (copy.prepare("SELECT COUNT(*) AS n FROM entries").get() as { n: number }).n;
      copy.close();
      expect(total).toBe(records.length);
      const byId = (a: Row, b: Row) => (a.id < b.id ? -1 : 1);
      // One Endpoint per URL carries one FHIR version: that of the URL's first entry in list order
      // (entries of one URL differ only before a probe, when their lists hint differently). An
      // Endpoint without a version is read as ingest reads any list: the URL's version segment,
      // else the version the registry knows the developer serves.
      const urlVersion = new Map<string, string>();
      for (const r of records) if (!urlVersion.has(r.url)) urlVersion.set(r.url, r.fhirVersion);
      const versionBack = (url: string) => {
        const exported = urlVersion.get(url)!;
        if (exported !== "UNKNOWN") return exported;
        return fhirVersionOfUrl(url) ?? findVendor(loadRegistry(), vendor).defaultFhirVersion ?? "UNKNOWN";
      };
      const expected = records.map((r) => ({ ...fields(r), fhirVersion: versionBack(r.url) }));
      expect(rows.map(fields).sort(byId)).toEqual(expected.sort(byId));
    }, 60_000);
  }
});
