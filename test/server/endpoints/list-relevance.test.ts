import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { createTestApp } from "../../support/app";
import { get, orgNames, VENDORS } from "../../support/fixture";
import { type SeedEntry, seedDatabase } from "../../support/seed";
import { tempDbPath } from "../../support/temp-db";

/** Names as the national directory has them around "cleveland clinic", under vendors that sort before the whole match. */
const NAMES: [vendorId: string, name: string][] = [
  ["athenahealth", "Clinic of Cleveland Heights"],
  ["athenahealth", "MS - Cleveland Children's Clinic"],
  ["meditech", "Cleveland Family Clinic"],
  ["meditech", "Clinicas Cleveland"],
  ["epic", "Cleveland Clinic"],
  ["oracle-health", "Cleveland Clinic"],
];

const entries: SeedEntry[] = NAMES.map(([vendorId, organizationName], i) => ({
  vendorId,
  url: `https://fhir${i}.example/r4`,
  organizationName,
  state: "OH",
  fhirVersion: "R4",
  access: ["patient"],
  status: "listed",
}));

const app = createTestApp({
  db: seedDatabase(tempDbPath(), { vendors: VENDORS, entries, probes: [], at: "2026-11-21T09:00:00.000Z" }),
  config: loadConfig({ RATE_LIMIT_MAX: "0" }),
});
const list = (query: string) => get(app, `/api/v1/endpoints${query}`);

describe("GET /api/v1/endpoints?sort=relevance", () => {
  test("whole-name matches first, then every word at a word start in order, then the rest; ties in the default order", async () => {
    const plain = orgNames((await list("?query=cleveland%20clinic")).body);
    const ranked = await list("?query=cleveland%20clinic&sort=relevance");
    expect(ranked.status).toBe(200);
    expect(orgNames(ranked.body)).toEqual([
      "Cleveland Clinic",
      "Cleveland Clinic",
      "MS - Cleveland Children's Clinic",
      "Cleveland Family Clinic",
      "Clinic of Cleveland Heights",
      "Clinicas Cleveland",
    ]);
    // The same matches as the default order, which puts the whole-name match behind the others.
    expect(ranked.body.meta.total).toBe(NAMES.length);
    expect(new Set(plain)).toEqual(new Set(orgNames(ranked.body)));
    expect(plain.indexOf("Cleveland Clinic")).toBeGreaterThan(1);
    // Ties keep the default order (vendor name: Epic Systems before Oracle Health).
    expect(ranked.body.data.slice(0, 2).map((r: { vendorName: string }) => r.vendorName)).toEqual([
      "Epic Systems",
      "Oracle Health",
    ]);
  });

  test("pages through the ranked list; a name typed in part is still the whole name", async () => {
    const first = await list("?query=clev%20clin&sort=relevance&limit=2");
    const second = await list("?query=clev%20clin&sort=relevance&limit=2&page=2");
    expect(orgNames(first.body)).toEqual(["Cleveland Clinic", "Cleveland Clinic"]);
    expect(orgNames(second.body)).toEqual(["MS - Cleveland Children's Clinic", "Cleveland Family Clinic"]);
    expect(second.body.meta.total).toBe(NAMES.length);
  });

  test("a bad value, or relevance without a query, is a 400 that says so", async () => {
    const bad = await list("?query=cleveland&sort=best");
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe("sort: must be relevance (beside a query), name, or distance (beside near)");
    // name is the default order, spelled out.
    expect(orgNames((await list("?query=cleveland&sort=name")).body)).toEqual(
      orgNames((await list("?query=cleveland")).body),
    );
    for (const query of ["?sort=relevance", "?sort=relevance&query=%20%20", "?sort=relevance&vendor=epic"]) {
      const alone = await list(query);
      expect(alone.status).toBe(400);
      expect(alone.body.error.message).toBe("sort: relevance needs a query with at least one word");
    }
  });

  test("the export takes no sort", async () => {
    const exported = await get(app, "/api/v1/export?format=csv&query=cleveland&sort=relevance");
    expect(exported.status).toBe(400);
  });
});
