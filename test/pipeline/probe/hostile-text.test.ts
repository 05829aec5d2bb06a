/**
 * What a hostile statement's text may do to the directory: control characters and bidi overrides
 * in the names the record page shows, names of any length, and resource type lists that would
 * make the index one bitset per invented name.
 */
import { afterAll, afterEach, beforeEach, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { buildDirectoryData, MAX_INDEXED_RESOURCE_TYPES } from "../../../src/directory/build-data";
import { MAX_RESOURCE_TYPES_PER_DOCUMENT } from "../../../src/model/resource-types";
import { probeDue, recordProbe } from "../../../src/pipeline/probe";
import { createTestApp } from "../../support/app";
import { bareSummary, insertEntry, serve, tempDb } from "./helpers";

/** The n-th invented name of the form of a resource type: `Zz` then letters. */
const invented = (n: number, prefix = "Zz") => {
  let name = "";
  for (let i = n; ; i = Math.floor(i / 26) - 1) {
    name = String.fromCharCode(97 + (i % 26)) + name;
    if (i < 26) break;
  }
  return prefix + name;
};

const HOSTILE_TYPES = [
  "Patient",
  "patient",
  "<b>Obs</b>",
  "Obs1",
  " Observation ",
  ...Array.from({ length: 2_000 }, (_, i) => invented(i)),
];
const HOSTILE = JSON.stringify({
  resourceType: "CapabilityStatement",
  fhirVersion: "4.0.1",
  software: { name: "\u202Eevil\u0007  Name\u2066", version: "9".repeat(10_000) },
  rest: [{ mode: "server", resource: HOSTILE_TYPES.map((type) => ({ type })) }],
});
const HOSTILE_SMART = JSON.stringify({
  authorization_endpoint: "https://example.org/auth",
  token_endpoint: "https://example.org/token",
  capabilities: [
    "launch-standalone",
    "\u202Econtext-standalone-patient",
    "x".repeat(5_000),
    ...Array.from({ length: 500 }, (_, i) => `cap-${i}`),
  ],
  grant_types_supported: ["authorization_code", "\u0000client_credentials"],
});

const server = serve({ "/h/metadata": HOSTILE, "/h/.well-known/smart-configuration": HOSTILE_SMART });
afterAll(() => server.stop());

let ctx: ReturnType<typeof tempDb>;
beforeEach(() => {
  ctx = tempDb();
});
afterEach(() => ctx.cleanup());

async function get(path: string) {
  const app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
  return (await (await app.handle(new Request(`http://localhost${path}`))).json()) as {
    data: Record<string, unknown> & { summary: Record<string, unknown> };
    meta?: { total: number };
  };
}

test("the summary strips control characters and bidi overrides and bounds every string", async () => {
  const id = insertEntry(ctx.db, { url: `${server.url}/h` });
  await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 5000 });
  const { summary } = (await get(`/api/v1/endpoints/${id}/capabilities`)).data;
  expect(summary.softwareName).toBe("evil Name");
  expect((summary.softwareVersion as string).length).toBeLessThanOrEqual(200);
  expect(summary.softwareVersion as string).toEndWith("…");
  const capabilities = summary.smartCapabilities as string[];
  expect(capabilities.slice(0, 2)).toEqual(["launch-standalone", "context-standalone-patient"]);
  expect(capabilities.length).toBeLessThanOrEqual(100);
  for (const text of capabilities) expect(text.length).toBeLessThanOrEqual(200);
  expect(summary.grantTypes).toEqual(["authorization_code", "client_credentials"]);
});

test("only names of the form of a resource type are kept, at most a bounded number per statement", async () => {
  const id = insertEntry(ctx.db, { url: `${server.url}/h` });
  await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 5000 });
  const { summary } = (await get(`/api/v1/endpoints/${id}/capabilities`)).data;
  const types = summary.supportedResources as string[];
  expect(types.length).toBe(MAX_RESOURCE_TYPES_PER_DOCUMENT);
  expect(summary.supportedResourceCount).toBe(MAX_RESOURCE_TYPES_PER_DOCUMENT);
  expect(types).toContain("Patient");
  expect(types).toContain("Observation");
  for (const bad of ["patient", "<b>Obs</b>", "Obs1", " Observation "]) expect(types).not.toContain(bad);
  expect(buildDirectoryData(ctx.db.sqlite).facets.resource.size).toBe(MAX_RESOURCE_TYPES_PER_DOCUMENT);
  expect((await get("/api/v1/endpoints?hasResource=Patient,Observation")).meta?.total).toBe(1);
});

test("stored rows listing any number of names add a bounded number of bitsets to the index", async () => {
  // As rows written before names were checked: 100,000 names on one URL, 256 different ones on each of 4 others.
  const lists = [
    ["Patient", ...Array.from({ length: 100_000 }, (_, i) => invented(i)), "not a type", "X"],
    ...[1, 2, 3, 4].map((u) => ["Patient", ...Array.from({ length: 255 }, (_, i) => invented(i, `Q${"q".repeat(u)}`))]),
  ];
  lists.forEach((types, u) => {
    const url = `https://h${u}.example.org/fhir`;
    insertEntry(ctx.db, { url });
    const summary = { ...bareSummary("R4"), supportedResources: types, supportedResourceCount: types.length };
    const doc = { ok: false, httpStatus: 200, body: null };
    recordProbe(
      ctx.db,
      url,
      {
        probeStatus: "failed",
        entryStatus: null,
        errorKind: null,
        durationMs: 1,
        summary,
        access: null,
        metadata: doc,
        smart: doc,
      },
      new Date(),
    );
  });
  const data = buildDirectoryData(ctx.db.sqlite);
  expect(data.facets.resource.size).toBe(MAX_INDEXED_RESOURCE_TYPES);
  expect(data.facets.resource.has("Patient")).toBe(true);
  expect(data.facets.resource.has("not a type")).toBe(false);
  expect((await get("/api/v1/endpoints?hasResource=Patient")).meta?.total).toBe(5);
});
