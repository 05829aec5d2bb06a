/**
 * Cross-origin use from a real browser: a page served by a second local server (another port,
 * so another origin) calls the API with fetch in headless Chromium (playwright-core), sending
 * the headers a browser FHIR client sends. Each one outside the CORS safelist makes Chromium ask
 * the server first (a preflight); a header the preflight does not allow fails the fetch in the
 * page, before any request is sent. No request interception here: Playwright's routing answers
 * preflights itself, which would hide a refused header (the page fetches only 127.0.0.1).
 * Skipped without Chromium, except in CI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumRuns, launchChromium } from "../../support/chromium";
import { fixtureApp } from "../../support/fixture";

const { app, db } = fixtureApp({ LOG_LEVEL: "error" });
let api: string;
let other: ReturnType<typeof Bun.serve> | undefined;
let context: BrowserContext | undefined;
let profileDir: string | undefined;
let page: Page | undefined;

beforeAll(async () => {
  app.listen({ port: 0, hostname: "127.0.0.1" });
  api = `http://127.0.0.1:${app.server!.port}`;
  if (!chromiumRuns) return;
  other = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response("<!DOCTYPE html><title>another site</title><p>client</p>", {
        headers: { "content-type": "text/html" },
      }),
  });
  ({ context, profileDir } = await launchChromium("cors", { width: 800, height: 600 }));
  page = await context.newPage();
  await page.goto(`http://127.0.0.1:${other.port}/`);
}, 60_000);

afterAll(async () => {
  await context?.close().catch(() => {});
  other?.stop(true);
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  await app.stop(true);
  app.directory.close();
  db.sqlite.close();
});

interface Seen {
  status?: number;
  contentType?: string | null;
  body?: string;
  error?: string;
}

/** A fetch made by the page's own script (another origin than the API), and what it could read. */
async function fetchFromPage(url: string, init: Record<string, unknown>): Promise<Seen> {
  // A string, evaluated in the page: the project's type-check has no DOM library.
  return page!.evaluate<Seen>(`fetch(${JSON.stringify(url)}, ${JSON.stringify(init)}).then(
    async (r) => ({ status: r.status, contentType: r.headers.get("content-type"), body: await r.text() }),
    (e) => ({ error: String(e) }))`);
}

describe("cross-origin requests from a page in headless Chromium", () => {
  test.skipIf(!chromiumRuns)("the page is on another origin than the API", async () => {
    expect(new URL(page!.url()).origin).not.toBe(api);
  });

  test.skipIf(!chromiumRuns)(
    "a FHIR search with Prefer: handling=strict and Cache-Control gets its answer",
    async () => {
      const strict = await fetchFromPage(`${api}/fhir/Endpoint?colour=blue`, {
        headers: { Prefer: "handling=strict", "Cache-Control": "no-cache", Accept: "application/fhir+json" },
      });
      expect(strict.error).toBeUndefined();
      expect(strict.status).toBe(400);
      expect(strict.contentType).toBe("application/fhir+json; fhirVersion=4.0");
      expect(JSON.parse(strict.body!).issue[0].diagnostics).toContain("colour");
      const lenient = await fetchFromPage(`${api}/fhir/Endpoint?_count=1`, {
        headers: { Prefer: "handling=lenient", "Cache-Control": "no-cache" },
      });
      expect(lenient.status).toBe(200);
      expect(JSON.parse(lenient.body!).type).toBe("searchset");
    },
  );

  test.skipIf(!chromiumRuns)("a POST _search with a form body and Prefer gets its answer", async () => {
    const posted = await fetchFromPage(`${api}/fhir/Organization/_search`, {
      method: "POST",
      headers: { Prefer: "handling=strict", "Content-Type": "application/x-www-form-urlencoded" },
      body: "_count=2",
    });
    expect(posted.error).toBeUndefined();
    expect(posted.status).toBe(200);
    expect(JSON.parse(posted.body!).entry).toHaveLength(2);
  });

  test.skipIf(!chromiumRuns)("conditional JSON API requests with If-Modified-Since and If-None-Match", async () => {
    const first = await fetchFromPage(`${api}/api/v1/stats`, { headers: { "Cache-Control": "no-cache" } });
    expect(first.status).toBe(200);
    const since = await fetchFromPage(`${api}/api/v1/stats`, {
      headers: { "If-Modified-Since": new Date().toUTCString(), "X-Request-Id": "page-1" },
      cache: "no-store",
    });
    expect(since.error).toBeUndefined();
    expect(since.status).toBe(304);
  });
});
