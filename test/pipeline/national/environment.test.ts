/**
 * The national directory (db/national/, the real published lists) and its non-production entries:
 * `data:audit` counts them by rule, the list's `environment=` filter finds the same entries, and
 * the brands bundle patient apps read holds none of them (while the FHIR export, which keeps every
 * listed entry, does).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { environmentMatch, urlEnvironment } from "../../../src/model/environment";
import { auditDatabase } from "../../../src/pipeline/national/audit";
import { createTestApp } from "../../support/app";
import { nationalDatabase } from "../../support/built-once";

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
    const report = auditDatabase(openDatabase(path).sqlite);
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
    for (const name of ["Epic Sandbox", "A - Test Clinic", "Sample Client 001", "Practice Name", "zzzzzzz"])
      expect(names.has(name)).toBe(false);
    const exported = await resourcesOf(await fetch(`${origin}/api/v1/export?format=fhir`));
    const exportedNames = new Set(exported.map((r) => r.name));
    for (const name of ["Epic Sandbox", "A - Test Clinic", "Sample Client 001"])
      expect(exportedNames.has(name)).toBe(true);
  }, 120_000);
});
