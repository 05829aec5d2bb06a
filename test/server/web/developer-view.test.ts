/**
 * A developer's view (`/?developer=<id>`) in headless Chromium against a real server: the report
 * card's figures as bars and its history as lines, each chart named for a screen reader with its
 * numbers one click away, reached from a record; axe-core finds no violation at 390 and 1280 px.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { openDirectory } from "../../../src/directory/directory";
import { sampleDatabase } from "../../support/built-once";
import { chromiumRuns, type PageOnServer, pageOnServer, screenshotToLookAt } from "../../support/chromium";
import { removeTempDirs, tempDbPath } from "../../support/temp-db";

const AXE = readFileSync(Bun.resolveSync("axe-core/axe.min.js", import.meta.dir), "utf8");

describe.skipIf(!chromiumRuns)("a developer's report card page", () => {
  let path: string;
  let open: PageOnServer | undefined;
  let vendor: { id: string; name: string; listed: number };

  beforeAll(async () => {
    path = tempDbPath();
    await sampleDatabase(path);
    const db = openDatabase(path);
    const directory = openDirectory(db, loadConfig({ DATABASE_PATH: path }));
    const card = directory.current.reportCards.vendors.find((v) => v.vendorId === "epic")!;
    vendor = { id: card.vendorId, name: card.vendorName, listed: card.list.listed };
    directory.close();
    // One server and one Chromium: each width's test sets the viewport before it loads the page.
    open = await pageOnServer(path, "developer-view", { width: 1280, height: 900 });
  }, 120_000);

  afterAll(async () => {
    await open?.close();
    removeTempDirs();
  });

  for (const width of [390, 1280])
    test(`at ${width} px: bars and lines named by their figures, the numbers behind a click, no axe violation`, async () => {
      const { page, base } = open!;
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
    const { page, base } = open!;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/?vendor=${vendor.id}`);
    await page.locator("ol#list a[data-id]").first().click();
    await page.getByRole("link", { name: "its report card" }).click();
    await page.getByRole("heading", { name: `${vendor.name}: report card` }).waitFor();
    expect(new URL(page.url()).searchParams.get("developer")).toBe(vendor.id);
  }, 120_000);
});
