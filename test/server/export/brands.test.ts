/**
 * The national brands bundle (built from the bundled national lists, db/national/) checked
 * against SMART App Launch 2.2's User-access Brands rules, as the IG states them (brands.html and
 * the User Access Brand, User Access Endpoint and User Access Brands Bundle profiles), and
 * against the FHIR R4 invariants; and the organization totals of each surface.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { type Db, openDatabase } from "../../../src/db/client";
import { PublishedDocument } from "../../contract/published-document";
import { createTestApp } from "../../support/app";
import { nationalDatabase } from "../../support/built-once";
import { fhirIssues } from "../../support/fhir-invariants";
import type { FhirResource as Resource } from "../../support/fhir-resource";
import { reportMeasurement } from "../../support/measurements";
import { removeTempDirs, tempDir } from "../../support/temp-db";

const PUBLIC_ORIGIN = "https://directory.example.org";
const FHIR_VERSION_EXTENSION = "http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version";
const DATA_ABSENT_REASON = "http://hl7.org/fhir/StructureDefinition/data-absent-reason";
const VERSION_CODES = ["1.0.2", "3.0.2", "4.0.1", "4.3.0", "5.0.0"];
const ENDPOINT_STATUSES = ["active", "suspended", "error", "off", "entered-in-error", "test"];
/** The Data Absent Reasons the IG allows in a Brand Bundle, and no other. */
const ABSENT_REASONS = ["asked-unknown", "asked-declined"];
const isHttps = (text: string | undefined) => text?.startsWith("https://") === true && URL.canParse(text!);
const isInstant = (text: unknown) =>
  typeof text === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text);

/**
 * Every way `bundle` breaks the brands rules, as messages (none: []). From the IG: the Bundle is
 * a `collection` with a `timestamp`; an Endpoint has the endpoint-fhir-version extension (1..*),
 * connectionType hl7-fhir-rest, payloadType `none`, an address and a url contact for developers
 * whose value is an https:// URL (the configuration-url slice: system and value 1..1);
 * a Brand (Organization) has a name (1..1) and a website as telecom (1..1); for a required value
 * the publisher may give a Data Absent Reason of `asked-declined` or `asked-unknown` and no other.
 * And no http:// link for a patient app: every contact and telecom value is https://;
 * the publisher names every Endpoint from at least one Brand, and a Brand offers Endpoints or is
 * partOf a Brand that does; references resolve inside the Bundle. SHOULDs checked too:
 * meta.lastUpdated on every resource, address.country.
 */
function brandsIssues(bundle: Resource): string[] {
  const issues: string[] = [];
  const fail = (message: string) => issues.length < 20 && issues.push(message);
  if (bundle.resourceType !== "Bundle" || bundle.type !== "collection") fail("Bundle: not a collection Bundle");
  if (!isInstant(bundle.timestamp)) fail("Bundle.timestamp: missing");
  if (!isInstant(bundle.meta?.lastUpdated)) fail("Bundle.meta.lastUpdated: missing");
  const byReference = new Map<string, Resource>();
  for (const { fullUrl, resource } of bundle.entry ?? []) {
    const reference = `${resource.resourceType}/${resource.id}`;
    if (fullUrl !== `${PUBLIC_ORIGIN}/fhir/${reference}`) fail(`${fullUrl}: not the resource's URL`);
    if (byReference.has(reference)) fail(`${reference}: twice`);
    byReference.set(reference, resource);
  }
  const resolved = (reference: string | undefined, type: string) =>
    reference?.startsWith(`${type}/`) ? byReference.get(reference) : undefined;
  const named = new Set<string>();
  const offers = (brand: Resource | undefined) =>
    (brand?.endpoint ?? []).some(({ reference }) => resolved(reference, "Endpoint") !== undefined);
  for (const [where, resource] of byReference) {
    if (!isInstant(resource.meta?.lastUpdated)) fail(`${where}: no meta.lastUpdated`);
    if (resource.resourceType === "Endpoint") {
      const versions = (resource.extension ?? []).filter((e) => e.url === FHIR_VERSION_EXTENSION);
      if (versions.length === 0 || !versions.every((e) => VERSION_CODES.includes(e.valueCode ?? "")))
        fail(`${where}: endpoint-fhir-version missing or not a FHIR version`);
      if (!ENDPOINT_STATUSES.includes(resource.status ?? "")) fail(`${where}: status`);
      const { system, code } = resource.connectionType ?? {};
      if (system !== "http://terminology.hl7.org/CodeSystem/endpoint-connection-type" || code !== "hl7-fhir-rest")
        fail(`${where}: connectionType is not hl7-fhir-rest`);
      const payload = resource.payloadType ?? [];
      if (payload.length !== 1 || !payload[0]!.coding.some((c) => c.code === "none"))
        fail(`${where}: payloadType is not none`);
      if (typeof resource.address !== "string" || !URL.canParse(resource.address)) fail(`${where}: address`);
      const contacts = resource.contact ?? [];
      const absent = (c: (typeof contacts)[number]) =>
        c.value === undefined &&
        c._value?.extension?.some((e) => e.url === DATA_ABSENT_REASON && ABSENT_REASONS.includes(e.valueCode ?? ""));
      if (!contacts.some((c) => c.system === "url" && (isHttps(c.value) || absent(c))))
        fail(`${where}: no url contact for app developers (an https:// URL or its absent reason)`);
      for (const c of contacts) if (c.value !== undefined && !isHttps(c.value)) fail(`${where}: contact ${c.value}`);
    } else if (resource.resourceType === "Organization") {
      if (!resource.name) fail(`${where}: no name`);
      const telecom = resource.telecom ?? [];
      if (telecom.length === 0) fail(`${where}: no telecom (the brand's website) nor a data-absent-reason`);
      for (const contact of telecom) {
        const absent = contact.extension?.find((e) => e.url === DATA_ABSENT_REASON)?.valueCode;
        if (absent !== undefined && !ABSENT_REASONS.includes(absent))
          fail(`${where}: data-absent-reason ${absent}, which the IG does not allow`);
        if (contact.system !== "url" || (contact.value === undefined) === (absent === undefined))
          fail(`${where}: telecom is neither a url nor an absent one`);
        if (contact.value !== undefined && !isHttps(contact.value)) fail(`${where}: telecom ${contact.value}`);
      }
      for (const identifier of resource.identifier ?? [])
        if (!identifier.system || !identifier.value) fail(`${where}: identifier without system or value`);
      for (const address of (resource.address ?? []) as { country?: string }[])
        if (address.country !== "US") fail(`${where}: address without country`);
      for (const { reference } of resource.endpoint ?? [])
        if (resolved(reference, "Endpoint") === undefined) fail(`${where}: endpoint ${reference} does not resolve`);
        else named.add(reference);
      if (!offers(resource) && !offers(resolved(resource.partOf?.reference, "Organization")))
        fail(`${where}: a brand that offers no Endpoint and is part of no brand that does`);
    } else fail(`${where}: neither Endpoint nor Organization`);
  }
  for (const [where, resource] of byReference)
    if (resource.resourceType === "Endpoint" && !named.has(where)) fail(`${where}: named by no brand`);
  return issues;
}

let db: Db;
let app: ReturnType<typeof createTestApp>;
let origin: string;
let brands: Resource;
let exported: Resource;

beforeAll(async () => {
  const path = `${tempDir()}/national.sqlite`;
  await nationalDatabase(path);
  db = openDatabase(path);
  const config = loadConfig({
    DATABASE_PATH: path,
    RATE_LIMIT_MAX: "0",
    LOG_LEVEL: "error",
    PUBLIC_ORIGIN,
  });
  app = createTestApp({ db, config });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  origin = `http://127.0.0.1:${app.server!.port}`;
  brands = (await (await fetch(`${origin}/api/v1/brands`)).json()) as Resource;
  exported = (await (await fetch(`${origin}/api/v1/export?format=fhir`)).json()) as Resource;
}, 180_000);

afterAll(async () => {
  await app?.stop(true);
  app?.directory.close();
  db?.sqlite.close();
  removeTempDirs();
});

const resources = (bundle: Resource) => (bundle.entry ?? []).map((entry) => entry.resource);
/**
 * A copy of `bundle` whose resources may be given other fields (not changed inside one): each
 * resource copied, its fields shared with the original. A deep copy of the national bundle took
 * most of a CPU second.
 */
const withOwnResources = (bundle: Resource): Resource => ({
  ...bundle,
  entry: bundle.entry?.map((entry) => ({ ...entry, resource: { ...entry.resource } })),
});
const organizations = (bundle: Resource) => resources(bundle).filter((r) => r.resourceType === "Organization");

describe("the national brands bundle", () => {
  test("meets the User-access Brands rules: every Endpoint named by a brand, telecom or its reason", () => {
    expect(resources(brands).filter((r) => r.resourceType === "Endpoint").length).toBeGreaterThan(20_000);
    expect(brandsIssues(brands)).toEqual([]);
  });

  test("the validator is not vacuous: it finds what a broken bundle breaks", () => {
    const broken = withOwnResources(brands);
    const [first, second] = organizations(broken).filter((o) => !o.id!.startsWith("developer-"));
    first!.telecom = undefined;
    first!.meta = undefined;
    second!.telecom = [{ system: "url", extension: [{ url: DATA_ABSENT_REASON, valueCode: "unknown" }] }];
    const developer = organizations(broken).find((o) => o.id!.startsWith("developer-") && o.endpoint?.length === 1)!;
    const orphan = developer.endpoint![0]!.reference;
    developer.endpoint = [];
    expect(brandsIssues(broken)).toEqual([
      `Organization/${first!.id}: no meta.lastUpdated`,
      `Organization/${first!.id}: no telecom (the brand's website) nor a data-absent-reason`,
      `Organization/${second!.id}: data-absent-reason unknown, which the IG does not allow`,
      `Organization/${developer.id}: a brand that offers no Endpoint and is part of no brand that does`,
      `${orphan}: named by no brand`,
    ]);
    // An http:// contact, and a contact with neither value nor absent reason.
    const contacts = withOwnResources(brands);
    const [plain, unexplained] = resources(contacts).filter((r) => r.resourceType === "Endpoint");
    plain!.contact = [{ system: "url", value: "http://example.org/developers" }];
    unexplained!.contact = [{ system: "url" }];
    expect(brandsIssues(contacts)).toEqual([
      `Endpoint/${plain!.id}: no url contact for app developers (an https:// URL or its absent reason)`,
      `Endpoint/${plain!.id}: contact http://example.org/developers`,
      `Endpoint/${unexplained!.id}: no url contact for app developers (an https:// URL or its absent reason)`,
    ]);
  }, 60_000);

  test("holds to the published document (/docs/json): aliases, narratives, absent contacts, repair marks", async () => {
    const document = await PublishedDocument.of({
      handle: (request) => fetch(new URL(new URL(request.url).pathname, origin)),
    });
    const text = JSON.stringify(brands);
    // What the national bundle has that a small dataset may not: each is in the document.
    for (const member of ['"alias":', '"text":{"status":"additional"', '"_value":{"extension"', '"_address":'])
      expect([member, text.includes(member)]).toEqual([member, true]);
    const headers = new Headers({ "content-type": "application/fhir+json" });
    expect(document.problems("GET", "/api/v1/brands", 200, headers, text)).toEqual([]);
    expect(document.problems("GET", "/api/v1/export", 200, headers, JSON.stringify(exported))).toEqual([]);
  }, 120_000);

  test("meets the FHIR R4 invariants", () => {
    expect(fhirIssues(brands as never).slice(0, 10)).toEqual([]);
  }, 120_000);

  test("an Endpoint no named organization offers is offered by its developer; no other developer is a brand", () => {
    const developers = organizations(brands).filter((o) => o.id!.startsWith("developer-"));
    expect(developers.length).toBeGreaterThan(10);
    const byOrganizations = new Set(
      organizations(brands)
        .filter((o) => !o.id!.startsWith("developer-"))
        .flatMap((o) => (o.endpoint ?? []).map((e) => e.reference)),
    );
    for (const developer of developers) {
      expect(developer.endpoint!.length).toBeGreaterThan(0);
      for (const { reference } of developer.endpoint!) expect(byOrganizations.has(reference)).toBe(false);
      // Its page when the developer publishes it over https, else the reason it is absent.
      const [telecom] = developer.telecom!;
      if (telecom!.value === undefined) expect(telecom!.extension?.[0]?.valueCode).toBe("asked-unknown");
      else expect(telecom!.value).toStartWith("https://");
    }
    // drchrono serves its practices from one URL, published without practice names.
    expect(developers.map((d) => d.id)).toContain("developer-drchrono");
  });

  test("no http:// link: the developers whose page is http:// only give its absent reason, as contact and telecom", () => {
    const text = JSON.stringify(brands);
    expect(text).not.toContain('"value":"http://');
    const byReference = new Map(resources(brands).map((r) => [`${r.resourceType}/${r.id}`, r]));
    // Agastha and Genius Solutions publish their endpoint list pages over http:// only, and no
    // https:// page of theirs is known (their lists, CHPL's list of lists, their products).
    for (const id of ["agastha", "genius-solutions"]) {
      const developer = byReference.get(`Organization/developer-${id}`)!;
      expect(developer.telecom).toEqual([
        { extension: [{ url: DATA_ABSENT_REASON, valueCode: "asked-unknown" }], system: "url" },
      ]);
      for (const { reference } of developer.endpoint!)
        expect(byReference.get(reference)!.contact).toEqual([
          { system: "url", _value: { extension: [{ url: DATA_ABSENT_REASON, valueCode: "asked-unknown" }] } },
        ]);
    }
  });

  test("names that differ only in letter case are one brand, and one Organization in the export and /fhir", async () => {
    // Entries of one developer whose organization differs only in the case of its name.
    const records = (await (await fetch(`${origin}/api/v1/export?format=ndjson`)).text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, string | null>);
    const groups = new Map<string, { names: Set<string>; urls: Set<string> }>();
    for (const r of records) {
      if (r.organizationName === null) continue;
      const key = [r.vendorId, r.organizationName!.toLowerCase(), r.npi, r.city, r.state, r.zipCode].join("\n");
      const group = groups.get(key) ?? { names: new Set(), urls: new Set() };
      group.names.add(r.organizationName!);
      group.urls.add(`Endpoint/${Bun.SHA256.hash(r.url!, "hex")}`);
      groups.set(key, group);
    }
    const split = [...groups.values()].filter((group) => group.names.size > 1);
    expect(split.length).toBeGreaterThanOrEqual(10);
    for (const bundle of [brands, exported]) {
      const organizationsByName = new Map<string, Resource[]>();
      for (const o of organizations(bundle)) {
        const key = o.name?.toLowerCase() ?? "";
        organizationsByName.set(key, [...(organizationsByName.get(key) ?? []), o]);
      }
      for (const { names, urls } of split) {
        const holding = (organizationsByName.get([...names][0]!.toLowerCase()) ?? []).filter((o) =>
          (o.endpoint ?? []).some((e) => urls.has(e.reference)),
        );
        if (bundle === brands && holding.length === 0) continue; // its Endpoints' version is unknown
        expect([[...names], holding.length]).toEqual([[...names], 1]);
        const read = await fetch(`${origin}/fhir/Organization/${holding[0]!.id}`);
        expect(read.status).toBe(200);
        expect(((await read.json()) as Resource).name).toBe(holding[0]!.name!);
      }
    }
  }, 60_000);
});

test("each surface's organization total, and what it counts", async () => {
  const vendors = ((await (await fetch(`${origin}/api/v1/vendors`)).json()) as { data: { endpointCount: number }[] })
    .data;
  const count = async (query: string) =>
    ((await (await fetch(`${origin}/fhir/Organization?${query}`)).json()) as Resource).total!;
  const fhirTotal = await count("_summary=count");
  const exportedOrganizations = organizations(exported);
  const exportedDevelopers = exportedOrganizations.filter((o) => o.id!.startsWith("developer-"));
  // /fhir: every organization, and a developer per vendor of /api/v1/vendors, also one with no entry listed.
  expect(fhirTotal).toBe(exportedOrganizations.length - exportedDevelopers.length + vendors.length);
  // The export: the same organizations, and the developer of every vendor with an entry in it,
  // also a vendor whose URLs are all another developer's (the Endpoint is written once).
  expect(exportedDevelopers.length).toBe(vendors.filter((v) => v.endpointCount > 0).length);
  // The brands bundle: the named organizations with an Endpoint of known version, and the
  // developers that offer the Endpoints no named organization does.
  const endpointsOfBrands = new Set(
    resources(brands)
      .filter((r) => r.resourceType === "Endpoint")
      .map((r) => `Endpoint/${r.id}`),
  );
  // The bundle leaves non-production entries out: its organizations are those of the production export.
  const production = (await (
    await fetch(`${origin}/api/v1/export?format=fhir&environment=production`)
  ).json()) as Resource;
  const brandOrganizations = organizations(production).filter(
    (o) => !o.id!.startsWith("developer-") && o.name && o.endpoint!.some((e) => endpointsOfBrands.has(e.reference)),
  );
  const developerBrands = organizations(brands).filter((o) => o.id!.startsWith("developer-"));
  // One brand per practice: an organization whose name differs from a brand's only in case,
  // punctuation or spacing is merged into it, its Endpoints with it.
  const fold = (name: string) =>
    name
      .normalize("NFKD")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]/gu, "");
  const inBundle = new Map(organizations(brands).map((o) => [o.id!, o]));
  // (a brand whose own Endpoints are all left out still offers those of the spellings merged into it)
  const kept = organizations(production).filter((o) => !o.id!.startsWith("developer-") && inBundle.has(o.id!));
  for (const merged of brandOrganizations.filter((o) => !inBundle.has(o.id!))) {
    const into = [...inBundle.values()].find(
      (b) =>
        b.name !== undefined &&
        fold(b.name) === fold(merged.name!) &&
        merged.endpoint!.every(
          (e) => !endpointsOfBrands.has(e.reference) || b.endpoint!.some((r) => r.reference === e.reference),
        ),
    );
    expect([merged.name, into !== undefined]).toEqual([merged.name, true]);
  }
  expect(organizations(brands).length).toBe(kept.length + developerBrands.length);
  // docs/api.md states these totals of the national directory: they are this build's.
  const docs = readFileSync(join(import.meta.dir, "../../../docs/api.md"), "utf8").replace(/\s+/g, " ");
  const stated =
    /\*\*Organization totals by surface\*\* \(the national directory\): `\/fhir` ([\d,]+), the FHIR export ([\d,]+), the brands bundle ([\d,]+)\./.exec(
      docs,
    )!;
  const number = (text: string) => Number(text.replace(/,/g, ""));
  expect(stated.slice(1).map(number)).toEqual([fhirTotal, exportedOrganizations.length, organizations(brands).length]);
  const developersStated = /developers that offer Endpoints no named organization offers \(([\d,]+) nationally\)/.exec(
    docs,
  )!;
  expect(number(developersStated[1]!)).toBe(developerBrands.length);
  reportMeasurement(
    `organizations: /fhir ${fhirTotal}, export ${exportedOrganizations.length}, brands ${organizations(brands).length}`,
  );
}, 60_000);
