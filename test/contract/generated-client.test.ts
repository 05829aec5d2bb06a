import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { loadConfig } from "../../src/config";
import { createTestApp } from "../support/app";
import { ARTIFACTS } from "../support/chromium";
import { fixtureDb } from "../support/fixture";

/**
 * A client as a third party would make it: openapi-typescript's types of the served
 * /docs/json, and openapi-fetch calls that read every answer into variables of the plain types
 * a client expects (numbers as `number`, the Bundle as an object, the error code as our codes),
 * without a cast. tsc --strict must accept it, and the calls must then run against the server.
 */
const ROOT = join(import.meta.dir, "..", "..");
const app = createTestApp({ db: fixtureDb(), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
let base: string;
let dir: string;

beforeAll(() => {
  app.listen({ port: 0, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${app.server!.port}`;
  // Inside the repository (so that the client resolves openapi-fetch from its node_modules), in
  // the folder git, biome and tsc leave alone.
  mkdirSync(ARTIFACTS, { recursive: true });
  dir = mkdtempSync(join(ARTIFACTS, "generated-client-"));
});
afterAll(() => {
  app.stop();
  rmSync(dir, { recursive: true, force: true });
});

const CLIENT = `import createClient from "openapi-fetch";
import type { components, paths } from "./api";

type Schemas = components["schemas"];
const client = createClient<paths>({ baseUrl: process.argv[2] });
const out: unknown[] = [];

const list = await client.GET("/api/v1/endpoints", { params: { query: { state: "MA", limit: 10, page: 1 } } });
if (list.data === undefined) throw new Error("list failed");
const total: number = list.data.meta.total;
const entries: Schemas["Endpoint"][] = list.data.data;
const first = entries[0];
if (first === undefined) throw new Error("no entry");
const version: "DSTU2" | "STU3" | "R4" | "R4B" | "R5" | "UNKNOWN" = first.fhirVersion;
const city: string | null = first.city;
out.push(total, version, city, list.response.headers.get("link"));

const availability = await client.GET("/api/v1/endpoints/{id}/availability", { params: { path: { id: first.id } } });
if (availability.data === undefined) throw new Error("availability failed");
const times: { median: number | null; p95: number | null } = availability.data.data.responseTimeMs;
const probes: { httpStatus: number | null; smartHttpStatus: number | null; responseTimeMs: number | null; error: string | null }[] =
  availability.data.data.recent;
const probe = probes[0];
const httpStatus: number | null = probe ? probe.httpStatus : null;
const smartHttpStatus: number | null = probe ? probe.smartHttpStatus : null;
const responseTimeMs: number | null = probe ? probe.responseTimeMs : null;
const error: string | null = probe ? probe.error : null;
out.push(times.median, httpStatus, smartHttpStatus, responseTimeMs, error);

const capabilities = await client.GET("/api/v1/endpoints/{id}/capabilities", { params: { path: { id: first.id } } });
if (capabilities.data === undefined) throw new Error("capabilities failed");
const resourceCount: number = capabilities.data.data.summary.supportedResourceCount;
out.push(resourceCount);

const vendors = await client.GET("/api/v1/vendors");
const stats = await client.GET("/api/v1/stats");
const health = await client.GET("/health");
if (vendors.data === undefined || stats.data === undefined || health.data === undefined) throw new Error("failed");
const endpointCount: number = vendors.data.data[0]?.endpointCount ?? -1;
const r4: number = stats.data.data.fhirVersionCounts.R4;
const status: "ok" = health.data.data.status;
out.push(endpointCount, r4, status);

const exported = await client.GET("/api/v1/export", { params: { query: { format: "fhir", state: "MA" } }, parseAs: "json" });
const bundle = exported.data;
if (bundle === undefined || typeof bundle === "string") throw new Error("export failed");
const resourceType: "Bundle" = bundle.resourceType;
const fullUrl: string | undefined = bundle.entry?.[0]?.fullUrl;
out.push(resourceType, fullUrl);

const missing = await client.GET("/api/v1/endpoints/{id}", { params: { path: { id: "0".repeat(64) } } });
if (missing.error === undefined) throw new Error("no error");
const code: Schemas["Error"]["error"]["code"] = missing.error.error.code;
out.push(missing.response.status, code);

const etag = stats.response.headers.get("etag") ?? "";
const again = await client.GET("/api/v1/stats", { headers: { "if-none-match": etag } });
out.push(again.response.status);

// FHIR: a repeated parameter as an array, a form POST search, each resource read by its own type.
const since = await client.GET("/fhir/Endpoint", {
  params: { query: { _lastUpdated: ["ge2000-01-01", "lt2100-01-01"], _count: 1 } },
});
if (since.data === undefined) throw new Error("_lastUpdated search failed");
const sinceTotal: number | undefined = since.data.total;
const selfLink: string | undefined = since.data.link.find((link) => link.relation === "self")?.url;
out.push(sinceTotal, selfLink);

const posted = await client.POST("/fhir/Organization/_search", {
  body: { "address-state": "MA", _count: 1 },
  bodySerializer: (body) => {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(body ?? {})) for (const one of [value].flat()) form.append(name, String(one));
    return form;
  },
  headers: { "content-type": "application/x-www-form-urlencoded" },
});
if (posted.data === undefined) throw new Error("POST search failed");
const match = posted.data.entry?.[0]?.resource;
const matchType: "Endpoint" | "Organization" | undefined = match?.resourceType;
const state: string | undefined = match?.resourceType === "Organization" ? match.address?.[0]?.state : undefined;
out.push(posted.response.status, posted.data.total, matchType, state);

const metadata = await client.GET("/fhir/metadata");
if (metadata.data === undefined) throw new Error("metadata failed");
const fhirVersion: "4.0.1" = metadata.data.fhirVersion;
const served: string[] = metadata.data.rest[0]?.resource.map((resource) => resource.type) ?? [];
out.push(fhirVersion, served);

const developer = await client.GET("/fhir/Organization/{id}", { params: { path: { id: "developer-epic" } } });
if (developer.data === undefined) throw new Error("Organization read failed");
const developerName: string | undefined = developer.data.name;
out.push(developerName);

const unknown = await client.GET("/fhir/Endpoint/{id}", { params: { path: { id: "0" } } });
if (unknown.error === undefined) throw new Error("no FHIR error");
const issue: string | undefined = "issue" in unknown.error ? unknown.error.issue[0]?.code : undefined;
out.push(unknown.response.status, issue);

console.log(JSON.stringify(out));
`;

describe("a client generated from /docs/json by openapi-typescript, called with openapi-fetch", () => {
  test("compiles under tsc --strict and reads every answer without a cast", async () => {
    await Bun.write(join(dir, "api.ts"), astToString(await openapiTS(new URL(`${base}/docs/json`))));
    await Bun.write(join(dir, "client.ts"), CLIENT);
    const tsc = Bun.spawnSync(
      [
        join(ROOT, "node_modules/.bin/tsc"),
        "--strict",
        "--noEmit",
        "--skipLibCheck",
        "--target",
        "esnext",
        "--module",
        "preserve",
        "--moduleResolution",
        "bundler",
        "--types",
        "bun-types",
        join(dir, "client.ts"),
      ],
      { cwd: ROOT },
    );
    expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
    expect(tsc.exitCode).toBe(0);

    // Not spawnSync: the server answering the client runs in this process.
    const run = Bun.spawn([process.execPath, join(dir, "client.ts"), base], { cwd: ROOT, stderr: "pipe" });
    const [stdout, stderr] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
    await run.exited;
    expect(stderr).toBe("");
    const [total, version, city, link, median, httpStatus, smartStatus, time, error, count, vendorCount, r4, status] =
      JSON.parse(stdout);
    expect({ total, version, city }).toEqual({ total: 2, version: "R4", city: "Boston" });
    expect(link).toContain('rel="first"');
    // The fixture's entries have no probe history: every figure is null.
    expect([median, httpStatus, smartStatus, time, error]).toEqual([null, null, null, null, null]);
    expect([count, vendorCount, r4, status]).toEqual([
      expect.any(Number),
      expect.any(Number),
      expect.any(Number),
      "ok",
    ]);
    const tail = JSON.parse(stdout).slice(13, 18);
    expect(tail).toEqual([
      "Bundle",
      expect.stringMatching(new RegExp(`^${base}/fhir/(Endpoint|Organization)/`)),
      404,
      "ENDPOINT_NOT_FOUND",
      304,
    ]);
    const [sinceTotal, selfLink, postStatus, postTotal, matchType, state, ...fhir] = JSON.parse(stdout).slice(18);
    // Both occurrences of the repeated parameter reached the server (its self link keeps them).
    expect(sinceTotal).toBeGreaterThan(0);
    expect(new URL(selfLink).searchParams.getAll("_lastUpdated")).toEqual(["ge2000-01-01", "lt2100-01-01"]);
    expect({ postStatus, matchType, state }).toEqual({ postStatus: 200, matchType: "Organization", state: "MA" });
    expect(postTotal).toBeGreaterThan(0);
    expect(fhir).toEqual(["4.0.1", ["Endpoint", "Organization"], "Epic Systems", 404, "not-found"]);
  }, 60_000);
});
