import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  chromiumRuns,
  networkQuiet,
  type PageOnServer,
  pageOnServer,
  screenshotToLookAt,
} from "../../support/chromium";
import { lanternFiles } from "../../support/real-data";
import { seedDatabase } from "../../support/seed";
import { tempDbPath } from "../../support/temp-db";
import { widen } from "./page-fixture";

/**
 * The search page's rows hold their layout with the longest values of the national data (the
 * longest organization name, URL and developer name Lantern lists), at a phone's, a laptop's and
 * a wide screen's width, in headless Chromium: nothing overlaps, nothing leaves its row or runs
 * under the sidebar. Reads Lantern's lists from test/fixtures/real/lantern.
 */
const LANTERN = lanternFiles();
const it = chromiumRuns ? test : test.skip;
const WIDTHS = [390, 1280, 1920];

/** The longest organization name and URL of the national lists, and the longest developer name. */
function longestNational() {
  let organizationName = "";
  let url = "";
  let developer = "";
  for (const file of readdirSync(LANTERN).filter((name) => name.endsWith("_EndpointSources.json"))) {
    const name = file.replace(/_EndpointSources\.json$/, "").replaceAll("_", " ");
    if (name.length > developer.length) developer = name;
    const endpoints = (JSON.parse(readFileSync(join(LANTERN, file), "utf8")) as { Endpoints?: unknown }).Endpoints;
    for (const endpoint of Array.isArray(endpoints) ? endpoints : []) {
      const { URL: address, OrganizationName: org } = endpoint as { URL?: unknown; OrganizationName?: unknown };
      if (typeof org === "string" && org.length > organizationName.length) organizationName = org;
      if (typeof address === "string" && address.length > url.length) url = address;
    }
  }
  return { organizationName, url, developer };
}

let live: PageOnServer | undefined;
let page: Page | undefined;
let longest: ReturnType<typeof longestNational>;

beforeAll(async () => {
  if (!chromiumRuns) return;
  longest = longestNational();
  const db = seedDatabase(tempDbPath(), {
    vendors: [
      { id: "longest", name: longest.developer },
      { id: "athenahealth", name: "athenahealth" },
    ],
    entries: [
      // Every field at its longest; UNKNOWN and "Listed, not verified" are the widest version and status.
      {
        vendorId: "longest",
        url: longest.url,
        organizationName: longest.organizationName,
        city: "Rancho Santa Margarita",
        state: "CA",
        zipCode: "92688-2130",
        fhirVersion: "UNKNOWN",
        status: "listed",
      },
      { vendorId: "longest", url: "https://r4.example.org/fhir", organizationName: "Short", fhirVersion: "R4" },
      // Only a ZIP: no place is shown.
      {
        vendorId: "athenahealth",
        url: "https://api.platform.athenahealth.com/fhir/r4/zip-only",
        organizationName: "Zip Only Practice",
        zipCode: "07116",
        fhirVersion: "R4",
        status: "verified",
      },
    ],
  });
  db.sqlite.close();
  live = await pageOnServer(db.path, "row-layout", { width: 1280, height: 900 });
  page = live.page;
}, 60_000);

afterAll(async () => {
  await live?.close();
});

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** What the layout assertion reads from the page: boxes of each row's parts, and overflowing text. */
const MEASURE = `(() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
  const rows = [...document.querySelectorAll("#list .result")].map((row) => ({
    row: box(row),
    parts: [...row.children].map(box),
    facts: [...row.querySelectorAll(".facts > div:not([hidden]) dd")].map(box),
    clipped: [...row.querySelectorAll("h3, .vendor, .url, .facts dd, .facts dt")]
      .filter((el) => el.scrollWidth > el.clientWidth + 1)
      .map((el) => el.className || el.tagName),
  }));
  const aside = document.querySelector("#overview");
  return {
    rows,
    main: box(document.querySelector("main")),
    aside: aside ? box(aside) : null,
    overflow: document.documentElement.scrollWidth - window.innerWidth,
  };
})()`;

const overlap = (a: Box, b: Box) =>
  Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
  Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
const inside = (inner: Box, outer: Box) => inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5;

describe("the search page's rows with the longest national values", () => {
  it("hold at 390, 1280 and 1920 px: no overlap, nothing outside its row or under the sidebar", async () => {
    const p = page!;
    for (const width of WIDTHS) {
      // Loaded at 390 px, then widened (widen: the page widened is the page loaded at the width).
      await widen(p, width);
      if (width === WIDTHS[0]) {
        await p.goto(`${live!.base}/?sort=name`, { waitUntil: "load" });
        await p.locator("#results:not([aria-busy])").waitFor({ state: "attached" });
        await p.locator("#list .result").nth(2).waitFor();
        await networkQuiet(p);
      }
      await screenshotToLookAt(p, `row-layout-${width}`, width < 1000);
      const measured = (await p.evaluate(MEASURE)) as {
        rows: { row: Box; parts: Box[]; facts: Box[]; clipped: string[] }[];
        main: Box;
        aside: Box | null;
        overflow: number;
      };
      expect({ width, overflow: measured.overflow }).toEqual({ width, overflow: expect.any(Number) });
      expect(measured.overflow).toBeLessThanOrEqual(0);
      expect(measured.rows.length).toBe(3);
      for (const [i, { row, parts, facts, clipped }] of measured.rows.entries()) {
        const where = { width, row: i };
        expect({ ...where, clipped }).toEqual({ ...where, clipped: [] });
        for (const part of parts) expect({ ...where, inside: inside(part, row) }).toEqual({ ...where, inside: true });
        for (let a = 0; a < parts.length; a++)
          for (let b = a + 1; b < parts.length; b++)
            expect({ ...where, parts: [a, b], overlap: overlap(parts[a]!, parts[b]!) }).toEqual({
              ...where,
              parts: [a, b],
              overlap: false,
            });
        expect({ ...where, facts: facts.length, overlap: overlap(facts[0]!, facts[1]!) }).toEqual({
          ...where,
          facts: 2,
          overlap: false,
        });
        // Beside the sidebar (wide screens): the row ends before it starts.
        if (measured.aside && measured.aside.left > measured.main.left)
          expect({ ...where, right: row.right <= measured.aside.left }).toEqual({ ...where, right: true });
      }
    }
  }, 90_000);

  it("spells an unknown version one way, and shows a place as city and state, never a bare ZIP", async () => {
    const p = page!;
    await p.setViewportSize({ width: 1280, height: 900 });
    await p.goto(`${live!.base}/?sort=name`, { waitUntil: "load" });
    await p.locator("#list .result").nth(2).waitFor();
    await networkQuiet(p);
    const vendors = await p.locator("#list .vendor").allTextContents();
    expect(vendors).toEqual(["athenahealth", `${longest.developer} · Rancho Santa Margarita, CA`, longest.developer]);
    // innerText: what is seen, after any text-transform.
    const versions = await p.locator("#list .facts div:first-child dd").allInnerTexts();
    expect(versions).toEqual(["R4", "Unknown", "R4"]);
    await p.locator("#versions-chart", { hasText: "Unknown" }).waitFor();
    // biome-ignore lint/performance/useDomNodeTextContent: the text as seen, after any text-transform
    expect(await p.locator("#overview").innerText()).not.toContain("UNKNOWN");
  }, 30_000);
});
