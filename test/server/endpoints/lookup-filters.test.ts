/**
 * The list's lookup filters (npi, host, url, city, near with radius) over the national directory
 * (the real published lists, db/national/) and the demo dataset, each answer checked against what
 * this test computes itself from the raw rows of the same file: its own NPI check digit, host
 * rule, city folding, and ZIP positions and haversine from the `zipcodes` package.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { codes } from "zipcodes";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { createTestApp } from "../../support/app";
import { nationalDatabase, sampleDatabase } from "../../support/built-once";
import { get, VENDORS } from "../../support/fixture";
import { foldCity, haversine, hostOf, mostCommon, npiValid, pointOf } from "../../support/places";
import { seedDatabase } from "../../support/seed";
import { tempDbPath } from "../../support/temp-db";

interface Row {
  id: string;
  url: string;
  npi: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
}

interface Dataset {
  app: ReturnType<typeof createTestApp>;
  sql: Database;
  rows: Row[];
}

const datasets: Record<string, Dataset> = {};

async function open(name: string, build: (path: string) => Promise<unknown>) {
  const path = tempDbPath(`${name}.sqlite`);
  await build(path);
  const sql = new Database(path, { readonly: true });
  const rows = sql
    .query(
      "SELECT id, url, npi, city, state, zip_code AS zip FROM entries WHERE status != 'removed' AND unusable IS NULL",
    )
    .all() as Row[];
  const app = createTestApp({
    db: openDatabase(path),
    config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }),
  });
  datasets[name] = { app, sql, rows };
}

beforeAll(async () => {
  await open("national", nationalDatabase);
  await open("demo", sampleDatabase);
}, 180_000);

afterAll(() => {
  for (const { app, sql } of Object.values(datasets)) {
    app.directory.close();
    sql.close();
  }
});

type Body = {
  success: boolean;
  data: { id: string; url: string; npi: string | null; city: string | null; zipCode: string | null }[];
  meta: { total: number; distance?: number[] };
  error?: { code: string; message: string };
};
const list = async (name: string, query: string) => {
  const { status, body } = await get(datasets[name]!.app, `/api/v1/endpoints?${query}`);
  return { status, body: body as Body };
};
/** Every page of a search (limit 100). */
async function all(name: string, query: string) {
  const first = (await list(name, `${query}&limit=100`)).body;
  const pages = [first];
  for (let page = 2; (page - 1) * 100 < first.meta.total; page++)
    pages.push((await list(name, `${query}&limit=100&page=${page}`)).body);
  return {
    total: first.meta.total,
    data: pages.flatMap((p) => p.data),
    distance: pages.flatMap((p) => p.meta.distance ?? []),
  };
}

for (const name of ["national", "demo"]) {
  describe(`lookup filters on the ${name} data`, () => {
    test("npi: exactly the entries with that NPI; a wrong check digit is a 400 naming npi", async () => {
      const { rows } = datasets[name]!;
      const withNpi = rows.filter((row) => row.npi !== null && /^\d{10}$/.test(row.npi) && npiValid(row.npi));
      if (withNpi.length === 0) {
        // The list publishes no NPI: every valid one finds nothing.
        expect((await list(name, "npi=1234567893")).body.meta.total).toBe(0);
      } else {
        for (const npi of [mostCommon(withNpi, (r) => r.npi), withNpi[withNpi.length - 1]!.npi!]) {
          const { body } = await list(name, `npi=${npi}&limit=100`);
          expect(body.meta.total).toBe(rows.filter((row) => row.npi === npi).length);
          expect(body.data.every((e) => e.npi === npi)).toBe(true);
        }
      }
      const bad = "1234567890";
      expect(npiValid(bad)).toBe(false);
      const refused = await list(name, `npi=${bad}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error!.code).toBe("VALIDATION_ERROR");
      expect(refused.body.error!.message).toStartWith("npi:");
      expect(refused.body.error!.message).toContain("check digit");
      expect((await list(name, "npi=12345")).status).toBe(400);
    });

    test("host: a domain finds its host and its subdomains, nothing else", async () => {
      const { rows } = datasets[name]!;
      // The domain of the most common host with a subdomain (national: a vendor's shared host).
      const domain = mostCommon(rows, (r) => hostOf(r.url).split(".").slice(-2).join("."));
      const mine = (host: string) => host === domain || host.endsWith(`.${domain}`);
      const { total, data } = await all(name, `host=${domain.toUpperCase()}`);
      expect(total).toBe(rows.filter((row) => mine(hostOf(row.url))).length);
      expect(total).toBeGreaterThan(0);
      expect(data.every((e) => mine(hostOf(e.url)))).toBe(true);
      // A suffix that is not at a label boundary finds nothing of it.
      const partial = domain.slice(1);
      const partialTotal = (await list(name, `host=${partial}`)).body.meta.total;
      expect(partialTotal).toBe(
        rows.filter((row) => hostOf(row.url) === partial || hostOf(row.url).endsWith(`.${partial}`)).length,
      );
      // One whole host alone.
      const host = mostCommon(rows, (r) => hostOf(r.url));
      expect((await list(name, `host=${host}`)).body.meta.total).toBe(
        rows.filter((row) => hostOf(row.url) === host || hostOf(row.url).endsWith(`.${host}`)).length,
      );
      expect((await list(name, "host=https://epic.com/")).status).toBe(400);
    });

    test("host=epic.com: its subdomains only (none here: Epic's customers host their own servers)", async () => {
      const { rows } = datasets[name]!;
      const { total, data } = await all(name, "host=epic.com");
      const expected = rows.filter((row) => hostOf(row.url) === "epic.com" || hostOf(row.url).endsWith(".epic.com"));
      expect(total).toBe(expected.length);
      expect(new Set(data.map((e) => e.id))).toEqual(new Set(expected.map((r) => r.id)));
      // Hosts that merely contain it (epichosted.com, …) are not under it.
      if (name === "national") expect(rows.some((row) => hostOf(row.url).includes("epic"))).toBe(true);
    });

    test("url: an exact base URL, normalised as ids are", async () => {
      const { rows } = datasets[name]!;
      const url = mostCommon(rows, (r) => r.url);
      const count = rows.filter((row) => row.url === url).length;
      const { body } = await list(name, `url=${encodeURIComponent(url)}&limit=100`);
      expect(body.meta.total).toBe(count);
      expect(body.data.every((e) => e.url === url)).toBe(true);
      // Scheme and host in capitals, a trailing slash: the same URL.
      const spelled = url.replace(/^https:\/\/([^/]+)/, (_, host: string) => `HTTPS://${host.toUpperCase()}`);
      expect((await list(name, `url=${encodeURIComponent(`${spelled}/`)}`)).body.meta.total).toBe(count);
      // A path differing in case is another URL.
      const other = url.replace(/[a-z](?=[^/]*$)/, (c) => c.toUpperCase());
      expect((await list(name, `url=${encodeURIComponent(other)}`)).body.meta.total).toBe(
        rows.filter((row) => row.url === other).length,
      );
    });

    test("city: the whole name, case- and accent-insensitive", async () => {
      const { rows } = datasets[name]!;
      const city = mostCommon(rows, (r) => (r.city === null ? null : foldCity(r.city)));
      const count = rows.filter((row) => row.city !== null && foldCity(row.city) === city).length;
      expect(count).toBeGreaterThan(0);
      const { total, data } = await all(name, `city=${encodeURIComponent(city.toUpperCase())}`);
      expect(total).toBe(count);
      expect(data.every((e) => foldCity(e.city!) === city)).toBe(true);
      // A part of the name is not the city.
      expect((await list(name, `city=${encodeURIComponent(city.slice(0, -1))}`)).body.meta.total).toBe(
        rows.filter((row) => row.city !== null && foldCity(row.city) === city.slice(0, -1)).length,
      );
      expect((await list(name, "city=%20.")).status).toBe(400);
    });

    test("near=44195&radius=25: only entries within 25 miles, nearest first, distances as the test's haversine", async () => {
      const { rows } = datasets[name]!;
      const center: [number, number] = [codes["44195"]!.latitude, codes["44195"]!.longitude];
      const points = new Map<string, [number, number] | null>();
      for (const row of rows) points.set(row.id, pointOf(row));
      const within = rows.filter((row) => {
        const point = points.get(row.id);
        return point != null && haversine(center, point) <= 25;
      });
      const { total, data, distance } = await all(name, "near=44195&radius=25");
      expect(total).toBe(within.length);
      expect(new Set(data.map((e) => e.id))).toEqual(new Set(within.map((r) => r.id)));
      expect(distance).toHaveLength(data.length);
      data.forEach((entry, i) => {
        expect(Math.abs(distance[i]! - haversine(center, points.get(entry.id)!))).toBeLessThan(0.1);
        if (i > 0) expect(distance[i]!).toBeGreaterThanOrEqual(distance[i - 1]!);
        expect(distance[i]!).toBeLessThanOrEqual(25);
      });
      // sort=name: the same entries in the default order (the unfiltered list's), with their distances.
      const byName = await all(name, "near=44195&radius=25&sort=name");
      expect(byName.total).toBe(total);
      expect(new Set(byName.data.map((e) => e.id))).toEqual(new Set(data.map((e) => e.id)));
      const listed = await all(name, "sort=name");
      const rank = new Map(listed.data.map((e, i) => [e.id, i]));
      const ranks = byName.data.map((e) => rank.get(e.id)!);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      const miles = new Map(data.map((e, i) => [e.id, distance[i]]));
      expect(byName.distance).toEqual(byName.data.map((e) => miles.get(e.id)!));
      // Pages of another size are slices of the same order.
      for (const page of [1, 2, 3]) {
        const { body } = await list(name, `near=44195&radius=25&sort=name&limit=7&page=${page}`);
        expect(body.data.map((e) => e.id)).toEqual(byName.data.slice((page - 1) * 7, page * 7).map((e) => e.id));
      }
    });

    test("the exports take each filter: the same entries as the list, near's nearest first", async () => {
      const { app, rows } = datasets[name]!;
      const host = mostCommon(rows, (r) => hostOf(r.url));
      for (const query of ["near=44195&radius=25", `host=${host}`, "npi=1234567890"]) {
        const response = await app.handle(new Request(`http://localhost/api/v1/export?format=ndjson&${query}`));
        // A bad check digit is refused by the export as by the list.
        if (query.startsWith("npi=")) {
          expect(response.status).toBe(400);
          continue;
        }
        const listed = await all(name, query);
        expect(response.status).toBe(200);
        const exported = (await response.text())
          .split("\n")
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { id: string }).id);
        expect(exported).toEqual(listed.data.map((e) => e.id));
        const csv = await app.handle(new Request(`http://localhost/api/v1/export?format=csv&${query}`));
        expect((await csv.text()).trim().split("\n")).toHaveLength(listed.total + 1);
      }
    });

    test("near: bounds and errors", async () => {
      expect((await list(name, "near=44195&radius=101")).status).toBe(400);
      expect((await list(name, "radius=5")).status).toBe(400);
      expect((await list(name, "near=00000")).status).toBe(400);
      expect((await list(name, "sort=distance")).status).toBe(400);
      const wide = await list(name, "near=10001&radius=100");
      expect(wide.status).toBe(200);
      expect(wide.body.meta.distance!.every((miles) => miles <= 100)).toBe(true);
    });
  });
}

describe("host=epic.com on hosts chosen to be confused with it", () => {
  const urls = [
    "https://epic.com/fhir/r4",
    "https://fhir.epic.com/interconnect-fhir-oauth/api/FHIR/R4",
    "https://a.b.EPIC.com:8443/r4",
    "https://notepic.com/r4",
    "https://epic.com.evil.example/r4",
    "https://epichosted.com/r4",
    "https://epic.co/r4",
    // Sorts between epic.com and its subdomains by labels reversed (com.epic < com.epic-2 < com.epic.a).
    "https://epic-2.com/r4",
  ];
  const app = createTestApp({
    db: seedDatabase(tempDbPath(), {
      vendors: VENDORS,
      entries: urls.map((url, i) => ({ vendorId: "epic", url, organizationName: `Org ${i}`, status: "listed" })),
      probes: [],
      at: "2026-11-21T09:00:00.000Z",
    }),
    config: loadConfig({ RATE_LIMIT_MAX: "0" }),
  });
  afterAll(() => app.directory.close());

  test("finds the domain and its subdomains, ports aside, and nothing else", async () => {
    const urlsOf = async (host: string) =>
      ((await get(app, `/api/v1/endpoints?host=${host}`)).body as Body).data.map((e) => e.url).sort();
    expect(await urlsOf("epic.com")).toEqual(
      [
        "https://a.b.epic.com:8443/r4",
        "https://epic.com/fhir/r4",
        "https://fhir.epic.com/interconnect-fhir-oauth/api/FHIR/R4",
      ].sort(),
    );
    expect(await urlsOf("fhir.epic.com")).toEqual(["https://fhir.epic.com/interconnect-fhir-oauth/api/FHIR/R4"]);
    expect(await urlsOf("com")).toHaveLength(6);
    expect(await urlsOf("pic.com")).toEqual([]);
    expect(await urlsOf("epic-2.com")).toEqual(["https://epic-2.com/r4"]);
    // A domain that is no server's own host, and a name that is no whole label.
    expect(await urlsOf("b.epic.com")).toEqual(["https://a.b.epic.com:8443/r4"]);
    expect(await urlsOf("epic")).toEqual([]);
    expect(await urlsOf("EPIC.COM.")).toHaveLength(3);
  });
});
