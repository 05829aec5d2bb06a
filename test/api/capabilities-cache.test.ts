/**
 * The cache of capabilities answers' shared parts (summary and raw bodies, by body pair) stays
 * within its bounds, and answers stay byte-exact when parts are evicted and built again.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Db } from "../../src/db/client";
import { Directory } from "../../src/directory/directory";
import { canonicalUrl, entryId } from "../../src/directory/identity";
import type { DatasetSnapshot } from "../../src/directory/snapshot";
import { CapabilitiesCache, capabilitiesBody, capabilitiesCache } from "../../src/endpoints/capabilities-body";
import { seedDatabase, tempDbPath } from "../support/seed";

const URLS = 40;
/** A distinct ~20 KB statement per URL, one SMART configuration shared by all. */
const statement = (i: number) =>
  `{"resourceType":"CapabilityStatement","id":"s${i}","padding":"${String(i).repeat(20_000 / String(i).length)}"}`;
const SMART = '{"capabilities":["launch-ehr"]}';
/** Another URL whose server answers the same two bodies as the first. */
const SHARED_URL = "https://tenant.example/r4";

let db: Db;
let directory: Directory;
let snapshot: DatasetSnapshot;
let ids: string[];

beforeAll(() => {
  const urls = Array.from({ length: URLS }, (_, i) => `https://fhir${i}.example/r4`);
  db = seedDatabase(tempDbPath(), {
    vendors: [{ id: "v", name: "Vendor" }],
    entries: [...urls, SHARED_URL].map((url) => ({ vendorId: "v", url, organizationName: url })),
    probes: [
      ...urls.map((url, i) => ({ url, probeStatus: "success", metadataBody: statement(i), smartBody: SMART })),
      { url: SHARED_URL, probeStatus: "success", metadataBody: statement(0), smartBody: SMART },
    ],
  });
  directory = new Directory(db.path, db.sqlite);
  snapshot = directory.current;
  ids = urls.map((url) => entryId("v", canonicalUrl(url), null, url));
});

afterAll(() => {
  directory?.close();
  db?.sqlite.close();
});

const tailOf = (i: number) => Buffer.from(`"capabilityStatement":${statement(i)},"smartConfiguration":${SMART}}}`);
const endsWith = (body: Uint8Array, tail: Buffer) => Buffer.from(body.subarray(body.length - tail.length)).equals(tail);

test("never holds more bytes or entries than its bounds; evicted parts are built again, byte-exact", () => {
  const cache = new CapabilitiesCache(100_000, 1_000);
  const small = new CapabilitiesCache(10_000_000, 3);
  for (let round = 0; round < 3; round++)
    for (const [i, id] of ids.entries()) {
      for (const c of [cache, small]) {
        const body = capabilitiesBody(snapshot.capabilities(id)!, c);
        expect(endsWith(body, tailOf(i))).toBe(true);
      }
      expect(cache.bytes).toBeLessThanOrEqual(100_000);
      expect(small.size).toBeLessThanOrEqual(3);
    }
  expect(cache.size).toBeGreaterThan(1);
  expect(cache.size).toBeLessThan(URLS);
});

test("a part larger than the whole bound is answered but not kept", () => {
  const tiny = new CapabilitiesCache(1_000, 100);
  const body = capabilitiesBody(snapshot.capabilities(ids[0]!)!, tiny);
  expect(endsWith(body, tailOf(0))).toBe(true);
  expect(tiny.size).toBe(0);
  expect(tiny.bytes).toBe(0);
});

test("URLs with the same bodies share one part; the process-wide cache is bounded to 48 MB", () => {
  const cache = new CapabilitiesCache(10_000_000, 1_000);
  const own = capabilitiesBody(snapshot.capabilities(ids[0]!)!, cache);
  const other = snapshot.capabilities(entryId("v", canonicalUrl(SHARED_URL), null, SHARED_URL))!;
  const shared = capabilitiesBody(other, cache);
  expect(cache.size).toBe(1);
  expect(endsWith(shared, tailOf(0))).toBe(true);
  expect(JSON.parse(Buffer.from(shared).toString()).data.url).toBe(SHARED_URL);
  expect(JSON.parse(Buffer.from(own).toString()).data.url).toBe("https://fhir0.example/r4");
  expect(capabilitiesCache.maxBytes).toBe(48 * 1024 * 1024);
});
