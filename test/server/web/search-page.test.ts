import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { ARTIFACTS, chromiumRuns, launchChromium, networkQuiet, screenshotToLookAt } from "../../support/chromium";
import { type ServerProcess, startServer } from "../../support/server-process";
import { HOSTILE_NAME, pageFixtureDb, settled as pageSettled, widen } from "./page-fixture";

/**
 * The search page in headless Chromium (Debian's, driven by playwright-core), against real
 * server processes on 127.0.0.1, every other host cut off: what it shows and does, its
 * accessibility (axe-core on every view, the keyboard alone), and a person browsing under the
 * default rate limit. One Chromium and the servers serve every test (a test sets the viewport
 * before it loads a page). Skipped without Chromium, except in CI.
 */
const runs = chromiumRuns;
const it = runs ? test : test.skip;

let server: ServerProcess | undefined;
/** A second server whose quota is 3 requests a day: the page's fourth request is refused. */
let limited: ServerProcess | undefined;
/** A third with the documented anonymous limit, 60 requests a minute. */
let browsing: ServerProcess | undefined;
let context: BrowserContext | undefined;
let page: Page | undefined;
let profileDir: string | undefined;
let base = "";

const dialogs: string[] = [];
const pageErrors: string[] = [];
const consoleErrors: { text: string; url: string }[] = [];
const offHost: string[] = [];

beforeAll(async () => {
  if (!runs) return;
  const db = pageFixtureDb();
  db.sqlite.close();
  [server, limited, browsing] = await Promise.all([
    startServer({ DATABASE_PATH: db.path, RATE_LIMIT_MAX: "0" }),
    startServer({ DATABASE_PATH: db.path, RATE_LIMIT_MAX: "3", RATE_LIMIT_WINDOW_SECONDS: "86400" }),
    startServer({ DATABASE_PATH: db.path, RATE_LIMIT_MAX: "60", RATE_LIMIT_WINDOW_SECONDS: "60" }),
  ]);
  base = new URL(server.baseUrl).origin;
  ({ context, profileDir } = await launchChromium("search-page", { width: 1400, height: 900 }));
  // Chromium itself fails every request for another host (launchChromium): here each is listed.
  context.on("request", (request) => {
    if (isOffHost(request.url())) offHost.push(request.url());
  });
  context.on("page", watch);
  page = context.pages()[0] ?? (await context.newPage());
  watch(page);
}, 60_000);

afterAll(async () => {
  await context?.close().catch(() => {});
  await Promise.all([server?.stop(), limited?.stop(), browsing?.stop()]);
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
});

/** A request for a host other than the local servers' (data: and blob: URLs ask no host). */
const isOffHost = (url: string) => !/^(data|blob|about):/.test(url) && new URL(url).hostname !== "127.0.0.1";

function watch(p: Page) {
  p.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  p.on("pageerror", (error) => pageErrors.push(String(error)));
  p.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push({ text: message.text(), url: message.location().url });
  });
}

const current = () => {
  if (!page) throw new Error("the browser did not start");
  return page;
};

/** Waits until the page has shown the answer to its latest request. */
const settled = (p = current()) => pageSettled(p);

const shownNames = (p = current()) => p.locator("#list .org").allTextContents();
const query = (p = current()) => new URL(p.url()).searchParams;

/** The organization names the API answers for a search: what the page must show. */
async function apiNames(params: string): Promise<{ names: string[]; total: number }> {
  const body = (await (await fetch(`${base}/api/v1/endpoints?${params}`)).json()) as {
    data: { organizationName: string | null }[];
    meta: { total: number };
  };
  return { names: body.data.map((e) => e.organizationName ?? "No organization name"), total: body.meta.total };
}

/** Opens a view; by default every entry in the list's order (the bare home page shows the developers instead). */
async function fresh(path = "/?sort=name") {
  const p = current();
  await p.goto(`${base}${path}`, { waitUntil: "load" });
  await settled(p);
  return p;
}

/** Console errors other than an availability 404 (a server without that route: the page shows nothing for it). */
const unexpectedConsoleErrors = () =>
  consoleErrors.filter((e) => !(/Failed to load resource.*404/.test(e.text) && e.url.endsWith("/availability")));

describe("the search page in headless Chromium", () => {
  it("opens on the first page of every listed endpoint, with the dataset overview and vendor options", async () => {
    const p = await fresh();
    expect(await p.title()).toContain("Endpoint Directory");
    // 11 entries of the shared fixture, 30 clinics, the hostile name.
    expect(await p.locator("#summary").textContent()).toBe("42 endpoints match. Showing 1–25, page 1 of 2.");
    expect(await p.locator("#list > li").count()).toBe(25);
    await p.locator("#overview-summary", { hasText: "42 endpoints from 4 vendors" }).waitFor();
    // FHIR versions as SVG bars, one per version present, with their counts.
    expect(await p.locator("#versions-chart svg .bar").count()).toBe(5);
    const versionsLabel = await p.locator("#versions-chart svg").getAttribute("aria-label");
    expect(versionsLabel).toBe("Endpoints by FHIR version: DSTU2 1, STU3 1, R4 38, R4B 1, R5 1");
    expect(await p.locator("#vendors-chart svg").getAttribute("aria-label")).toBe(
      "Largest vendors by endpoints: MEDITECH 32, Epic Systems 4, athenahealth 3, Oracle Health 3",
    );
    const vendorOptions = await p.locator("#f-vendor option").allTextContents();
    expect(vendorOptions).toEqual([
      "Any vendor",
      "athenahealth (3 endpoints)",
      "Epic Systems (4 endpoints)",
      "MEDITECH (32 endpoints)",
      "Oracle Health (3 endpoints)",
    ]);
    expect(offHost).toEqual([]);
  }, 30_000);

  it("asks the API once for each thing it shows on opening: the home page, the list, an entry's page", async () => {
    const p = current();
    const id = ((await (await fetch(`${base}/api/v1/endpoints?query=lake`)).json()) as { data: { id: string }[] })
      .data[0]!.id;
    const asked: string[] = [];
    const onRequest = (request: { url(): string }) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith("/api/")) asked.push(url.pathname);
    };
    p.on("request", onRequest);
    const askedTwice: Record<string, string[]> = {};
    try {
      for (const path of ["/", "/?sort=name", `/?id=${id}`]) {
        asked.length = 0;
        await fresh(path);
        if (path.includes("id=")) await p.locator("#detail-heading").waitFor();
        await networkQuiet(p);
        // The developers are asked on every view (the vendor filter's choices, an entry's kind).
        expect(asked).toContain("/api/v1/vendors");
        askedTwice[path] = asked.filter((pathname, i) => asked.indexOf(pathname) !== i);
      }
    } finally {
      p.off("request", onRequest);
    }
    expect(askedTwice).toEqual({ "/": [], "/?sort=name": [], [`/?id=${id}`]: [] });
  }, 30_000);

  it("searches as the user types, fewer requests than keystrokes, and puts the query in the address bar", async () => {
    const p = await fresh();
    const searches: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (new URL(request.url()).pathname === "/api/v1/endpoints") searches.push(request.url());
    };
    p.on("request", onRequest);
    await p.locator("#f-query").click();
    await p.keyboard.type("mass gen", { delay: 40 });
    await p.locator("#summary", { hasText: "1 endpoint matches" }).waitFor();
    await settled(p);
    p.off("request", onRequest);
    expect(await shownNames(p)).toEqual(["Massachusetts General Hospital"]);
    expect(query(p).get("query")).toBe("mass gen");
    expect(searches.length).toBeGreaterThan(0);
    expect(searches.length).toBeLessThan("mass gen".length);
  }, 30_000);

  it("filters by vendor, state, FHIR version, audience, SMART and resources, each as the API answers", async () => {
    const cases: [string, string, string][] = [
      ["#f-vendor", "oracle-health", "vendor=oracle-health"],
      ["#f-state", "TX", "state=TX"],
      ["#f-fhirVersion", "R5", "fhirVersion=R5"],
      ["#f-access", "provider", "access=provider"],
      ["#f-smartSupported", "true", "smartSupported=true"],
    ];
    const p = await fresh();
    for (const [selector, value, params] of cases) {
      // Back to the unfiltered list by the browser's Back (the page's own navigation) after the
      // first filter, rather than a load of the page each time.
      if (p.url() !== `${base}/?sort=name`) {
        await p.goBack();
        await p.waitForURL((url) => url.search === "?sort=name");
        await settled(p);
      }
      await p.selectOption(selector, value);
      await p.waitForURL((url) => url.search === `?${params}`);
      await settled(p);
      const expected = await apiNames(params);
      expect(expected.total).toBeGreaterThan(0);
      expect(expected.total).toBeLessThan(42);
      expect(await shownNames(p)).toEqual(expected.names);
      expect(await p.locator("#summary").textContent()).toStartWith(`${expected.total} endpoint`);
    }
    // Resources are typed: lower case is accepted and sent as FHIR spells it.
    await p.goBack();
    await p.waitForURL((url) => url.search === "?sort=name");
    await settled(p);
    await p.locator("#f-hasResource").fill("condition, observation");
    await p.waitForURL((url) => url.search === "?hasResource=Condition%2CObservation");
    await settled(p);
    expect(await shownNames(p)).toEqual(["Massachusetts General Hospital", "General Hospital_Of Texas"]);
    // Hand-checked against the fixture for one filter, not only against the API.
    await fresh("/?state=TX");
    expect(await shownNames()).toEqual([
      "austin general clinic",
      "Family Practice of Austin",
      "General Hospital_Of Texas",
    ]);
  }, 60_000);

  it("pages through results, and Back and Forward return to each page", async () => {
    const p = await fresh("/?query=mercy");
    expect(await p.locator("#summary").textContent()).toBe("30 endpoints match. Showing 1–25, page 1 of 2.");
    await p.getByRole("link", { name: "Next ›" }).click();
    await p.waitForURL((url) => url.searchParams.get("page") === "2");
    await settled(p);
    expect(await p.locator("#summary").textContent()).toBe("30 endpoints match. Showing 26–30, page 2 of 2.");
    expect(await shownNames(p)).toEqual([26, 27, 28, 29, 30].map((n) => `Mercy Clinic ${n}`));
    expect(await p.locator(".pager .disabled", { hasText: "Next" }).count()).toBe(1);

    await p.goBack();
    await p.waitForURL((url) => !url.searchParams.has("page"));
    await settled(p);
    expect((await shownNames(p))[0]).toBe("Mercy Clinic 01");
    expect(await p.locator("#f-query").inputValue()).toBe("mercy");

    await p.goForward();
    await p.waitForURL((url) => url.searchParams.get("page") === "2");
    await settled(p);
    expect((await shownNames(p))[0]).toBe("Mercy Clinic 26");

    // Back across a filter change restores the form as well as the results.
    await p.selectOption("#f-vendor", "meditech");
    await p.waitForURL((url) => url.searchParams.get("vendor") === "meditech");
    await settled(p);
    await p.goBack();
    await p.waitForURL((url) => !url.searchParams.has("vendor"));
    await settled(p);
    expect(await p.locator("#f-vendor").inputValue()).toBe("");
  }, 30_000);

  it("copies a result's URL with its Copy button and says so", async () => {
    await context!.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
    const p = await fresh("/?query=lake");
    const button = p.getByRole("button", { name: "Copy the URL of Lake Medical" });
    await button.click();
    await p
      .locator("#copy-status", { hasText: "Copied https://fhir.lake.example/v2/r5" })
      .waitFor({ state: "attached" });
    expect(await p.evaluate<string>(`navigator.clipboard.readText()`)).toBe("https://fhir.lake.example/v2/r5");
  }, 30_000);

  it("reads a shared link on load: /?query=mercy&state=OH&page=2", async () => {
    const p = await fresh("/?query=mercy&state=OH&page=2");
    expect(await p.locator("#f-query").inputValue()).toBe("mercy");
    expect(await p.locator("#f-state").inputValue()).toBe("OH");
    expect(await p.locator("#summary").textContent()).toBe("30 endpoints match. Showing 26–30, page 2 of 2.");
  }, 30_000);

  it("opens an endpoint's detail: record, capabilities, raw JSON links; Back returns to the results", async () => {
    const p = await fresh("/?query=massachusetts");
    // A mark on the row, to see whether Back shows this list or builds it again.
    await p
      .locator("#list > li")
      .first()
      .evaluate((row) => row.setAttribute("data-test-mark", ""));
    await p.getByRole("link", { name: "Massachusetts General Hospital" }).click();
    const heading = p.locator("#detail-heading");
    await heading.waitFor();
    await networkQuiet(p);
    expect(await heading.textContent()).toBe("Massachusetts General Hospital");
    const id = query(p).get("id") ?? "";
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(query(p).get("query")).toBe("massachusetts");
    const detail = p.locator("#detail");
    const text = (await detail.textContent()) ?? "";
    for (const shown of [
      "https://fhir.mgh.example/api/FHIR/R4",
      "1234567893",
      "patient, provider",
      "Boston, MA 02114",
      "Epic 1.10e2",
      "launch-standalone",
      "client_credentials",
      "Resources (3)",
    ])
      expect(text).toContain(shown);
    expect(await detail.locator(".chips li").allTextContents()).toContain("Observation");
    const raw = await detail.locator(".raw a").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    expect(raw).toEqual([
      `/api/v1/endpoints/${id}`,
      `/api/v1/endpoints/${id}/capabilities`,
      `/api/v1/endpoints/${id}/availability`,
    ]);
    // The availability route answers for every entry: its section is shown, with no error message.
    await p.locator("#availability").waitFor();
    expect(await p.locator("#availability h3").textContent()).toBe("Availability");
    expect(await p.locator("#message").isHidden()).toBe(true);
    // Keyboard users land on the heading.
    expect(await p.evaluate(`document.activeElement && document.activeElement.id`)).toBe("detail-heading");

    await p.getByRole("link", { name: "‹ Back to results" }).click();
    await p.waitForURL((url) => !url.searchParams.has("id"));
    await settled(p);
    expect(await shownNames(p)).toEqual(["Massachusetts General Hospital"]);
    expect(await p.locator("#detail").isHidden()).toBe(true);
    // The results it left, shown again as they were, not built anew from the same answer.
    expect(await p.locator("#list > li[data-test-mark]").count()).toBe(1);

    // The detail has its own address, and it opens directly.
    await fresh(`/?id=${id}`);
    await p.locator("#detail-heading", { hasText: "Massachusetts General Hospital" }).waitFor();
  }, 30_000);

  it("shows the availability figures when the availability route answers", async () => {
    const p = current();
    const figures = {
      success: true,
      data: {
        endpointId: "x",
        url: "https://fhir.mgh.example/api/FHIR/R4",
        lastProbed: "2026-11-21T08:00:00.000Z",
        uptime: { "1d": 1, "7d": 0.9857, "30d": 0.995, "365d": null },
        responseTimeMs: { median: 182, p95: 1240 },
        lastSuccessAt: "2026-11-21T08:00:00.000Z",
        lastFailureAt: "2026-11-18T03:00:00.000Z",
        recent: [
          {
            at: "2026-11-21T08:00:00.000Z",
            outcome: "success",
            httpStatus: 200,
            smartHttpStatus: 200,
            responseTimeMs: 182,
            error: null,
          },
          {
            at: "2026-11-20T08:00:00.000Z",
            outcome: "success",
            httpStatus: 200,
            smartHttpStatus: 200,
            responseTimeMs: 240,
            error: null,
          },
          {
            at: "2026-11-18T03:00:00.000Z",
            outcome: "failed",
            httpStatus: null,
            smartHttpStatus: null,
            responseTimeMs: null,
            error: "timeout",
          },
        ],
      },
    };
    // A known availability answer in the route's documented shape, so every figure can be checked.
    await p.route("**/api/v1/endpoints/*/availability", (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(figures) }),
    );
    try {
      await fresh("/?query=massachusetts");
      await p.getByRole("link", { name: "Massachusetts General Hospital" }).click();
      const section = p.locator("#availability");
      await section.waitFor();
      const text = (await section.textContent()) ?? "";
      for (const shown of ["100.00 %", "98.57 %", "99.50 %", "no probes", "median 182 ms", "p95 1,240 ms", "timeout"])
        expect(text).toContain(shown);
      // A strip of the last 30 days, one square a day, named by its counts for a screen reader.
      const strip = section.locator("svg.strip");
      expect(await strip.getAttribute("aria-label")).toBe(
        "Probe outcomes, last 30 days to 2026-11-21: 2 days answered, 1 day failed, 27 days not probed",
      );
      const days = await strip
        .locator("rect")
        .evaluateAll((rects) => rects.map((r) => `${r.getAttribute("data-day")} ${r.getAttribute("class")}`));
      expect(days).toHaveLength(30);
      expect(days[0]).toBe("2026-10-23 day day-none");
      // Its axis: the first and last day under its ends.
      expect(await section.locator(".strip-days span").allTextContents()).toEqual(["2026-10-23", "2026-11-21"]);
      expect(days.slice(-4)).toEqual([
        "2026-11-18 day day-failed",
        "2026-11-19 day day-none",
        "2026-11-20 day day-success",
        "2026-11-21 day day-success",
      ]);
      // The response times as a line, oldest to newest.
      expect(await section.locator("svg.response-line").getAttribute("aria-label")).toBe(
        "Response time of the last 2 probes, oldest to newest: from 182 ms to 240 ms, newest 182 ms",
      );
      expect(await section.locator("svg.response-line polyline").getAttribute("points")).toMatch(/^52,\d+ 292,\d+$/);
      // Its axes carry their values: the most and no milliseconds, the first and last probe's day.
      expect(await section.locator("svg.response-line text.scale").allTextContents()).toEqual([
        "240 ms",
        "0 ms",
        "2026-11-20",
        "2026-11-21",
      ]);
      // The numbers are one click away.
      const table = section.locator("details.recent table");
      expect(await table.isVisible()).toBe(false);
      await section.locator("details.recent summary").click();
      expect(await table.isVisible()).toBe(true);
      expect(await section.locator("tbody tr").count()).toBe(3);
      expect(await p.locator(".raw a").allTextContents()).toContain("Availability");
    } finally {
      await p.unroute("**/api/v1/endpoints/*/availability");
    }
  }, 30_000);

  it("shows a hostile organization name as its characters and runs nothing", async () => {
    const p = await fresh("/?query=img%20onerror");
    expect(await shownNames(p)).toEqual([HOSTILE_NAME]);
    expect(await p.locator("#list img, #detail img").count()).toBe(0);
    await p.getByRole("link", { name: HOSTILE_NAME }).click();
    await p.locator("#detail-heading").waitFor();
    await networkQuiet(p);
    expect(await p.locator("#detail-heading").textContent()).toBe(HOSTILE_NAME);
    expect(await p.locator("main img").count()).toBe(0);
    expect(await p.title()).toBe(`${HOSTILE_NAME}: Endpoint Directory`);
    expect(dialogs).toEqual([]);
  }, 30_000);

  it("is usable by keyboard and screen reader: labelled controls, visible focus, announced results", async () => {
    const p = await fresh();
    const unlabelled = await p.evaluate<number>(
      `[...document.querySelectorAll("input, select, button")].filter((c) => c.labels?.length === 0 && !c.getAttribute("aria-label") && !c.textContent.trim()).length`,
    );
    expect(unlabelled).toBe(0);
    expect(await p.locator("#summary").getAttribute("aria-live")).toBe("polite");
    expect(await p.locator("#message").getAttribute("role")).toBe("alert");
    // The skip link, the title, the API reference, then the search box.
    const order: string[] = [];
    for (let i = 0; i < 4; i++) {
      await p.keyboard.press("Tab");
      order.push(await p.evaluate<string>(`document.activeElement.id || document.activeElement.textContent`));
    }
    expect(order).toEqual(["Skip to results", "Endpoint Directory", "API reference", "f-query"]);
    const outline = await p.evaluate<string>(`getComputedStyle(document.activeElement).outlineStyle`);
    expect(outline).not.toBe("none");
  }, 30_000);

  it("fits 360 px and 1,400 px wide (screenshots saved to test-artifacts/)", async () => {
    const p = current();
    mkdirSync(ARTIFACTS, { recursive: true });
    for (const width of [360, 1400]) {
      await p.setViewportSize({ width, height: 900 });
      await fresh("/?state=MA");
      await p.locator("#overview-summary", { hasText: "endpoints" }).waitFor();
      const overflow = await p.evaluate<number>(`document.documentElement.scrollWidth - window.innerWidth`);
      expect(overflow).toBeLessThanOrEqual(0);
      // The one screenshot the test reads (it exists below); the others only for a person to look at.
      if (width === 360) await p.screenshot({ path: join(ARTIFACTS, "search-page-360.png"), fullPage: true });
      else await screenshotToLookAt(p, `search-page-${width}`);
      await p.getByRole("link", { name: "Massachusetts General Hospital" }).click();
      await p.locator("#detail-heading").waitFor();
      await networkQuiet(p);
      expect(await p.evaluate<number>(`document.documentElement.scrollWidth - window.innerWidth`)).toBeLessThanOrEqual(
        0,
      );
      await screenshotToLookAt(p, `search-page-detail-${width}`);
    }
    await p.setViewportSize({ width: 1400, height: 900 });
    expect(existsSync(join(ARTIFACTS, "search-page-360.png"))).toBe(true);
  }, 60_000);

  it("logged no console error, page error or dialog, and asked no other host, in everything above", () => {
    if (!runs) return;
    expect(unexpectedConsoleErrors()).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(offHost).toEqual([]);
  });

  it("enforces its Content-Security-Policy: markup injected by any means could still run no inline script", async () => {
    const p = await fresh();
    const violations: string[] = [];
    const onConsole = (message: { text(): string }) => {
      if (message.text().includes("Content Security Policy")) violations.push(message.text());
    };
    p.on("console", onConsole);
    // DevTools evaluation is exempt from the CSP; the markup it writes is not.
    await p.evaluate(
      `document.body.insertAdjacentHTML("beforeend", '<img src="data:," onload="window.__ran = 1"><script>window.__ran = 2</script>')`,
    );
    await p.locator("body > img").waitFor({ state: "attached" });
    await p.waitForLoadState("networkidle");
    p.off("console", onConsole);
    expect(await p.evaluate(`typeof window.__ran`)).toBe("undefined");
    expect(violations.length).toBeGreaterThan(0);
  }, 30_000);

  it("explains a rejected search (400), an unknown endpoint (404), a server error (5xx) and a lost connection", async () => {
    const p = await fresh();
    await p.locator("#f-hasResource").fill("Patient!");
    await p.locator("#message", { hasText: "The server did not accept this search: hasResource:" }).waitFor();

    await fresh(`/?id=${"0".repeat(64)}`);
    await p.locator("#message", { hasText: "No endpoint has this id" }).waitFor();
    expect(await p.getByRole("link", { name: "‹ Back to results" }).isVisible()).toBe(true);

    await p.route("**/api/v1/endpoints?*", (route) =>
      route.fulfill({
        status: 503,
        contentType: "application/json",
        body: '{"success":false,"error":{"code":"INTERNAL_ERROR","message":"x"}}',
      }),
    );
    try {
      await fresh("/?query=lake");
      await p.locator("#message", { hasText: "The server could not answer (error 503)" }).waitFor();
    } finally {
      await p.unroute("**/api/v1/endpoints?*");
    }

    await fresh();
    await context!.setOffline(true);
    try {
      await p.locator("#f-query").fill("valley");
      await p.locator("#message", { hasText: "The server cannot be reached" }).waitFor();
    } finally {
      await context!.setOffline(false);
    }
    // Back online, the page runs the search again by itself.
    await p.locator("#summary", { hasText: "1 endpoint matches" }).waitFor();
    expect(await p.locator("#message").isHidden()).toBe(true);
    expect(await shownNames(p)).toEqual(["Valley Regional"]);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it("shows a 429 as a message with the wait from Retry-After, and keeps working", async () => {
    if (!limited) throw new Error("setup failed");
    const p = current();
    const origin = new URL(limited.baseUrl).origin;
    const retryAfter: string[] = [];
    p.on("response", (response) => {
      if (response.status() === 429) retryAfter.push(response.headers()["retry-after"] ?? "");
    });
    // Stats, vendors and the first page use the quota of 3; the next search is refused.
    await p.goto(`${origin}/?sort=name`, { waitUntil: "load" });
    await settled(p);
    const message = p.locator("#message", { hasText: "Too many requests" });
    for (const word of ["lake", "valley", "mercy", "boston"]) {
      if (await message.isVisible()) break;
      await p.locator("#f-query").fill(word);
      await p.waitForLoadState("networkidle");
    }
    await message.waitFor();
    expect(retryAfter.length).toBeGreaterThan(0);
    const seconds = Number(retryAfter[0]);
    expect(seconds).toBeGreaterThan(0);
    const text = (await message.textContent()) ?? "";
    expect(text).toMatch(/Please wait \d+ seconds?; the page tries again then\./);
    const shown = Number(/wait (\d+)/.exec(text)?.[1]);
    // The wait shown is one the server gave (a later 429 may give a second less).
    expect(retryAfter.map(Number)).toContain(shown);
    // The page and its controls still work.
    expect(pageErrors).toEqual([]);
    await p.selectOption("#f-state", "OH");
    await p.waitForURL((url) => url.searchParams.get("state") === "OH");
    expect(await p.locator("#f-query").isEditable()).toBe(true);
  }, 60_000);
});

const AXE = readFileSync(Bun.resolveSync("axe-core/axe.min.js", import.meta.dir), "utf8");
const WIDTHS = [390, 1280, 1920];
/**
 * The widths reached by widening the page loaded at 390 px, not by a load of their own (nor
 * axe-core's injection again). The page's one choice made by width in script rather than in CSS
 * is the filters unfolded from 760 px, at load and when the window widens past it, so the page
 * loaded at 390 px and widened to 1280 or 1920 px is the view loaded there (checked below).
 */
const WIDENED = new Set([1280, 1920]);

interface Violation {
  id: string;
  impact: string;
  nodes: string[];
}

/** axe-core's violations on the page as it is now (every rule, every impact). */
async function axeViolations(p = current()): Promise<Violation[]> {
  // Injected through the DevTools protocol: the page's CSP allows no script of ours.
  if (!(await p.evaluate("typeof window.axe !== 'undefined'"))) await p.evaluate(AXE);
  return p.evaluate<Violation[]>(`axe.run(document, { resultTypes: ["violations"] }).then((result) =>
    result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")) })))`);
}

/** The selects whose chosen option is wider than the box shows (text width by the select's own font). */
async function cutSelects(p = current()): Promise<string[]> {
  return p.evaluate<string[]>(`(() => {
    const context = document.createElement("canvas").getContext("2d");
    return [...document.querySelectorAll("select")].filter((select) => {
      const style = getComputedStyle(select);
      if (select.offsetParent === null) return false;
      context.font = style.font;
      const text = select.options[select.selectedIndex]?.text ?? "";
      // The arrow takes about 20 px beside the padding.
      const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
      return context.measureText(text).width > room;
    }).map((select) => select.id + ": " + select.options[select.selectedIndex]?.text + " in " + select.clientWidth + " px");
  })()`);
}

/** The views a reader meets: results, a search with no match, a page past the last, an endpoint's detail. */
async function views(): Promise<string[]> {
  const list = (await (await fetch(`${base}/api/v1/endpoints?vendor=epic&limit=1`)).json()) as {
    data: { id: string }[];
  };
  const ids = ((await (await fetch(`${base}/api/v1/endpoints?limit=100`)).json()) as { data: { id: string }[] }).data;
  const byProbe = new Map<boolean, string>();
  for (const { id } of ids) {
    const c = (await (await fetch(`${base}/api/v1/endpoints/${id}/capabilities`)).json()) as {
      data: { probeStatus: string };
    };
    byProbe.set(c.data.probeStatus !== "unchecked", id);
  }
  return [
    "/",
    "/?query=zzzz-nothing",
    "/?query=mercy",
    "/?supports=smart-v2",
    "/?supports=bulk-export",
    "/?page=9",
    "/?state=OH&fhirVersion=R4&page=2",
    "/?kind=payer",
    `/?id=${list.data[0]!.id}`,
    `/?id=${byProbe.get(true)}`,
    `/?id=${byProbe.get(false)}`,
  ];
}

/**
 * The search page for keyboards and screen readers: axe-core (injected into the page) finds no
 * violation of any impact on any view at 390, 1280 and 1920 px; every select shows its whole
 * choice; and the page is used by keyboard alone, focus landing where the reader is (the row one
 * opened, after Back).
 */
describe("the search page for keyboards and screen readers", () => {
  it("axe-core finds no violation on any view at 390, 1280 and 1920 px, and no select cuts its choice", async () => {
    const p = current();
    const found: Record<string, unknown> = {};
    const check = async (width: number, path: string) => {
      if (path.includes("id=")) await p.locator("#detail-heading").waitFor();
      await p.locator("#overview-summary", { hasText: "endpoints from" }).waitFor();
      const violations = await axeViolations(p);
      const cut = await cutSelects(p);
      if (violations.length > 0 || cut.length > 0) found[`${width} ${path}`] = { violations, cut };
      if (path === "/") await screenshotToLookAt(p, `accessibility-${width}`);
    };
    // The premise of WIDENED, checked on the list and on a detail view: the page widened to a
    // width is the page loaded at it (the whole document, which <details> are open, the focus).
    // An empty style attribute, which axe-core's checks leave behind, is no difference.
    const documentNow = async () =>
      (
        await p.evaluate<string>(
          `JSON.stringify([document.documentElement.outerHTML, [...document.querySelectorAll("details")].map((d) => d.open), document.activeElement?.id ?? ""])`,
        )
      ).replaceAll(' style=\\"\\"', "");
    const widenedDocuments = new Map<string, string>();
    const all = await views();
    const compared = [all[0]!, all.find((path) => path.includes("id="))!];
    for (const path of all) {
      for (const width of WIDTHS) {
        if (WIDENED.has(width)) await widen(p, width);
        else {
          await p.setViewportSize({ width, height: 900 });
          await p.goto(`${base}${path}`, { waitUntil: "load" });
          await settled(p);
        }
        await check(width, path);
        if (WIDENED.has(width) && compared.includes(path))
          widenedDocuments.set(`${width} ${path}`, await documentNow());
      }
    }
    expect(found).toEqual({});
    for (const [key, widened] of widenedDocuments) {
      const [width, path] = key.split(" ") as [string, string];
      await p.setViewportSize({ width: Number(width), height: 900 });
      await p.goto(`${base}${path}`, { waitUntil: "load" });
      await settled(p);
      if (path.includes("id=")) await p.locator("#detail-heading").waitFor();
      await p.locator("#overview-summary", { hasText: "endpoints from" }).waitFor();
      expect([key, await documentNow()]).toEqual([key, widened]);
    }
  }, 300_000);

  it("a keyboard alone searches, filters, opens an endpoint and comes back to the row it opened", async () => {
    const p = current();
    await p.setViewportSize({ width: 1280, height: 900 });
    await p.goto(`${base}/`, { waitUntil: "load" });
    await settled(p);
    const focused = () =>
      p.evaluate<string>(
        `(() => { const e = document.activeElement; return e ? e.tagName + "#" + e.id + " " + (e.getAttribute("data-id") ?? "") + " " + (e.textContent ?? "").trim().slice(0, 40) : ""; })()`,
      );
    // The first Tab reaches the skip link; following it lands on the results heading.
    await p.keyboard.press("Tab");
    expect(await focused()).toContain("Skip to results");
    await p.keyboard.press("Enter");
    expect(await focused()).toStartWith("H2#results-heading");
    // Type a name into the search box and submit it with Enter.
    await p.locator("#f-query").focus();
    await p.keyboard.type("mercy");
    await p.keyboard.press("Enter");
    await p.waitForURL(/query=mercy/);
    await settled(p);
    expect(await p.locator("#summary").textContent()).toStartWith("30 endpoints match");
    // Choose an audience with the arrow keys: the search follows.
    await p.locator("#f-access").focus();
    await p.keyboard.press("ArrowDown");
    await p.waitForURL(/access=patient/);
    await settled(p);
    // Tab from the form's last button into the results, to the second row's link, and open it.
    await p.locator("#clear").focus();
    const second = await p.locator("#list a[data-id]").nth(1).getAttribute("data-id");
    for (let i = 0; i < 60 && !(await focused()).includes(second!); i++) await p.keyboard.press("Tab");
    expect(await focused()).toContain(second!);
    await p.keyboard.press("Enter");
    await p.waitForURL(new RegExp(`id=${second}`));
    await p.locator("#detail-heading").waitFor();
    expect(await focused()).toStartWith("H2#detail-heading");
    // Back by the page's own link (Shift+Tab from the heading reaches it), then by the browser's Back.
    await p.keyboard.press("Shift+Tab");
    expect(await focused()).toContain("Back to results");
    await p.keyboard.press("Enter");
    await p.waitForURL((url) => !url.searchParams.has("id"));
    await settled(p);
    expect(await focused()).toContain(second!);
    await p.keyboard.press("Enter");
    await p.locator("#detail-heading").waitFor();
    await p.goBack();
    await settled(p);
    expect(await focused()).toContain(second!);
    expect(new URL(p.url()).searchParams.get("access")).toBe("patient");
  }, 60_000);
});

/**
 * A person reading one entry after another on the search page, against the server with the
 * documented anonymous limit (60 requests a minute): the page's look at an entry costs one
 * request, so reading 40 entries as fast as the page goes is never refused, while a script is
 * still held to 60 requests. The five-minute session at one entry every two seconds is
 * `bun run bench:page-browsing`.
 */
const VIEWS = 40;

describe("a person browsing under the default rate limit", () => {
  it(`reads ${VIEWS} entries in a row without a 429, while a script is refused past 60 requests`, async () => {
    if (!browsing) throw new Error("setup failed");
    const p = current();
    const base = new URL(browsing.baseUrl).origin;
    await p.setViewportSize({ width: 1280, height: 900 });
    const refused: string[] = [];
    const onResponse = (response: { status(): number; url(): string }) => {
      if (response.status() === 429) refused.push(new URL(response.url()).pathname);
    };
    p.on("response", onResponse);
    await p.goto(`${base}/?sort=name`, { waitUntil: "load" });
    await settled(p);
    let row = 0;
    for (let view = 0; view < VIEWS; view++) {
      if (row === 25) {
        await p.locator('#pager a[rel="next"]').click();
        await settled(p);
        row = 0;
      }
      await p.locator("#list > li h3 a").nth(row++).click();
      await p.locator("#verdict-heading, #message:not([hidden])").first().waitFor();
      expect(await p.locator("#message").isHidden()).toBe(true);
      await p.locator("a.back").click();
      await p.locator("#list > li").first().waitFor();
    }
    p.off("response", onResponse);
    expect(refused).toEqual([]);

    // A script asking the list over and over is still held to the documented 60 a minute.
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const response = await fetch(`${base}/api/v1/endpoints?page=${(i % 2) + 1}`);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toContain(429);
  }, 120_000);
});

describe("Chromium as the page tests start it", () => {
  it("reaches no host but loopback: navigations and fetches to a name or an address fail on this machine", async () => {
    if (!context) throw new Error("the browser did not start");
    const failed = new Map<string, string>();
    const failures = (p: Page) =>
      p.on("requestfailed", (request) => failed.set(request.url(), request.failure()?.errorText ?? ""));
    // A page of no origin, so no Content-Security-Policy of ours stops a fetch before the network would.
    const blank = await context.newPage();
    failures(blank);
    const seenBefore = offHost.length;
    const targets = ["http://example.com/", "https://example.com/", "http://93.184.215.14/", "https://93.184.215.14/"];
    try {
      for (const url of targets) {
        const fetched = await blank.evaluate<string>(
          `fetch(${JSON.stringify(url)}, { mode: "no-cors" }).then(() => "answered", (error) => String(error))`,
        );
        expect(fetched).toContain("Failed to fetch");
        expect(failed.get(url)).toBe("net::ERR_PROXY_CONNECTION_FAILED");
        failed.delete(url);
        // Each navigation in a page of its own: Chromium's error page would interrupt the next one.
        const tab = await context.newPage();
        failures(tab);
        const navigation = await tab.goto(url).then(
          () => "loaded",
          (error: Error) => error.message,
        );
        await tab.close();
        expect(navigation).toContain("net::ERR_PROXY_CONNECTION_FAILED");
        expect(failed.get(url)).toBe("net::ERR_PROXY_CONNECTION_FAILED");
      }
    } finally {
      await blank.close();
    }
    // Each went only to the dead proxy on 127.0.0.1 (Chromium falls back to no direct connection),
    // and the watch that the tests above rely on saw every one of them.
    expect(offHost.slice(seenBefore).filter((url) => targets.includes(url)).length).toBe(targets.length * 2);
    offHost.length = seenBefore;
  }, 60_000);
});
