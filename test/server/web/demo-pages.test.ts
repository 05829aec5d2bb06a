/**
 * The search page on the demo dataset, in headless Chromium against one real server process on
 * it (one Chromium, one server: each test sets the viewport before it loads a page).
 *
 * Finding a provider from the page's one search box, at a phone's width (390 px) and a laptop's
 * (1280 px): by NPI, by host and near a ZIP with the keyboard alone; the filters folded on the
 * phone with the results on the first screen; the sort control, the downloads, one organization's
 * newest version first; URLs that break at / and .; no text widening the page; chart axes with
 * values; axe finds no violation.
 *
 * A developer's view (`/?developer=<id>`): the report card's figures as bars and its history as
 * lines, each chart named for a screen reader with its numbers one click away, reached from a
 * record; axe-core finds no violation at 390 and 1280 px.
 *
 * Skipped without Chromium, except in CI.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { openDirectory } from "../../../src/directory/directory";
import { sampleDatabase } from "../../support/built-once";
import { chromiumRuns, type PageOnServer, pageOnServer, screenshotToLookAt } from "../../support/chromium";
import { removeTempDirs, tempDir } from "../../support/temp-db";

const it = chromiumRuns ? test : test.skip;
const AXE = readFileSync(Bun.resolveSync("axe-core/axe.min.js", import.meta.dir), "utf8");
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
];
/** A software name of one 200-character word: what a probed server may call itself. */
const LONG_SOFTWARE = `Fhir${"Server".repeat(32)}X${"y".repeat(3)}`;

let path = "";
/** The entry whose probe names LONG_SOFTWARE. */
let longNamed = "";
/** One server and one Chromium for every test: each sets the viewport before it loads a page. */
let live: PageOnServer | undefined;
/** The developer whose report card the developer's view tests read, as its card gives it. */
let vendor: { id: string; name: string; listed: number };

interface Entry {
  id: string;
  url: string;
  npi: string | null;
  organizationName: string | null;
  vendorId: string;
  fhirVersion: string;
}

beforeAll(async () => {
  if (!chromiumRuns) return;
  path = join(tempDir("demo-pages-"), "directory.sqlite");
  await sampleDatabase(path);
  // One probed server calls itself by one long word (before the server builds its index).
  const sql = new Database(path);
  const row = sql
    .query(
      "SELECT e.id, e.url FROM entries e JOIN probes p ON p.url = e.url WHERE p.probe_status = 'success' AND e.status = 'verified' LIMIT 1",
    )
    .get() as { id: string; url: string };
  sql.query("UPDATE probes SET software_name = ? WHERE url = ?").run(LONG_SOFTWARE, row.url);
  sql.close();
  longNamed = row.id;
  const directory = openDirectory(openDatabase(path), loadConfig({ DATABASE_PATH: path }));
  const card = directory.current.reportCards.vendors.find((v) => v.vendorId === "epic")!;
  vendor = { id: card.vendorId, name: card.vendorName, listed: card.list.listed };
  directory.close();
  live = await pageOnServer(path, "demo-pages", VIEWPORTS[0]!);
}, 180_000);

afterAll(async () => {
  await live?.close();
  removeTempDirs();
});

async function api<T>(base: string, query: string): Promise<{ data: T[]; meta: { total: number } }> {
  return (await (await fetch(`${base}/api/v1/endpoints?${query}`)).json()) as { data: T[]; meta: { total: number } };
}

const settled = (p: Page) => p.locator("#results:not([aria-busy])").waitFor({ state: "attached" });

/** Types a search into the one box with the keyboard alone: Tab from the page's start, type, Enter. */
async function searchByKeyboard(p: Page, base: string, text: string) {
  await p.goto(`${base}/`, { waitUntil: "load" });
  await settled(p);
  await p.locator("body").focus();
  for (let i = 0; i < 10; i++) {
    await p.keyboard.press("Tab");
    if (await p.evaluate("document.activeElement?.id === 'f-query'")) break;
  }
  expect(await p.evaluate("document.activeElement?.id")).toBe("f-query");
  await p.keyboard.type(text);
  await p.keyboard.press("Enter");
  await p.waitForURL((url) => url.searchParams.get("query") === text);
  await settled(p);
  await p.locator("#summary", { hasText: /match/ }).waitFor();
}

/** Tabs from the box to the first result's link and opens it with Enter: the record's heading. */
async function openFirstByKeyboard(p: Page): Promise<string> {
  for (let i = 0; i < 40; i++) {
    await p.keyboard.press("Tab");
    if (await p.evaluate("document.activeElement?.matches('#list a[data-id]') === true")) break;
  }
  const id = await p.evaluate<string>("document.activeElement?.getAttribute('data-id') ?? ''");
  expect(id).toMatch(/^[0-9a-f]{64}$/);
  await p.keyboard.press("Enter");
  await p.locator("#detail-heading").waitFor();
  return id;
}

async function axeViolations(p: Page): Promise<string[]> {
  if (!(await p.evaluate("typeof window.axe !== 'undefined'"))) await p.evaluate(AXE);
  return p.evaluate<string[]>(
    `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).join(", ")))`,
  );
}

const pageWidth = (p: Page) => p.evaluate<number>("document.documentElement.scrollWidth");

for (const viewport of VIEWPORTS) {
  describe(`finding a provider at ${viewport.width} px`, () => {
    beforeAll(async () => {
      await live?.page.setViewportSize(viewport);
    });

    it("near a ZIP, from the one box with the keyboard alone: nearest first, each row its distance", async () => {
      const { page: p, base } = live!;
      await searchByKeyboard(p, base, "near 44195");
      const expected = await api<Entry>(base, "near=44195&limit=25");
      expect(expected.meta.total).toBeGreaterThan(0);
      expect(await p.locator("#summary").textContent()).toStartWith(
        `${expected.meta.total} endpoint${expected.meta.total === 1 ? "" : "s"} match`,
      );
      const miles = (await p.locator("#list .vendor").allTextContents()).map((t) =>
        Number(/([\d.]+)\s+mi away/.exec(t)?.[1]),
      );
      expect(miles.every((m) => !Number.isNaN(m) && m <= 25)).toBe(true);
      expect(miles).toEqual([...miles].sort((a, b) => a - b));
      // The results start on the first screen: the filters folded above them on a phone,
      // unfolded in a compact block on a laptop, where the first result is whole and the next starts.
      const first = await p.locator("#list > li").first().boundingBox();
      expect(first!.y).toBeLessThan(viewport.height);
      expect(await p.locator("#more-filters").evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(
        viewport.width >= 760,
      );
      if (viewport.width >= 760) {
        expect(first!.y + first!.height).toBeLessThanOrEqual(viewport.height);
        expect((await p.locator("#list > li").nth(1).boundingBox())!.y).toBeLessThan(viewport.height);
      }
      expect(await pageWidth(p)).toBeLessThanOrEqual(viewport.width);
      expect(await axeViolations(p)).toEqual([]);
      await screenshotToLookAt(p, `find-near-${viewport.width}`, false);
      const opened = await openFirstByKeyboard(p);
      expect(expected.data.map((e) => e.id)).toContain(opened);
    }, 60_000);

    it("by NPI and by host, from the one box with the keyboard alone", async () => {
      const { page: p, base } = live!;
      const withNpi = (await api<Entry>(base, "limit=100")).data.find((e) => e.npi !== null);
      const npi =
        withNpi?.npi ??
        (await (await fetch(`${base}/api/v1/export?format=ndjson`)).text())
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Entry)
          .find((e) => e.npi !== null)!.npi!;
      await searchByKeyboard(p, base, npi);
      const byNpi = await api<Entry>(base, `npi=${npi}`);
      expect(await p.locator("#list > li").count()).toBe(Math.min(25, byNpi.meta.total));
      const opened = await openFirstByKeyboard(p);
      expect(byNpi.data.map((e) => e.id)).toContain(opened);
      expect(await p.locator("#detail").textContent()).toContain(npi);

      await searchByKeyboard(p, base, "eclinicalworks.com");
      const urls = await p.locator("#list code.url").allTextContents();
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls) expect(new URL(url).hostname).toMatch(/(^|\.)eclinicalworks\.com$/);
      expect(await p.locator("#summary").textContent()).toStartWith(
        `${(await api<Entry>(base, "host=eclinicalworks.com")).meta.total} endpoints match`,
      );
      await openFirstByKeyboard(p);
      expect(await axeViolations(p)).toEqual([]);
    }, 60_000);

    it("sorts by name or distance; downloads any search; one organization's newest version first, Copy on it", async () => {
      const { page: p, base } = live!;
      await p.goto(`${base}/?query=near%2044195`);
      await settled(p);
      const options = await p
        .locator("#f-sort option")
        .evaluateAll((all) =>
          all.filter((o) => !(o as unknown as { hidden: boolean }).hidden).map((o) => o.textContent),
        );
      expect(options).toEqual(["Best first", "Name", "Distance"]);
      await p.locator("#f-sort").selectOption("name");
      await p.waitForURL(/sort=name/);
      await settled(p);
      const byName = await api<Entry>(base, "near=44195&sort=name");
      expect(await p.locator("#list .org").allTextContents()).toEqual(
        byName.data.map((e) => e.organizationName ?? "No organization name"),
      );
      expect(await p.locator(".export-all a").evaluateAll((links) => links.map((a) => a.getAttribute("href")))).toEqual(
        ["csv", "ndjson", "fhir"].map((f) => `/api/v1/export?format=${f}&near=44195`),
      );

      // One organization published at two versions: the newer first, and its row's Copy copies it.
      await p.goto(`${base}/?query=${encodeURIComponent("Atlanta Cancer Institute")}&vendor=epic`);
      await settled(p);
      const versions = await p.locator("#list .facts div:first-child dd").allTextContents();
      expect(versions.slice(0, 2)).toEqual(["R4", "DSTU2"]);
      const firstCopy = await p.locator("#list button.copy").first().getAttribute("data-copy");
      expect(firstCopy).toBe(await p.locator("#list code.url").first().textContent());
      expect(firstCopy).toMatch(/R4$/i);
      // The URL wraps at its / and . only: each piece between break points ends with one.
      const pieces = await p
        .locator("#list code.url")
        .first()
        .evaluate((code) =>
          [...code.childNodes].filter((node) => node.nodeType === 3).map((node) => node.textContent ?? ""),
        );
      expect(pieces.slice(0, -1).every((piece) => /[/.]$/.test(piece))).toBe(true);
      expect(pieces.join("")).toBe(firstCopy!);
    }, 60_000);

    it("a 200-character software name does not widen the record; the charts' axes carry values", async () => {
      const { page: p, base } = live!;
      await p.goto(`${base}/?id=${longNamed}`);
      await p.locator("#capabilities-heading").waitFor();
      expect(await p.locator("#detail").textContent()).toContain(LONG_SOFTWARE);
      expect(await pageWidth(p)).toBeLessThanOrEqual(viewport.width);
      const scales = await p.locator("svg.response-line text.scale").allTextContents();
      if (scales.length > 0) {
        expect(scales).toContain("0 ms");
        expect(scales.some((t) => /^\d{4}-\d{2}-\d{2}$/.test(t))).toBe(true);
      }
      await screenshotToLookAt(p, `find-record-${viewport.width}`);

      await p.goto(`${base}/?developer=epic`);
      await p.locator("#detail-heading").waitFor();
      await p.locator("svg.lines").first().waitFor();
      const axis = await p.locator("svg.lines").first().locator("text.axis-label").allTextContents();
      // The side axis's two values, then the first and last day.
      expect(axis.length).toBe(4);
      expect(axis[1]).toMatch(/^0/);
      // The developer's lists are named by where they are published, not by their ids.
      const lists = await p.locator("section[aria-labelledby=report-list] p a").allTextContents();
      expect(lists.length).toBeGreaterThan(0);
      for (const name of lists) expect(name).toMatch(/^[a-z0-9.-]+\.[a-z]+(\/|\s|$)/);
      expect(await pageWidth(p)).toBeLessThanOrEqual(viewport.width);
      expect(await axeViolations(p)).toEqual([]);
      await screenshotToLookAt(p, `find-report-${viewport.width}`);
    }, 60_000);
  });
}

describe.skipIf(!chromiumRuns)("a developer's report card page", () => {
  for (const width of [390, 1280])
    test(`at ${width} px: bars and lines named by their figures, the numbers behind a click, no axe violation`, async () => {
      const { page, base } = live!;
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${base}/?developer=${vendor.id}`);
      await page.getByRole("heading", { name: `${vendor.name}: report card` }).waitFor();
      // The list's figure as a person reads it, and the bars an image named by each share.
      await page.getByText(`${vendor.listed} entries listed`).waitFor();
      const bars = page.getByRole("img", { name: /^Listed entries that give each field: Organization name \d/ });
      expect(await bars.count()).toBe(1);
      // The history: the demo's generated year, said to be generated, as lines from a day a year back.
      await page.getByText("Demo data: the points before today are generated").waitFor();
      const lines = page.getByRole("img", {
        name: /^Entries and verified URLs, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}: Listed entries from \d+ to \d+/,
      });
      expect(await lines.count()).toBe(1);
      await screenshotToLookAt(page, `developer-${width}`);
      // The numbers one click away.
      await page.getByText("Entries and verified URLs: the numbers").click();
      const table = page.getByRole("region", { name: "Entries and verified URLs: the numbers" });
      expect(await table.getByRole("row").count()).toBeGreaterThan(300);
      expect(await table.getByRole("row").nth(1).getByRole("cell").first().textContent()).toBe(String(vendor.listed));
      await page.evaluate(AXE);
      const violations = await page.evaluate<{ id: string }[]>(
        `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact })))`,
      );
      expect(violations).toEqual([]);
    }, 120_000);

  test("a record links to its developer's report card", async () => {
    const { page, base } = live!;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/?vendor=${vendor.id}`);
    await page.locator("ol#list a[data-id]").first().click();
    await page.getByRole("link", { name: "its report card" }).click();
    await page.getByRole("heading", { name: `${vendor.name}: report card` }).waitFor();
    expect(new URL(page.url()).searchParams.get("developer")).toBe(vendor.id);
  }, 120_000);
});
