/**
 * /fhir through a real FHIR client (fhir-kit-client) against a real server on 127.0.0.1 over a
 * generated dataset: every resource it returns is checked against the official FHIR R4 JSON
 * schema, and what it finds against the JSON API and the FHIR export of the same data.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { ValidateFunction } from "ajv";
import { Client } from "fhir-kit-client";
import { markDatasetChanged } from "../../../src/db/dataset-meta";
import { fixtureApp } from "../../support/fixture";
import { appOnGeneratedDataset } from "../../support/generated-app";
import { fhirValidator } from "../export/fhir-schema";
import { exportText, type FhirBundle, type ListRecord, pageThroughList } from "../export/helpers";

const NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi";

interface Resource {
  resourceType: string;
  id: string;
  name?: string;
  identifier?: { system: string; value: string }[];
  address?: { city?: string; state?: string; postalCode?: string }[] | string;
  endpoint?: { reference: string }[];
  managingOrganization?: { reference: string };
  [key: string]: unknown;
}
interface Bundle {
  resourceType: "Bundle";
  type: string;
  total?: number;
  link: { relation: string; url: string }[];
  entry?: { fullUrl: string; resource: Resource; search: { mode: string } }[];
}
interface Outcome {
  resourceType: "OperationOutcome";
  issue: { severity: string; code: string; diagnostics: string }[];
}

let base: string;
let client: Client;
let validateBundle: ValidateFunction;
let validateResource: ValidateFunction;
let listed: ListRecord[];

const live = appOnGeneratedDataset({ endpoints: 2_500, seed: 11 }, { listen: true });

beforeAll(async () => {
  base = `${live.origin}/fhir`;
  client = new Client({ baseUrl: base });
  validateBundle = await fhirValidator("Bundle", ["Endpoint", "Organization"]);
  validateResource = await fhirValidator("ResourceList", [
    "Endpoint",
    "Organization",
    "CapabilityStatement",
    "OperationOutcome",
    "SearchParameter",
  ]);
  listed = await pageThroughList(live.app, "");
});

function expectValid(validate: ValidateFunction, value: unknown) {
  const valid = validate(value);
  if (!valid) throw new Error(`not valid FHIR R4: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
}

/** Checks a searchset Bundle the way a FHIR client relies on it, and returns it. */
function checkBundle(bundle: Bundle): Bundle {
  expectValid(validateBundle, bundle);
  expect(bundle.type).toBe("searchset");
  for (const link of bundle.link) expect(link.url.startsWith(`${base}/`)).toBe(true);
  for (const entry of bundle.entry ?? [])
    expect(entry.fullUrl).toBe(`${base}/${entry.resource.resourceType}/${entry.resource.id}`);
  return bundle;
}

/** Every page of a search, following `next` with the client's nextPage. */
async function allPages(resourceType: string, searchParams: Record<string, string>) {
  const pages: Bundle[] = [checkBundle((await client.search({ resourceType, searchParams })) as unknown as Bundle)];
  for (;;) {
    const next = client.nextPage({ bundle: pages.at(-1)! as never });
    if (next === undefined) return pages;
    pages.push(checkBundle((await next) as unknown as Bundle));
  }
}

const matches = (pages: Bundle[]) =>
  pages.flatMap((page) => (page.entry ?? []).filter((e) => e.search.mode === "match").map((e) => e.resource));
const includes = (pages: Bundle[]) =>
  pages.flatMap((page) => (page.entry ?? []).filter((e) => e.search.mode === "include").map((e) => e.resource));

/** What an organization is made of in the JSON API's records: vendor, name, NPI, city, state, ZIP. */
const recordKey = (r: ListRecord) => JSON.stringify([r.organizationName, r.npi, r.city, r.state, r.zipCode]);
const organizationKey = (o: Resource) => {
  const address = (o.address as { city?: string; state?: string; postalCode?: string }[] | undefined)?.[0];
  return JSON.stringify([
    o.name ?? null,
    o.identifier?.find((identifier) => identifier.system === NPI_SYSTEM)?.value ?? null,
    address?.city ?? null,
    address?.state ?? null,
    address?.postalCode ?? null,
  ]);
};

async function raw(path: string, init?: RequestInit) {
  const response = await fetch(`${base}${path}`, init);
  return { response, body: (await response.json()) as Bundle };
}

/** The OperationOutcome fhir-kit-client reports for a failed request. */
async function failure(promise: Promise<unknown>): Promise<{ status: number; outcome: Outcome }> {
  try {
    await promise;
  } catch (error) {
    const { status, data } = (error as { response: { status: number; data: unknown } }).response;
    const outcome = (typeof data === "string" ? JSON.parse(data) : data) as Outcome;
    expectValid(validateResource, outcome);
    expect(outcome.resourceType).toBe("OperationOutcome");
    return { status, outcome };
  }
  throw new Error("the request succeeded");
}

describe("/fhir with a FHIR client", () => {
  test("metadata: an instance CapabilityStatement for 4.0.1 JSON, declaring what the server does", async () => {
    const statement = (await client.capabilityStatement()) as Resource & {
      kind: string;
      fhirVersion: string;
      format: string[];
      rest: {
        resource: {
          type: string;
          interaction: { code: string }[];
          searchInclude?: string[];
          searchRevInclude?: string[];
          searchParam: { name: string; definition: string }[];
        }[];
      }[];
    };
    expectValid(validateResource, statement);
    expect(statement).toMatchObject({ kind: "instance", fhirVersion: "4.0.1" });
    expect(statement.format).toContain("json");
    const [endpoint, organization] = ["Endpoint", "Organization"].map(
      (type) => statement.rest[0]!.resource.find((r) => r.type === type)!,
    );
    for (const resource of [endpoint!, organization!])
      expect(resource.interaction.map((i) => i.code).sort()).toEqual(["read", "search-type"]);
    expect(organization!.searchInclude).toContain("Organization:endpoint");
    expect(organization!.searchRevInclude).toContain("Endpoint:organization");
    expect(endpoint!.searchInclude).toContain("Endpoint:organization");
    expect(organization!.searchParam.map((p) => p.name)).toEqual(
      expect.arrayContaining(["name", "identifier", "address-state", "address-city", "address-postalcode", "endpoint"]),
    );
    // Our own parameter is defined by a SearchParameter this server serves.
    const version = endpoint!.searchParam.find((p) => p.name === "fhir-version")!;
    expect(version.definition.startsWith(`${base}/SearchParameter/`)).toBe(true);
    const definition = (await (await fetch(version.definition)).json()) as Resource;
    expectValid(validateResource, definition);
    expect(definition).toMatchObject({ resourceType: "SearchParameter", code: "fhir-version", base: ["Endpoint"] });
  });

  test("Endpoint search paged to its end: one Endpoint per distinct listed URL, the export's ids", async () => {
    const pages = await allPages("Endpoint", { _count: "97" });
    const endpoints = matches(pages);
    const urls = new Set(listed.map((r) => r.url));
    expect(pages[0]!.total).toBe(urls.size);
    expect(endpoints.length).toBe(urls.size);
    expect(new Set(endpoints.map((e) => e.address))).toEqual(urls);
    expect(pages.length).toBe(Math.ceil(urls.size / 97));
    const { text } = await exportText(live.app, "format=fhir");
    const exported = ((JSON.parse(text) as FhirBundle).entry ?? []).map((e) => e.resource);
    expect(new Set(endpoints.map((e) => e.id))).toEqual(
      new Set(exported.filter((r) => r.resourceType === "Endpoint").map((r) => r.id)),
    );
    // Every Endpoint names its developer, which reads back as an Organization.
    const developer = endpoints[0]!.managingOrganization!.reference;
    const read = (await client.request(developer)) as Resource;
    expectValid(validateResource, read);
    expect(`Organization/${read.id}`).toBe(developer);
  });

  test("Organization search with _include paged to its end: the export's organizations, the developers, their endpoints", async () => {
    const pages = await allPages("Organization", { _include: "Organization:endpoint", _count: "100" });
    const organizations = matches(pages);
    const { text } = await exportText(live.app, "format=fhir");
    const exported = ((JSON.parse(text) as FhirBundle).entry ?? []).map((e) => e.resource);
    const vendors = new Set(listed.map((r) => r.vendorId));
    const developers = organizations.filter((o) => o.id.startsWith("developer-"));
    for (const vendor of vendors) expect(developers.map((o) => o.id)).toContain(`developer-${vendor}`);
    expect(new Set(organizations.filter((o) => !o.id.startsWith("developer-")).map((o) => o.id))).toEqual(
      new Set(
        exported.filter((r) => r.resourceType === "Organization" && !r.id.startsWith("developer-")).map((r) => r.id),
      ),
    );
    expect(pages[0]!.total).toBe(organizations.length);
    // Each page includes exactly the Endpoints its organizations reference.
    for (const page of pages) {
      const referenced = new Set(
        (page.entry ?? [])
          .filter((e) => e.search.mode === "match")
          .flatMap((e) => (e.resource.endpoint ?? []).map((r) => r.reference)),
      );
      const included = (page.entry ?? []).filter((e) => e.search.mode === "include");
      expect(new Set(included.map((e) => `Endpoint/${e.resource.id}`))).toEqual(referenced);
    }
    expect(includes(pages).length).toBeGreaterThan(0);
  });

  test("read returns the resource the search found; removed entries and unknown ids are 404 OperationOutcomes", async () => {
    const [page] = await allPages("Organization", {
      "address-state": "OH",
      _count: "3",
      _include: "Organization:endpoint",
    });
    for (const entry of page!.entry!) {
      const read = (await client.read({
        resourceType: entry.resource.resourceType,
        id: entry.resource.id,
      })) as Resource;
      expectValid(validateResource, read);
      expect(read).toEqual(entry.resource);
    }
    // The fixture's removed entry: the JSON API still answers it by id, /fhir does not serve it.
    const fixture = fixtureApp({ LOG_LEVEL: "error" });
    const [entryId, gone] = fixture.db.sqlite
      .prepare("SELECT id, url FROM entries WHERE status = 'removed'")
      .values()[0] as [string, string];
    expect((await fixture.app.handle(new Request(`http://localhost/api/v1/endpoints/${entryId}`))).status).toBe(200);
    const removed = await fixture.app.handle(
      new Request(`http://localhost/fhir/Endpoint/${Bun.SHA256.hash(gone, "hex")}`),
    );
    expect(removed.status).toBe(404);
    expect(((await removed.json()) as Outcome).issue[0]!.code).toBe("not-found");
    fixture.app.directory.close();
    fixture.db.sqlite.close();
    const missing = await failure(client.read({ resourceType: "Endpoint", id: "0".repeat(64) }));
    expect(missing.status).toBe(404);
    expect(missing.outcome.issue[0]!.code).toBe("not-found");
    expect((await failure(client.read({ resourceType: "Organization", id: "developer-nobody" }))).status).toBe(404);
  });

  test("identifier (NPI) search finds the organizations with that NPI", async () => {
    const npis = [...new Set(listed.map((r) => r.npi).filter((npi) => npi !== null))].slice(0, 3) as string[];
    expect(npis.length).toBe(3);
    for (const npi of npis) {
      for (const identifier of [`${NPI_SYSTEM}|${npi}`, npi]) {
        const found = matches(await allPages("Organization", { identifier }));
        const expected = new Set(listed.filter((r) => r.npi === npi).map(recordKey));
        expect(new Set(found.map(organizationKey))).toEqual(expected);
      }
    }
    const otherSystem = await allPages("Organization", { identifier: `urn:other|${npis[0]}` });
    expect(otherSystem[0]!.total).toBe(0);
  });

  test("name search finds the organizations the JSON API's query finds (a subset of query=x)", async () => {
    const names = [...new Set(listed.map((r) => r.organizationName).filter((n) => n !== null))] as string[];
    const samples = [
      names[0]!.split(" ")[0]!,
      names[7]!.slice(0, 4),
      names[20]!.toUpperCase(),
      `${names[3]!.split(" ")[0]} x`,
    ];
    for (const x of samples) {
      const organizations = matches(await allPages("Organization", { name: x, _count: "200" })).filter(
        (o) => !o.id.startsWith("developer-"),
      );
      const query = new Set((await pageThroughList(live.app, `query=${encodeURIComponent(x)}`)).map(recordKey));
      for (const o of organizations) expect(query.has(organizationKey(o))).toBe(true);
      expect(organizations.length).toBe(query.size);
    }
    const exact = matches(await allPages("Organization", { "name:exact": names[0]! })).map((o) => o.name);
    expect(new Set(exact)).toEqual(new Set([names[0]]));
    const contains = matches(await allPages("Organization", { "name:contains": names[0]!.slice(2, 7).toLowerCase() }));
    expect(
      contains.map((o) => o.name!.toLowerCase()).every((n) => n.includes(names[0]!.slice(2, 7).toLowerCase())),
    ).toBe(true);
  });

  test("address-state matches the JSON API's state filter; Endpoint filters agree with each resource", async () => {
    const ohio = matches(await allPages("Organization", { "address-state": "OH", _count: "100" }));
    expect(new Set(ohio.map(organizationKey))).toEqual(new Set(listed.filter((r) => r.state === "OH").map(recordKey)));
    const vendor = listed[0]!.vendorId;
    const ofVendor = matches(
      await allPages("Endpoint", { organization: `Organization/developer-${vendor}`, _count: "200" }),
    );
    expect(ofVendor.length).toBeGreaterThan(0);
    for (const e of ofVendor) expect(e.managingOrganization!.reference).toBe(`Organization/developer-${vendor}`);
    const r4 = await allPages("Endpoint", { "fhir-version": "4.0.1", status: "active", _count: "200" });
    for (const e of matches(r4)) {
      expect(e.status).toBe("active");
      expect(JSON.stringify(e.extension)).toContain('"valueCode":"4.0.1"');
    }
    const withDevelopers = await allPages("Endpoint", { _include: "Endpoint:organization", _count: "5" });
    const page = withDevelopers[0]!;
    expect(new Set(includes([page]).map((o) => `Organization/${o.id}`))).toEqual(
      new Set(matches([page]).map((e) => e.managingOrganization!.reference)),
    );
  });

  test("_revinclude=Endpoint:organization on a developer includes the Endpoints it manages", async () => {
    const counts = new Map<string, Set<string>>();
    for (const r of listed) counts.set(r.vendorId, (counts.get(r.vendorId) ?? new Set()).add(r.url));
    const [vendor] = [...counts].sort((a, b) => a[1].size - b[1].size)[0]!;
    const [page] = await allPages("Organization", {
      _id: `developer-${vendor}`,
      _revinclude: "Endpoint:organization",
    });
    expect(matches([page!]).map((o) => o.id)).toEqual([`developer-${vendor}`]);
    const managed = matches(await allPages("Endpoint", { organization: `developer-${vendor}`, _count: "500" }));
    expect(managed.length).toBeGreaterThan(0);
    expect(new Set(includes([page!]).map((e) => e.id))).toEqual(new Set(managed.map((e) => e.id)));
  });

  test("POST _search with a form body gives what GET gives", async () => {
    const searchParams = { "address-state": "OH", _count: "10" };
    const get = (await client.search({ resourceType: "Organization", searchParams })) as unknown as Bundle;
    const post = checkBundle(
      (await client.search({
        resourceType: "Organization",
        searchParams,
        options: { postSearch: true },
      })) as unknown as Bundle,
    );
    expect(post.entry).toEqual(get.entry!);
    expect(post.total).toBe(get.total!);
    // URL and body parameters combine; a name given twice in the body is two criteria (AND).
    const npi = listed.find((r) => r.npi !== null)!.npi!;
    const combined = await raw("/Organization/_search?_count=3", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `identifier=${npi}&identifier=${encodeURIComponent(`${NPI_SYSTEM}|`)}&name=zzzznotaname`,
    });
    expect(combined.body.total).toBe(0);
    const both = await raw("/Organization/_search?_count=3", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `identifier=${npi}&identifier=${encodeURIComponent(`${NPI_SYSTEM}|`)}`,
    });
    checkBundle(both.body);
    expect(both.body.total).toBe(new Set(listed.filter((r) => r.npi === npi).map(recordKey)).size);
    expect(both.body.link.find((l) => l.relation === "self")!.url).toBe(
      `${base}/Organization?identifier=${npi}&identifier=${NPI_SYSTEM}|&_count=3`,
    );
  });

  test("bad values are 400, unknown types 404, unknown parameters ignored unless handling=strict", async () => {
    const lenient = await raw("/Organization?address-state=OH&colour=blue&_count=2");
    expect(lenient.response.status).toBe(200);
    expect(lenient.body.link.find((l) => l.relation === "self")!.url).toBe(
      `${base}/Organization?address-state=OH&_count=2`,
    );
    const strict = await failure(
      client.search({
        resourceType: "Organization",
        searchParams: { "address-state": "OH", colour: "blue" },
        options: { headers: { Prefer: "handling=strict" } },
      }),
    );
    expect(strict.status).toBe(400);
    expect(strict.outcome.issue[0]!.diagnostics).toContain("colour");
    for (const searchParams of <Record<string, string>[]>[
      { _count: "many" },
      { "name:sounds": "x" },
      { _include: "Organization:partof" },
    ]) {
      const bad = await failure(client.search({ resourceType: "Organization", searchParams }));
      expect(bad.status).toBe(400);
    }
    const patient = await failure(client.search({ resourceType: "Patient", searchParams: { name: "x" } }));
    expect(patient.status).toBe(404);
    const xml = await raw("/Endpoint?_format=xml");
    expect(xml.response.status).toBe(406);
  });

  test("answers carry the FHIR content type, an ETag, CORS and a request id", async () => {
    const first = await fetch(`${base}/Endpoint?_count=3`);
    expect(first.headers.get("content-type")).toBe("application/fhir+json; fhirVersion=4.0");
    expect(first.headers.get("access-control-allow-origin")).toBe("*");
    expect(first.headers.get("x-request-id")).toBeTruthy();
    const etag = first.headers.get("etag")!;
    expect(etag).toBeTruthy();
    const again = await fetch(`${base}/Endpoint?_count=3`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const summary = await raw("/Endpoint?_summary=count");
    expect(summary.body.total).toBe(new Set(listed.map((r) => r.url)).size);
    expect(summary.body.entry).toBeUndefined();
    const noTotal = await raw("/Endpoint?_total=none&_count=1");
    expect(noTotal.body.total).toBeUndefined();
    expect(noTotal.body.entry!.length).toBe(1);
  });

  test("a repeated search answered from the kept answer still counts against the rate limit", async () => {
    const limited = fixtureApp({ LOG_LEVEL: "error", RATE_LIMIT_MAX: "3" });
    const statuses: number[] = [];
    let etag: string | null = null;
    for (let i = 0; i < 4; i++) {
      const response = await limited.app.handle(new Request("http://localhost/fhir/Organization?name=health"));
      statuses.push(response.status);
      if (i === 2) {
        expect(response.headers.get("etag")).toBe(etag!);
        expect(response.headers.get("ratelimit-remaining")).toBe("0");
      }
      etag ??= response.headers.get("etag");
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    limited.app.directory.close();
    limited.db.sqlite.close();
  });

  test("the first /fhir request of a version builds its index in steps: other requests are answered meanwhile", async () => {
    const fresh = fixtureApp({ LOG_LEVEL: "error" });
    const finished: string[] = [];
    const fhir = fresh.app
      .handle(new Request("http://localhost/fhir/Organization?_count=1"))
      .then((response) => finished.push(`fhir ${response.status}`));
    const health = fresh.app
      .handle(new Request("http://localhost/health"))
      .then((response) => finished.push(`health ${response.status}`));
    await Promise.all([fhir, health]);
    expect(finished).toEqual(["health 200", "fhir 200"]);
    fresh.app.directory.close();
    fresh.db.sqlite.close();
  });

  test("a next link made before a refresh answers 410 asking to restart, never a page of the new data", async () => {
    const first = (await client.search({
      resourceType: "Endpoint",
      searchParams: { _count: "50" },
    })) as unknown as Bundle;
    live.db.sqlite.transaction(() => {
      live.db.sqlite
        .prepare("UPDATE entries SET status = 'removed' WHERE rowid IN (SELECT rowid FROM entries LIMIT 60)")
        .run();
      markDatasetChanged(live.db.sqlite, "2026-11-26T00:00:00.000Z");
    })();
    expect(await live.app.directory.refreshIfChanged()).toBe(true);
    const expired = await failure(client.nextPage({ bundle: first as never })!);
    expect(expired.status).toBe(410);
    expect(expired.outcome.issue[0]!.diagnostics).toContain("first page");
    const restarted = checkBundle(
      (await client.search({ resourceType: "Endpoint", searchParams: { _count: "50" } })) as unknown as Bundle,
    );
    expect(restarted.total).toBeLessThan(first.total!);
  });
});
