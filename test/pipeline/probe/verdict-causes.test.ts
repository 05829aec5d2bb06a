/**
 * A probe that reads neither document makes every verdict `unknown`; its reason gives the cause
 * the probe recorded (timeout, refused, TLS untrusted, an HTTP error status), so an app developer
 * knows whether to wait or to ask the vendor. Real servers on 127.0.0.1, probed for real, read back
 * through the API.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { probeDue } from "../../../src/pipeline/probe";
import { createTestApp } from "../../support/app";
import { closedPort, insertEntry, serve, serveTls, silentListener, tempDb } from "./helpers";

const unavailable = serve({}, () => new Response("Service Unavailable", { status: 503 }));
const silent = silentListener();
const refusedPort = closedPort();
// A TLS server whose certificate the probe is not told to trust.
const untrusted = serveTls(() => new Response("{}", { headers: { "content-type": "application/json" } }));

const SITES = {
  unavailable: `${unavailable.url}/fhir`,
  timeout: `http://127.0.0.1:${silent.port}/fhir`,
  refused: `http://127.0.0.1:${refusedPort}/fhir`,
  untrusted: `${untrusted.url}/fhir`,
};
/** What each verdict's reason must say: the cause in words, and its error kind. */
const CAUSES: Record<keyof typeof SITES, string[]> = {
  unavailable: ["the last probe failed: /metadata answered HTTP 503", "(http_status)"],
  timeout: ["the last probe failed: /metadata timed out", "(timeout)"],
  refused: ["the last probe failed: /metadata was refused", "(refused)"],
  untrusted: ["the last probe failed: /metadata failed in TLS", "untrusted"],
};

const ctx = tempDb();
const ids: Record<string, string> = {};
let app: ReturnType<typeof createTestApp>;

beforeAll(async () => {
  for (const [site, url] of Object.entries(SITES)) ids[site] = insertEntry(ctx.db, { url });
  const { ca: _trusted, ...untrustedOptions } = untrusted.probeOptions;
  await probeDue(ctx.db, { ...untrustedOptions, timeoutMs: 1500 });
  app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
}, 60_000);
afterAll(() => {
  unavailable.stop();
  silent.stop(true);
  untrusted.stop();
  app?.directory.close();
  ctx.cleanup();
});

describe("unknown says why the probe failed", () => {
  for (const site of Object.keys(SITES) as (keyof typeof SITES)[])
    test(`${site}: every kind unknown, the reason the probe's cause`, async () => {
      const response = await app.handle(new Request(`http://localhost/api/v1/endpoints/${ids[site]}/capabilities`));
      const { data } = (await response.json()) as { data: any };
      expect(data.probeStatus).toBe("failed");
      for (const kind of ["patientApps", "providerApps", "backendServices"]) {
        const verdict = data.verdict[kind];
        expect([kind, verdict.status, verdict.sets, verdict.notes]).toEqual([kind, "unknown", [], []]);
        expect(verdict.reasons).toHaveLength(1);
        for (const words of CAUSES[site])
          expect([words, verdict.reasons[0]]).toEqual([words, expect.stringContaining(words)]);
      }
      // The cause agrees with the availability record's.
      const availability = await app.handle(new Request(`http://localhost/api/v1/endpoints/${ids[site]}/availability`));
      const recent = ((await availability.json()) as { data: { recent: { error: string | null }[] } }).data.recent;
      expect(data.verdict.patientApps.reasons[0]).toContain(`(${recent[0]!.error})`);
    });

  test("an unprobed entry says what is still to come", async () => {
    const id = insertEntry(ctx.db, { url: "https://unprobed.example/fhir" });
    const fresh = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    try {
      const response = await fresh.handle(new Request(`http://localhost/api/v1/endpoints/${id}/capabilities`));
      const { data } = (await response.json()) as { data: any };
      expect(data.verdict.backendServices).toEqual({
        status: "unknown",
        sets: [],
        reasons: ["not probed yet: its /metadata and /.well-known/smart-configuration have not been read"],
        notes: [],
      });
    } finally {
      fresh.directory.close();
    }
  });
});
