/**
 * Absolute URLs (FHIR fullUrl and Bundle links, the FHIR export's fullUrls) behind a TLS proxy:
 * with TRUST_PROXY they take the scheme the proxy reports, and only the scheme; without it the
 * same headers are the client's own text and change nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fixtureDb } from "../../support/fixture";
import { type ServerProcess, startServer } from "../../support/server-process";

let trusting: ServerProcess;
let fly: ServerProcess;
let direct: ServerProcess;

beforeAll(async () => {
  const db = fixtureDb();
  db.sqlite.close();
  const env = { DATABASE_PATH: db.path, RATE_LIMIT_MAX: "0" };
  [trusting, fly, direct] = await Promise.all([
    startServer({ ...env, TRUST_PROXY: "true" }),
    startServer({ ...env, TRUST_PROXY: "fly" }),
    startServer({ ...env, TRUST_PROXY: "" }),
  ]);
});
afterAll(async () => {
  await Promise.all([trusting?.stop(), fly?.stop(), direct?.stop()]);
});

interface Bundle {
  link?: { relation: string; url: string }[];
  entry?: { fullUrl: string }[];
}

/** Every absolute URL of a search Bundle and of the FHIR export. */
async function absoluteUrls(server: ServerProcess, headers: Record<string, string>): Promise<string[]> {
  const search = (await (await fetch(`${server.baseUrl}/fhir/Endpoint?_count=2`, { headers })).json()) as Bundle;
  const exported = (await (
    await fetch(`${server.baseUrl}/api/v1/export?format=fhir&state=MA`, { headers })
  ).json()) as Bundle;
  const urls = [
    ...(search.link ?? []).map((link) => link.url),
    ...(search.entry ?? []).map((entry) => entry.fullUrl),
    ...(exported.entry ?? []).map((entry) => entry.fullUrl),
  ];
  expect(search.link?.some((link) => link.relation === "next")).toBe(true);
  expect(exported.entry?.length).toBeGreaterThan(0);
  return urls;
}

const host = (server: ServerProcess) => new URL(server.baseUrl).host;
const allUnder = (urls: string[], origin: string) => {
  expect(urls.length).toBeGreaterThan(3);
  for (const url of urls) expect(url.startsWith(`${origin}/fhir/`)).toBe(true);
};

describe("TRUST_PROXY=true", () => {
  test("X-Forwarded-Proto: https makes every absolute URL https, on our own host", async () => {
    allUnder(
      await absoluteUrls(trusting, { "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" }),
      `https://${host(trusting)}`,
    );
  });

  test("Forwarded: proto=https (the last element, our proxy's) does the same", async () => {
    allUnder(
      await absoluteUrls(trusting, {
        forwarded: 'for=10.0.0.1;proto=http, for=192.0.2.1;proto="https";host=evil.example',
      }),
      `https://${host(trusting)}`,
    );
  });

  test("the same URL without the header is still http: answers are not mixed up between schemes", async () => {
    await absoluteUrls(trusting, { "x-forwarded-proto": "https" });
    allUnder(await absoluteUrls(trusting, {}), trusting.baseUrl);
  });

  test("a value that is not http or https is ignored", async () => {
    allUnder(await absoluteUrls(trusting, { "x-forwarded-proto": "javascript" }), trusting.baseUrl);
  });
});

describe("TRUST_PROXY=fly", () => {
  test("Fly-Forwarded-Proto: https makes every absolute URL https", async () => {
    allUnder(await absoluteUrls(fly, { "fly-forwarded-proto": "https" }), `https://${host(fly)}`);
  });
});

describe("no TRUST_PROXY", () => {
  test("the proxy headers are ignored: the request's own scheme", async () => {
    allUnder(
      await absoluteUrls(direct, {
        "x-forwarded-proto": "https",
        forwarded: "proto=https",
        "fly-forwarded-proto": "https",
      }),
      direct.baseUrl,
    );
  });
});
