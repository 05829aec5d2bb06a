import { Database } from "bun:sqlite";
import { beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { createTestApp } from "../support/app";
import { sampleDatabase } from "../support/built-once";
import { get } from "../support/fixture";
import { listOrderKey } from "../support/list-order";
import { tempDbPath } from "../support/temp-db";

/**
 * The API over the bundled sample dataset, each answer checked against plain SQL over the same
 * file (not the directory index the API uses).
 */
let app: ReturnType<typeof createTestApp>;
let sql: Database;

beforeAll(async () => {
  const path = tempDbPath("sample.sqlite");
  await sampleDatabase(path);
  sql = new Database(path, { readonly: true });
  app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
}, 60_000); // the build runs the whole pipeline: a few seconds, more on a busy machine

/** Entries matching `where`, removed ones aside (they leave the listings, the counts and stats). */
const count = (where: string, ...params: string[]) =>
  (
    sql
      .prepare(
        `SELECT COUNT(*) AS n FROM entries e LEFT JOIN probes p ON p.url = e.url WHERE e.status != 'removed' AND (${where})`,
      )
      .get(...params) as { n: number }
  ).n;
const total = async (query: string) => (await get(app, `/api/v1/endpoints?${query}`)).body.meta.total as number;

describe("the API over the sample dataset agrees with SQL", () => {
  test("vendors: every vendor's count", async () => {
    const vendors = (await get(app, "/api/v1/vendors")).body.data as { id: string; endpointCount: number }[];
    expect(vendors.length).toBeGreaterThanOrEqual(8);
    for (const vendor of vendors) {
      expect(vendor.endpointCount).toBe(count("e.vendor_id = ?", vendor.id));
      expect(await total(`vendor=${vendor.id}`)).toBe(vendor.endpointCount);
    }
  });

  test("state, fhirVersion, access and smartSupported filters", async () => {
    const states = (
      sql.prepare("SELECT DISTINCT state FROM entries WHERE state IS NOT NULL").values() as [string][]
    ).map(([s]) => s);
    expect(states.length).toBeGreaterThanOrEqual(30);
    for (const state of states) expect(await total(`state=${state}`)).toBe(count("e.state = ?", state));
    for (const version of ["DSTU2", "STU3", "R4", "R4B", "R5"])
      expect(await total(`fhirVersion=${version}`)).toBe(count("e.fhir_version = ?", version));
    for (const audience of ["patient", "provider"])
      expect(await total(`access=${audience}`)).toBe(count("e.access LIKE ?", `%"${audience}"%`));
    expect(await total("smartSupported=true")).toBe(count("p.smart_supported = 1"));
    expect(await total("smartSupported=false")).toBe(count("p.smart_supported IS NULL OR p.smart_supported = 0"));
  });

  test("hasResource, alone and combined", async () => {
    const has = (type: string) => `EXISTS (SELECT 1 FROM json_each(p.supported_resources) WHERE value = '${type}')`;
    for (const type of ["Patient", "Observation", "Condition", "Encounter", "Immunization"])
      expect(await total(`hasResource=${type}`)).toBe(count(has(type)));
    expect(await total("hasResource=Patient,Observation,Condition")).toBe(
      count(`${has("Patient")} AND ${has("Observation")} AND ${has("Condition")}`),
    );
    expect(await total("smartSupported=true&hasResource=Patient&fhirVersion=R4")).toBe(
      count(`p.smart_supported = 1 AND ${has("Patient")} AND e.fhir_version = 'R4'`),
    );
  });

  test("query: every word a prefix of a name word", async () => {
    const names = (
      sql
        .prepare("SELECT organization_name FROM entries WHERE organization_name IS NOT NULL AND status != 'removed'")
        .values() as [string][]
    ).map(([n]) => n);
    const fold = (s: string) =>
      s
        .normalize("NFD")
        .replace(/[\u0300-\u036f]/g, "")
        .toLowerCase();
    const wordsOf = (s: string) =>
      fold(s)
        .split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean);
    for (const query of ["med", "health center", "clin", "st mary", "senor"]) {
      const queryWords = wordsOf(query);
      const expected = names.filter((name) =>
        queryWords.every((q) => wordsOf(name).some((w) => w.startsWith(q))),
      ).length;
      expect(await total(`query=${encodeURIComponent(query)}`)).toBe(expected);
    }
  });

  test("the whole list, paged, is every entry not removed once in the documented order", async () => {
    const rows = sql
      .prepare(
        "SELECT e.id, v.name, e.organization_name, e.url FROM entries e JOIN vendors v ON v.id = e.vendor_id WHERE e.status != 'removed'",
      )
      .values() as [string, string, string | null, string][];
    const expected = rows
      .map(([id, vendorName, organizationName, url]) => ({
        id,
        key: listOrderKey(vendorName, organizationName, url, id),
      }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map(({ id }) => id);
    const seen: string[] = [];
    for (let page = 1; seen.length < expected.length; page++) {
      const { body } = await get(app, `/api/v1/endpoints?limit=100&page=${page}`);
      expect(body.meta.total).toBe(expected.length);
      seen.push(...body.data.map((e: { id: string }) => e.id));
      if (body.data.length === 0) break;
    }
    expect(seen).toEqual(expected);
  });

  test("every listed record equals the record served by id (columns vs SQL)", async () => {
    for (let page = 1; page <= 26; page++) {
      const { body } = await get(app, `/api/v1/endpoints?limit=100&page=${page}`);
      for (const record of body.data)
        expect((await get(app, `/api/v1/endpoints/${record.id}`)).body.data).toEqual(record);
    }
  });

  test("stats agree with SQL", async () => {
    const { body } = await get(app, "/api/v1/stats");
    expect(body.data.totalEndpoints).toBe(count("1"));
    for (const [version, n] of Object.entries(body.data.fhirVersionCounts))
      expect(n).toBe(count("e.fhir_version = ?", version));
  });
});
