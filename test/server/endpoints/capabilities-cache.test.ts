/**
 * The cache of capabilities answers' shared parts (summary and raw bodies, by body pair) stays
 * within its bounds, and answers stay byte-exact when parts are evicted and built again.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Db } from "../../../src/db/client";
import { Directory } from "../../../src/directory/directory";
import type { DatasetSnapshot } from "../../../src/directory/snapshot";
import { canonicalUrl, entryId } from "../../../src/model/identity";
import {
  CapabilitiesCache,
  capabilitiesBody,
  capabilitiesCache,
} from "../../../src/server/endpoints/capabilities-body";
import type { Body } from "../../../src/server/http/compression";
import { seedDatabase } from "../../support/seed";
import { tempDbPath } from "../../support/temp-db";

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
/** The bytes a client receives for a body (text is sent as UTF-8). */
const bytesOf = (body: Body) => (typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body));
const endsWith = (body: Body, tail: Buffer) => {
  const bytes = bytesOf(body);
  return bytes.subarray(bytes.length - tail.length).equals(tail);
};

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
  expect(JSON.parse(bytesOf(shared).toString()).data.url).toBe(SHARED_URL);
  expect(JSON.parse(bytesOf(own).toString()).data.url).toBe("https://fhir0.example/r4");
  expect(capabilitiesCache.maxBytes).toBe(48 * 1024 * 1024);
});

test("a stored body that is not valid UTF-8 is still answered with exactly its bytes", () => {
  // Not what the probe writes (it stores decoded text), but a database may hold such a body.
  const raw = Buffer.concat([
    Buffer.from('{"resourceType":"CapabilityStatement","name":"'),
    Buffer.from([0xff, 0xc3]),
    Buffer.from('"}'),
  ]);
  const path = tempDbPath();
  const own = seedDatabase(path, {
    vendors: [{ id: "v", name: "Vendor" }],
    entries: [{ vendorId: "v", url: "https://odd.example/r4", organizationName: "https://odd.example/r4" }],
    probes: [{ url: "https://odd.example/r4", probeStatus: "success", metadataBody: "{}", smartBody: null }],
  });
  own.sqlite.prepare("UPDATE probe_bodies SET body = ?").run(raw);
  const dir = new Directory(own.path, own.sqlite);
  try {
    const id = entryId("v", canonicalUrl("https://odd.example/r4"), null, "https://odd.example/r4");
    const body = capabilitiesBody(dir.current.capabilities(id)!, new CapabilitiesCache(1_000_000, 10));
    expect(typeof body).not.toBe("string");
    expect(
      endsWith(
        body,
        Buffer.concat([Buffer.from('"capabilityStatement":'), raw, Buffer.from(',"smartConfiguration":null}}')]),
      ),
    ).toBe(true);
  } finally {
    dir.close();
    own.sqlite.close();
  }
});

test("bodies that are valid UTF-8 come back as text that encodes to the very same bytes", () => {
  const body = capabilitiesBody(snapshot.capabilities(ids[1]!)!, new CapabilitiesCache(1_000_000, 10));
  expect(typeof body).toBe("string");
  expect(endsWith(body, tailOf(1))).toBe(true);
});
