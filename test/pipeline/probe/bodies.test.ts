/**
 * Raw bodies stored once: URLs that answer the same bytes share one probe_bodies row; bodies
 * nobody refers to any more are deleted by the probe run; real statements come back through the
 * API exactly as the servers sent them.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { pruneBodies } from "../../../src/db/probe-bodies";
import type { DocumentResult, ProbeResult } from "../../../src/model/probe";
import { probeDue, recordProbes } from "../../../src/pipeline/probe";
import { createTestApp } from "../../support/app";
import { LANTERN_TEST_CAPABILITIES } from "../../support/real-data";
import { fixture, insertEntry, serve, tempDb } from "./helpers";

const R4 = fixture("r4-capability.json");
const SMART = fixture("smart-patient.json");
const OTHER_R4 = R4.replace('"Test EHR"', '"Other EHR"');

function doc(body: string | null, httpStatus: number | null = body === null ? 404 : 200): DocumentResult {
  return {
    ok: body !== null,
    httpStatus,
    body,
    json: body === null ? null : JSON.parse(body),
    errorKind: body === null ? "http_status" : null,
    errorMessage: null,
    finalUrl: "",
    redirects: 0,
    requests: 1,
    durationMs: 3,
  };
}

function result(url: string, metadata: string | null, smart: string | null): ProbeResult {
  const ok = (metadata ? 1 : 0) + (smart ? 1 : 0);
  return {
    url,
    startedAt: "2026-11-25T00:00:00.000Z",
    tls: null,
    durationMs: 5,
    probeStatus: ok === 2 ? "success" : ok === 1 ? "partial" : "failed",
    entryStatus: metadata ? "verified" : null,
    errorKind: metadata ? null : "http_status",
    metadata: doc(metadata),
    smart: doc(smart),
    summary: {
      fhirVersion: metadata ? "R4" : "UNKNOWN",
      softwareName: null,
      softwareVersion: null,
      supportedResourceCount: 0,
      supportedResources: [],
      smartSupported: smart !== null,
      smartCapabilities: [],
      grantTypes: [],
    },
    access: null,
  };
}

let ctx: ReturnType<typeof tempDb>;
beforeEach(() => {
  ctx = tempDb();
});
afterEach(() => ctx.cleanup());

const bodies = () =>
  (ctx.db.sqlite.prepare("SELECT body FROM probe_bodies ORDER BY body").values() as [string][]).map(([b]) => b);
const ref = (url: string) =>
  ctx.db.sqlite.prepare("SELECT metadata_body_id, smart_body_id FROM probes WHERE url = ?").values(url)[0] as [
    number | null,
    number | null,
  ];

describe("bodies stored once", () => {
  test("URLs that answer the same bytes refer to one row; a body used as both documents is one row too", () => {
    const urls = ["https://a.example/r4", "https://b.example/r4", "https://c.example/r4"];
    recordProbes(
      ctx.db,
      urls.map((url) => ({ url, result: result(url, R4, SMART) })),
      "2026-11-25T10:00:00.000Z",
    );
    recordProbes(
      ctx.db,
      [{ url: "https://d.example", result: result("https://d.example", "{}", "{}") }],
      "2026-11-25T12:00:00.000Z",
    );
    expect(bodies()).toEqual(["{}", R4, SMART].sort());
    expect(new Set(urls.map((url) => ref(url).join()))).toEqual(new Set([ref(urls[0]!).join()]));
    const [metadata, smart] = ref("https://d.example");
    expect(metadata).toBe(smart);
  });

  test("the probe run deletes the bodies no probe refers to any more, and keeps shared ones", () => {
    const [a, b] = ["https://a.example/r4", "https://b.example/r4"];
    recordProbes(
      ctx.db,
      [
        { url: a, result: result(a, R4, SMART) },
        { url: b, result: result(b, R4, null) },
      ],
      "2026-11-25T11:00:00.000Z",
    );
    expect(bodies()).toEqual([R4, SMART].sort());

    // a moves to another statement and loses SMART: SMART goes, R4 stays (b still serves it).
    recordProbes(ctx.db, [{ url: a, result: result(a, OTHER_R4, null) }], "2026-11-25T12:00:00.000Z");
    expect(bodies()).toEqual([OTHER_R4, R4].sort());

    // b fails: R4 goes.
    recordProbes(ctx.db, [{ url: b, result: result(b, null, null) }], "2026-11-25T13:00:00.000Z");
    expect(bodies()).toEqual([OTHER_R4]);
    expect(ref(b)).toEqual([null, null]);

    // Within one batch: a body dropped by one URL and taken up by another in the same batch stays.
    recordProbes(
      ctx.db,
      [
        { url: a, result: result(a, null, null) },
        { url: b, result: result(b, OTHER_R4, null) },
      ],
      "2026-11-25T14:00:00.000Z",
    );
    expect(bodies()).toEqual([OTHER_R4]);
  });

  test("a full sweep deletes every body no probe refers to", () => {
    recordProbes(
      ctx.db,
      [{ url: "https://a.example", result: result("https://a.example", R4, SMART) }],
      "2026-11-25T11:00:00.000Z",
    );
    ctx.db.sqlite.run("INSERT INTO probe_bodies (sha256, body) VALUES ('x', '{\"orphan\":true}')");
    expect(pruneBodies(ctx.db.sqlite)).toBe(1);
    expect(bodies()).toEqual([R4, SMART].sort());
  });
});

/** The file's bytes as the body, untouched. */
const raw = (bytes: Buffer) => new Response(bytes, { headers: { "content-type": "application/fhir+json" } });

/** Every real statement, each from three tenants' URLs, SMART configurations from the real ones. */
describe("real statements from test/fixtures/real/capabilities", () => {
  test("probed from a local server, stored once each, answered byte for byte", async () => {
    const files = readdirSync(LANTERN_TEST_CAPABILITIES).sort();
    const bytesOf = (name: string) => readFileSync(join(LANTERN_TEST_CAPABILITIES, name));
    const smartFiles = files.filter((name) => name.includes("smart"));
    const statements = files.filter((name) => !smartFiles.includes(name));
    expect(statements.length).toBeGreaterThan(5);
    const routes: Record<string, () => Response> = {};
    const expected = new Map<string, { metadata: Buffer; smart: Buffer | null }>();
    for (const [i, name] of statements.entries()) {
      for (let tenant = 0; tenant < 3; tenant++) {
        // A neutral path: a file name's `test` would make the entry non-production (its answer then
        // carries `meta.environment` after the bodies).
        const path = `/statement${i}/t${tenant}`;
        const smart = tenant === 2 ? null : smartFiles[(i + tenant) % smartFiles.length]!;
        routes[`${path}/metadata`] = () => raw(bytesOf(name));
        if (smart) routes[`${path}/.well-known/smart-configuration`] = () => raw(bytesOf(smart));
        expected.set(path, { metadata: bytesOf(name), smart: smart ? bytesOf(smart) : null });
      }
    }
    const server = serve(routes);
    try {
      const ids = new Map([...expected.keys()].map((path) => [path, insertEntry(ctx.db, { url: server.url + path })]));
      await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 5000 });

      const distinct = new Set([...statements, ...smartFiles].map((name) => bytesOf(name).toString("hex")));
      expect(bodies().length).toBe(distinct.size);

      const app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
      for (const [path, { metadata, smart }] of expected) {
        const response = await app.handle(
          new Request(`http://localhost/api/v1/endpoints/${ids.get(path)}/capabilities`),
        );
        expect(response.status).toBe(200);
        const answer = Buffer.from(await response.arrayBuffer());
        const tail = Buffer.concat([
          Buffer.from('"capabilityStatement":'),
          metadata,
          Buffer.from(',"smartConfiguration":'),
          smart ?? Buffer.from("null"),
          Buffer.from("}}"),
        ]);
        expect(`${path}: ${answer.subarray(answer.length - tail.length).equals(tail)}`).toBe(`${path}: true`);
        expect(JSON.parse(answer.toString("utf8")).data.probeStatus).toBe(smart ? "success" : "partial");
      }
    } finally {
      server.stop();
    }
  }, 60_000);
});
