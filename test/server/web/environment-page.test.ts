import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { canonicalUrl, entryId } from "../../../src/model/identity";
import { chromiumRuns, type PageOnServer, pageOnServer } from "../../support/chromium";
import { seedDatabase } from "../../support/seed";
import { removeTempDirs, tempDbPath } from "../../support/temp-db";
import { settled } from "./page-fixture";

/**
 * The search page's environment label and filter (docs/api.md, Environment), in headless Chromium
 * against a real server process on 127.0.0.1. Skipped without Chromium, except in CI.
 */
const it = chromiumRuns ? test : test.skip;

const SANDBOX = {
  vendorId: "epic",
  url: "https://fhir.example.org/api/FHIR/R4/sandbox",
  organizationName: "Epic Sandbox",
};
const ENTRIES = [
  SANDBOX,
  { vendorId: "epic", url: "https://fhir.example.org/api/FHIR/R4", organizationName: "Sandbox Pediatrics" },
  { vendorId: "epic", url: "https://fhirtest.example.org/api/FHIR/R4", organizationName: "Mercy Hospital - Test" },
].map((e) => ({ ...e, fhirVersion: "R4", status: "listed" }));

let live: PageOnServer | undefined;
let page: Page | undefined;

beforeAll(async () => {
  if (!chromiumRuns) return;
  const path = tempDbPath("environment-page.sqlite");
  seedDatabase(path, { vendors: [{ id: "epic", name: "Epic Systems" }], entries: ENTRIES }).sqlite.close();
  live = await pageOnServer(path, "environment-page", { width: 1280, height: 900 });
  page = live.page;
}, 60_000);

afterAll(async () => {
  await live?.close();
  removeTempDirs();
});

const rowsLabelled = async (p: Page) =>
  Object.fromEntries(
    await p
      .locator("#list > li")
      .evaluateAll((rows) =>
        rows.map((row) => [
          row.querySelector("h3")!.textContent,
          row.querySelector(".status-nonproduction")?.textContent ?? null,
        ]),
      ),
  );

describe("the search page and non-production entries", () => {
  it('labels test and sandbox rows "Non-production", filters by environment, and says it in the record', async () => {
    const p = page!;
    await p.goto(`${live!.base}/?sort=name`, { waitUntil: "load" });
    await settled(p);
    expect(await rowsLabelled(p)).toEqual({
      "Epic Sandbox": "Non-production",
      "Mercy Hospital - Test": "Non-production",
      "Sandbox Pediatrics": null,
    });
    await p.selectOption("#f-environment", "production");
    await p.click("#search button[type=submit]");
    await settled(p);
    expect(Object.keys(await rowsLabelled(p))).toEqual(["Sandbox Pediatrics"]);
    expect(new URL(p.url()).searchParams.get("environment")).toBe("production");
    const id = entryId("epic", canonicalUrl(SANDBOX.url), null, SANDBOX.organizationName);
    await p.goto(`${live!.base}/?id=${id}`, { waitUntil: "load" });
    await p.locator("#record-heading").waitFor();
    const record = await p.locator("section[aria-labelledby=record-heading]").textContent();
    expect(record).toContain("EnvironmentNon-production");
  }, 60_000);
});
