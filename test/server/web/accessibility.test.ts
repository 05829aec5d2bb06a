/**
 * The search page for keyboards and screen readers, in headless Chromium (playwright-core)
 * against a real server process on 127.0.0.1: axe-core (injected into the page) finds no
 * violation of any impact on any view at 390, 1280 and 1920 px; every select shows its whole
 * choice; and the page is used by keyboard alone, focus landing where the reader is (the row one
 * opened, after Back). Skipped without Chromium, except in CI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { chromiumRuns, type PageOnServer, pageOnServer, screenshotToLookAt } from "../../support/chromium";
import { pageFixtureDb, settled } from "./page-fixture";

const it = chromiumRuns ? test : test.skip;
const AXE = readFileSync(Bun.resolveSync("axe-core/axe.min.js", import.meta.dir), "utf8");
const WIDTHS = [390, 1280, 1920];
/**
 * The widths reached by widening the page loaded at the width before, not by a load of their own
 * (nor axe-core's injection again). The page's one choice made by width in script rather than in
 * CSS is made at load: the filters start unfolded from 760 px. 1280 and 1920 px both unfold them,
 * so the page loaded at 1280 px and widened to 1920 px is the view loaded at 1920 px.
 */
const WIDENED = new Set([1920]);

let live: PageOnServer | undefined;
let page: Page | undefined;
let base = "";

beforeAll(async () => {
  if (!chromiumRuns) return;
  const db = pageFixtureDb();
  db.sqlite.close();
  live = await pageOnServer(db.path, "accessibility", { width: 1280, height: 900 });
  page = live.page;
  base = live.base;
}, 60_000);

afterAll(async () => {
  await live?.close();
});

const current = () => {
  if (!page) throw new Error("the browser did not start");
  return page;
};

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
        await p.setViewportSize({ width, height: 900 });
        if (!WIDENED.has(width)) {
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
