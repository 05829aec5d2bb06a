/**
 * The national directory (db/national/, the real published lists) and its non-production entries:
 * `data:audit` counts them by rule, the list's `environment=` filter finds the same entries, and
 * the brands bundle patient apps read holds none of them (while the FHIR export, which keeps every
 * listed entry, does).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { environmentMatch, urlEnvironment } from "../../../src/model/environment";
import { createTestApp } from "../../support/app";
import { nationalAudit, nationalDatabase } from "../../support/built-once";

interface Resource {
  resourceType: string;
  id: string;
  name?: string;
  address?: string;
  endpoint?: { reference: string }[];
}
const resourcesOf = async (response: Response) =>
  (((await response.json()) as { entry?: { resource: Resource }[] }).entry ?? []).map((e) => e.resource);

let dir: string;
let app: ReturnType<typeof createTestApp>;
let origin: string;
let path: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "national-environment-"));
  path = join(dir, "national.sqlite");
  await nationalDatabase(path);
  const config = loadConfig({ DATABASE_PATH: path, RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" });
  app = createTestApp({ db: openDatabase(path), config });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  origin = `http://127.0.0.1:${app.server!.port}`;
}, 120_000);
afterAll(() => {
  app?.stop(true);
  app?.directory.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Test and placeholder organizations of the bundled lists the rules read in glued words, camel case or phrases. */
const GLUED_OR_PLACEHOLDER = [
  "testepic",
  "testcerner",
  "SaratTest",
  "ZZTEST",
  "athenahealthtest",
  "PFInternalTestUseOnly - Brandon Hong",
  "PSTest1",
  "Phoenix Children's Hospital - Mock",
  "Firely Secure Example REST Endpoint",
  "Example Practice",
  "ONC Testing",
  "zusk not a real company",
  "Some Orgs",
  "here we go again",
  "testme",
];

/** Real organizations of the bundled lists with a rule's letters in their names: production, in the brands bundle. */
const REAL_NAMES = [
  "NJ - David Alan Testa DO, PA",
  "Augusta Gastrointestinal",
  "CA - Dev Mishra M.D.",
  "Austin Psychological Testing Center",
  "MLH - Devon Family Practice",
  "Northside Center for Child Development",
  "NY - Neurotest of New York",
  "MI - Itest Health PLC",
  "CC065_MOCKINGBIRD OBGYN II PLLC",
  "MI - Dream Sleep Testing",
];

/** Every listed entry's id, name and URL, paged through the list with `query`. */
async function listAll(query: string): Promise<{ id: string; organizationName: string | null; url: string }[]> {
  const out = [];
  for (let page = 1; ; page++) {
    const body = (await (await fetch(`${origin}/api/v1/endpoints?limit=100&page=${page}&${query}`)).json()) as {
      data: { id: string; organizationName: string | null; url: string }[];
    };
    out.push(...body.data);
    if (body.data.length < 100) return out;
  }
}

describe("the national directory's non-production entries", () => {
  test("data:audit counts each rule's matches, and the environment= filter finds exactly those entries", async () => {
    const report = await nationalAudit();
    const audited = new Set(report.environments.flatMap((rule) => rule.entries.map((e) => e.id)));
    const nonProduction = await listAll("environment=non-production");
    expect(nonProduction.length).toBeGreaterThan(400);
    expect(nonProduction.length).toBe(audited.size);
    expect(new Set(nonProduction.map((e) => e.id.slice(0, 12)))).toEqual(audited);
    const production = (
      (await (await fetch(`${origin}/api/v1/endpoints?environment=production&limit=1`)).json()) as {
        meta: { total: number };
      }
    ).meta.total;
    expect(production + nonProduction.length).toBe(report.listed);
  }, 120_000);

  test("the brands bundle holds no non-production entry; the FHIR export keeps them", async () => {
    const brands = await resourcesOf(await fetch(`${origin}/api/v1/brands`));
    const endpoints = new Map(brands.filter((r) => r.resourceType === "Endpoint").map((r) => [r.id, r.address!]));
    expect(endpoints.size).toBeGreaterThan(1000);
    for (const address of endpoints.values()) expect(urlEnvironment(address)).toBeNull();
    const organizations = brands.filter((r) => r.resourceType === "Organization" && !r.id.startsWith("developer-"));
    for (const organization of organizations)
      for (const { reference } of organization.endpoint ?? [])
        expect(environmentMatch(endpoints.get(reference.slice("Endpoint/".length))!, organization.name!)).toBeNull();
    const names = new Set(organizations.map((o) => o.name));
    for (const name of [
      "Epic Sandbox",
      "A - Test Clinic",
      "Sample Client 001",
      "Practice Name",
      "zzzzzzz",
      ...GLUED_OR_PLACEHOLDER,
    ])
      expect(names.has(name)).toBe(false);
    for (const name of REAL_NAMES) expect([name, names.has(name)]).toEqual([name, true]);
    const exported = await resourcesOf(await fetch(`${origin}/api/v1/export?format=fhir`));
    const exportedNames = new Set(exported.map((r) => r.name));
    for (const name of ["Epic Sandbox", "A - Test Clinic", "Sample Client 001"])
      expect(exportedNames.has(name)).toBe(true);
  }, 120_000);
});

describe("the environment rules on the bundled lists", () => {
  test("the hosts glued to a digit or product are non-production; Evansville's fhirprodev stays production", async () => {
    const all = await listAll("environment=non-production");
    const urls = new Set(all.map((e) => e.url));
    for (const url of [
      "https://scm16testps1.nmhs.net/fhir",
      "https://suntstfhirvip.cmc-nh.org/FHIR",
      "https://v2qatw17-pm15.open.allscripts.com/FHIR",
      "https://mock-fhir.methodisthospital.org/FHIR",
    ])
      expect([url, urls.has(url)]).toEqual([url, true]);
    const fhirprodev = (entries: { url: string }[]) => entries.filter((e) => e.url.includes("//fhirprodev."));
    expect(fhirprodev(await listAll("query=vincent%20evansville")).length).toBe(6);
    const production = fhirprodev(await listAll("query=vincent%20evansville&environment=production"));
    expect(production.length).toBe(6);
    expect(production.find((e) => e.url.endsWith("/R4/fhir-Prod"))).toBeDefined();
  }, 120_000);

  test("docs/api.md's figures of non-production entries by rule are the audit's of a fresh build", async () => {
    const report = await nationalAudit();
    const docs = readFileSync(join(import.meta.dir, "../../../docs/api.md"), "utf8").replace(/\s+/g, " ");
    const sentence = /On the bundled lists: ([\d,]+) of the ([\d,]+) listed entries \(([^)]*)\)/.exec(docs)!;
    const number = (text: string) => Number(text.replace(/,/g, ""));
    expect(number(sentence[1]!)).toBe(report.environments.reduce((n, e) => n + e.entries.length, 0));
    expect(number(sentence[2]!)).toBe(report.listed);
    const [counted, none] = sentence[3]!.split(";");
    const documented = new Map([...counted!.matchAll(/`([a-z-]+)` (\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
    for (const m of none!.matchAll(/`([a-z-]+)`/g)) documented.set(m[1]!, 0);
    expect(Object.fromEntries(documented)).toEqual(
      Object.fromEntries(report.environments.map((e) => [e.rule, e.entries.length])),
    );
  });
});

describe("the report cards' non-production figures on the bundled lists", () => {
  test("each card and the national figures count non-production entries by rule, as data:audit does; the CSV carries every figure", async () => {
    const report = await nationalAudit();
    const body = (await (await fetch(`${origin}/api/v1/vendors/report`)).json()) as {
      data: {
        national: { list: { nonProduction: number; nonProductionByRule: Record<string, number> } };
        vendors: { list: { nonProduction: number } }[];
      };
    };
    const byRule = Object.fromEntries(report.environments.map((e) => [e.rule, e.entries.length]));
    expect(body.data.national.list.nonProductionByRule).toEqual(byRule);
    expect(body.data.national.list.nonProduction).toBe(670);
    expect(body.data.vendors.reduce((n, card) => n + card.list.nonProduction, 0)).toBe(670);
    const csv = await (await fetch(`${origin}/api/v1/vendors/report?format=csv`)).text();
    const header = csv.split("\r\n")[0]!.split(",");
    for (const column of [
      "list.unusableByReason.internal-suffix",
      "list.nonProduction",
      "list.nonProductionByRule.name-placeholder",
    ])
      expect(header).toContain(column);
  });
});
