import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { ARTIFACTS, chromiumRuns, launchChromium, networkQuiet } from "../../support/chromium";
import { fixtureDb } from "../../support/fixture";
import { type ServerProcess, startServer } from "../../support/server-process";

/**
 * The docs page in a real browser: Debian's Chromium, headless, driven by playwright-core, cut
 * off from every host but loopback. On a developer machine without Chromium the test is skipped;
 * in CI (CI set) it always runs, so a missing browser fails it.
 */
const SCREENSHOT = join(ARTIFACTS, "docs-page.png");
const runs = chromiumRuns;

const EXPECTED_OPERATIONS = [
  "GET /api/v1/brands",
  "GET /api/v1/changes",
  "GET /api/v1/endpoints",
  "GET /api/v1/endpoints/{id}",
  "GET /api/v1/endpoints/{id}/capabilities",
  "GET /api/v1/endpoints/{id}/availability",
  "GET /api/v1/endpoints/{id}/source",
  "GET /api/v1/export",
  "GET /api/v1/freshness",
  "GET /api/v1/vendors",
  "GET /api/v1/stats",
  "GET /api/v1/stats/capabilities",
  "GET /api/v1/stats/history",
  "GET /api/v1/vendors/report",
  "GET /api/v1/vendors/{id}/report",
  "GET /api/v1/vendors/{id}/report/history",
  "GET /health",
  "GET /fhir/metadata",
  "GET /fhir/Endpoint",
  "POST /fhir/Endpoint/_search",
  "GET /fhir/Endpoint/{id}",
  "GET /fhir/Organization",
  "POST /fhir/Organization/_search",
  "GET /fhir/Organization/{id}",
  "GET /fhir/SearchParameter/{id}",
  "GET /fhir/{type}",
  "POST /fhir/{type}/_search",
  "GET /fhir/{type}/{id}",
]
  // Every GET has its HEAD twin.
  .flatMap((operation) => (operation.startsWith("GET ") ? [operation, `HEAD ${operation.slice(4)}`] : [operation]))
  .sort();

let server: ServerProcess | undefined;
let context: BrowserContext | undefined;
let page: Page | undefined;
let profileDir: string | undefined;

beforeAll(async () => {
  if (!runs) return;
  const db = fixtureDb();
  db.sqlite.close();
  server = await startServer({ DATABASE_PATH: db.path, RATE_LIMIT_MAX: "0" });
  ({ context, profileDir } = await launchChromium("docs-page", { width: 1280, height: 900 }));
}, 60_000);

afterAll(async () => {
  await context?.close().catch(() => {});
  await server?.stop();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
});

describe("the docs page in headless Chromium", () => {
  test.skipIf(!runs)(
    "renders every operation with the network cut off except the server",
    async () => {
      if (!context || !server) throw new Error("setup failed");
      const serverOrigin = new URL(server.baseUrl).origin;
      expect(new URL(serverOrigin).hostname).toBe("127.0.0.1");

      // Chromium itself fails every request for a host but loopback (launchChromium); each is seen here.
      const seen: string[] = [];
      context.on("request", (request) => seen.push(request.url()));
      const pageErrors: string[] = [];
      const policyViolations: string[] = [];

      page = await context.newPage();
      page.on("pageerror", (error) => pageErrors.push(String(error)));
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) policyViolations.push(message.text());
      });
      const response = await page.goto(`${serverOrigin}/docs`, { waitUntil: "load" });
      expect(response?.status()).toBe(200);

      // Swagger UI has rendered when the title of the spec and every operation block are on the page.
      await page
        .locator(".information-container .title", { hasText: "Endpoint Directory API" })
        .waitFor({ timeout: 20_000 });
      await page
        .locator(".opblock")
        .nth(EXPECTED_OPERATIONS.length - 1)
        .waitFor({ timeout: 20_000 });
      await networkQuiet(page);

      // Every block read in one evaluation (not three round trips a block): its method, its path,
      // and whether a reader sees it, as Playwright's isVisible() judges (shown by CSS, not
      // hidden, a box of some size). A block with no method or path, or two, reads as such.
      const blocks = await page.evaluate<{ operation: string; visible: boolean }[]>(`
        [...document.querySelectorAll(".opblock")].map((block) => {
          const one = (selector) => {
            const found = block.querySelectorAll(selector);
            return found.length === 1 ? found[0] : null;
          };
          const method = (one(".opblock-summary-method")?.textContent ?? "?").trim().toUpperCase();
          const path = one(".opblock-summary-path")?.getAttribute("data-path") ?? "?";
          const box = block.getBoundingClientRect();
          const visible =
            block.checkVisibility() && getComputedStyle(block).visibility === "visible" && box.width > 0 && box.height > 0;
          return { operation: method + " " + path, visible };
        })`);
      expect(blocks.map((block) => block.operation).sort()).toEqual(EXPECTED_OPERATIONS);
      // What a reader sees, not only what the DOM holds.
      expect(blocks.filter((block) => !block.visible)).toEqual([]);

      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });

      // The page really loaded its script and stylesheet from the server, and nothing else left 127.0.0.1.
      expect(seen).toContain(`${serverOrigin}/docs/assets/swagger-ui-bundle.js`);
      expect(seen).toContain(`${serverOrigin}/docs/assets/swagger-ui.css`);
      expect(seen).toContain(`${serverOrigin}/docs/json`);
      const offHost = seen.filter((url) => !/^(data|blob):/.test(url) && new URL(url).hostname !== "127.0.0.1");
      expect(offHost).toEqual([]);
      expect(pageErrors).toEqual([]);
      // Rendered under its Content-Security-Policy, which blocked nothing the page needs.
      expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
      expect(policyViolations).toEqual([]);
      expect(existsSync(SCREENSHOT)).toBe(true);
    },
    60_000,
  );

  (runs ? test : test.skip)(
    "/docs/ (trailing slash) loads the same document",
    async () => {
      if (!context || !server) throw new Error("setup failed");
      const slash = await context.newPage();
      const errors: string[] = [];
      slash.on("pageerror", (error) => errors.push(String(error)));
      const loaded = slash.waitForResponse((response) => new URL(response.url()).pathname === "/docs/json");
      await slash.goto(`${new URL(server.baseUrl).origin}/docs/`, { waitUntil: "load" });
      expect((await loaded).status()).toBe(200);
      await slash.locator(".information-container .title", { hasText: "Endpoint Directory API" }).waitFor();
      expect(await slash.getByText("Failed to load API definition").count()).toBe(0);
      expect(errors).toEqual([]);
      await slash.close();
    },
    30_000,
  );

  (runs ? test : test.skip)(
    "another site cannot show the page in a frame",
    async () => {
      if (!context || !server) throw new Error("setup failed");
      const docs = `${new URL(server.baseUrl).origin}/docs`;
      // Another origin: the same host on another port.
      const other = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: () =>
          new Response(`<!DOCTYPE html><iframe id="framed" src="${docs}"></iframe>`, {
            headers: { "content-type": "text/html" },
          }),
      });
      const framing = await context.newPage();
      try {
        const loaded = framing.waitForEvent("framenavigated", (frame) => frame !== framing.mainFrame());
        await framing.goto(`http://127.0.0.1:${other.port}/`, { waitUntil: "load" });
        const frame = await loaded;
        await frame.waitForLoadState("load");
        // Chromium replaces a refused frame with its error page: no Swagger UI in it.
        expect(await frame.locator("#swagger-ui").count()).toBe(0);
      } finally {
        await framing.close();
        other.stop(true);
      }
    },
    30_000,
  );

  // The API description goes into <meta content="…">: a double quote not escaped
  // in it would end the attribute early and leak the rest as raw text above Swagger UI.
  (runs ? test : test.skip)(
    "shows nothing outside Swagger UI and keeps the whole description in the meta tag",
    async () => {
      if (!page) throw new Error("the page did not render");
      // A string, evaluated in the page: the project's type-check has no DOM library.
      const stray = await page.evaluate<string>(`[...document.body.childNodes]
      .filter((node) => !(node instanceof Element && (node.id === "swagger-ui" || node.tagName === "SCRIPT")))
      .map((node) => node.textContent ?? "")
      .join("")
      .trim()`);
      expect(stray).toBe("");
      const description = await page.locator('meta[name="description"]').getAttribute("content");
      expect(description).toContain("retry 500 with backoff");
    },
  );
});
