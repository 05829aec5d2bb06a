import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { nationalDatabase } from "../../support/built-once";
import {
  chromiumRuns,
  networkQuiet,
  type PageOnServer,
  pageOnServer,
  screenshotToLookAt,
} from "../../support/chromium";
import { removeTempDirs, tempDir } from "../../support/temp-db";

/**
 * The search page on the bundled national directory (db/national/), in headless Chromium against
 * a real server process on 127.0.0.1: what it says of versions inferred from a certification, of
 * an entry kept out of the listings, and of matches beyond the pages. Skipped without Chromium,
 * except in CI.
 */
const it = chromiumRuns ? test : test.skip;

/** CorrecTek's "endpoint": a page of the FHIR specification, stored as unusable. */
const CORRECTEK = "1e395fe0d519e6abacdab76534d8004bd393f35ad8e1c7038cb452c6a3775543";
/** A MaximEyes practice whose list item gave a path without a host ("api/eyesite/R4"): its host is a guess. */
const HOWLIN = "bbd3b356242fdc21122b310bcd73ceef80dd4197cab9779483998e939933a8b6";
/** A MaximEyes practice whose URL, on the same host, was published whole. */
const VERONA = "571dcd04f34ed25324784afa92c0234c19560a8bf6cc3a57001053bdadaafb59";
/** A Carepaths practice: its version comes only from the developer's certification. */
const CAREPATHS = "5c1e6ac4461275248b8502d9a50219d9f1c13c36543301cfe9600a2c0cd1f9fc";

let live: PageOnServer | undefined;
let page: Page | undefined;
let base = "";

beforeAll(async () => {
  if (!chromiumRuns) return;
  const path = join(tempDir("national-page-"), "directory.sqlite");
  await nationalDatabase(path);
  live = await pageOnServer(path, "national-page", { width: 1400, height: 900 });
  page = live.page;
  base = live.base;
}, 120_000);

afterAll(async () => {
  await live?.close();
  removeTempDirs();
});

async function open(path: string) {
  const p = page!;
  await p.goto(`${base}${path}`, { waitUntil: "load" });
  await networkQuiet(p);
  return p;
}

describe("the search page on the national directory", () => {
  it("the home page opens on the developers by size and what to search by, not on rows without a name", async () => {
    const p = await open("/");
    await p.locator("#list > li").first().waitFor();
    const vendors = (
      (await (await fetch(`${base}/api/v1/vendors`)).json()) as {
        data: { id: string; name: string; endpointCount: number }[];
      }
    ).data.filter((v) => v.endpointCount > 0);
    const largest = [...vendors].sort((a, b) => b.endpointCount - a.endpointCount);
    expect(await p.locator("#results-heading").textContent()).toBe("Developers");
    const names = await p.locator("#list > li h3").allTextContents();
    expect(names.length).toBe(vendors.length);
    expect(names.slice(0, 3)).toEqual(largest.slice(0, 3).map((v) => v.name));
    expect(names).not.toContain("No organization name");
    const total = vendors.reduce((sum, v) => sum + v.endpointCount, 0);
    const stats = (await (await fetch(`${base}/api/v1/stats`)).json()) as { data: { totalEndpoints: number } };
    expect(total).toBe(stats.data.totalEndpoints);
    expect(await p.locator("#summary").textContent()).toStartWith(
      `${total.toLocaleString("en-US")} endpoints from ${vendors.length} developers. Search above`,
    );
    await screenshotToLookAt(p, "national-home-1400", false);
    // A developer opens its entries; "List every endpoint" opens the list in its default order.
    await p.locator("#list > li h3 a").first().click();
    await p.waitForURL((url) => url.search === `?vendor=${largest[0]!.id}`);
    await p
      .locator("#summary", { hasText: `${largest[0]!.endpointCount.toLocaleString("en-US")} endpoints match` })
      .waitFor();
    await p.goBack();
    await p.locator("#summary a", { hasText: "List every endpoint" }).click();
    await p.waitForURL((url) => url.search === "?sort=name");
    await p.locator("#summary", { hasText: `${total.toLocaleString("en-US")} endpoints match` }).waitFor();
    const first = (
      (await (await fetch(`${base}/api/v1/endpoints`)).json()) as { data: { organizationName: string | null }[] }
    ).data;
    expect((await p.locator("#list > li h3").allTextContents()).length).toBe(first.length);
  }, 60_000);

  it("filters by who publishes the endpoints (EHR developer or health plan), carried in the address", async () => {
    const p = await open("/");
    await p.locator("#list > li").first().waitFor();
    await p.selectOption("#f-kind", "payer");
    await p.waitForURL((url) => url.search === "?kind=payer");
    const expected = (await (await fetch(`${base}/api/v1/endpoints?kind=payer`)).json()) as {
      data: { organizationName: string | null }[];
      meta: { total: number };
    };
    expect(expected.meta.total).toBeGreaterThan(0);
    await p.locator("#summary", { hasText: `${expected.meta.total.toLocaleString("en-US")} endpoint` }).waitFor();
    const payers = new Set(
      ((await (await fetch(`${base}/api/v1/vendors`)).json()) as { data: { name: string; kind: string }[] }).data
        .filter((v) => v.kind === "payer")
        .map((v) => v.name),
    );
    const developers = await p.locator("#list > li .vendor").allTextContents();
    expect(developers.length).toBe(expected.data.length);
    for (const text of developers) expect(payers.has(text.split(" · ")[0]!)).toBe(true);
    // A shared link opens with the filter set and shown.
    await open("/?kind=ehr");
    expect(await p.locator("#f-kind").inputValue()).toBe("ehr");
    expect(await p.locator("#more-filters-summary").textContent()).toBe("Filters (1 set)");
  }, 60_000);

  it("a capability search says nothing has been probed yet, and how, instead of 'no endpoint matches'", async () => {
    for (const supports of ["bulk-export", "smart-v2"]) {
      const p = await open(`/?supports=${supports}`);
      await p.locator("#results:not([aria-busy])").waitFor({ state: "attached" });
      await p.locator("#summary", { hasText: "probed" }).waitFor();
      const summary = (await p.locator("#summary").textContent()) ?? "";
      const production = (
        (await (await fetch(`${base}/api/v1/stats/capabilities`)).json()) as { data: { endpoints: number } }
      ).data.endpoints;
      expect(summary).toContain(
        `none of the ${production.toLocaleString("en-US")} production entries has been probed yet`,
      );
      expect(summary).toContain("bun run probe");
      expect(summary).toContain("bun run data:sample");
      // The developers' section says the same instead of hiding.
      await p.locator("#readiness").waitFor();
      expect(await p.locator("#readiness").textContent()).toContain("No server has been probed yet");
    }
  }, 60_000);

  it('typing "cleveland clinic" puts Epic\'s Cleveland Clinic first, ahead of names that only contain the words', async () => {
    const p = await open("/");
    await p.locator("#list > li").first().waitFor();
    await p.locator("#f-query").pressSequentially("cleveland clinic", { delay: 40 });
    await p.waitForURL(/query=cleveland\+clinic/);
    await p.locator("#summary", { hasText: "13 endpoints match" }).waitFor();
    const first = p.locator("#list > li").first();
    expect(await first.locator("h3").textContent()).toBe("Cleveland Clinic");
    expect(await first.locator(".vendor").textContent()).toStartWith("Epic Systems");
    const names = await p.locator("#list > li h3").allTextContents();
    expect(names.indexOf("MS - Cleveland Children's Clinic")).toBeGreaterThan(names.indexOf("Cleveland Clinic"));
    // Epic publishes Cleveland Clinic at DSTU2 and R4: the newer is shown first, and its Copy copies it.
    const versions = await p.locator("#list > li .facts div:first-child dd").allTextContents();
    expect(versions.slice(0, 2)).toEqual(["R4", "DSTU2"]);
    const url = await first.locator("code.url").textContent();
    expect(url).toMatch(/\/R4$/);
    expect(await first.locator("button.copy").getAttribute("data-copy")).toBe(url);
  }, 60_000);

  it("says only the first 25,000 matches can be paged; any search links to the export of all its matches", async () => {
    const p = await open("/?sort=name");
    await p.locator("#results:not([aria-busy])").waitFor({ state: "attached" });
    const summary = await p.locator("#summary").textContent();
    const total = (
      (await (await fetch(`${base}/api/v1/stats`)).json()) as { data: { totalEndpoints: number } }
    ).data.totalEndpoints.toLocaleString("en-US");
    expect(summary).toBe(
      `${total} endpoints match. Showing 1–25, page 1 of 1000. Only the first 25,000 can be paged here: the export has all ${total}.`,
    );
    expect(await p.locator(".export-all a").evaluateAll((links) => links.map((a) => a.getAttribute("href")))).toEqual([
      "/api/v1/export?format=csv",
      "/api/v1/export?format=ndjson",
      "/api/v1/export?format=fhir",
    ]);
    // A search whose matches all fit the pages has no such note, and can be downloaded all the same.
    await open("/?vendor=epic");
    await p.locator("#results:not([aria-busy])").waitFor({ state: "attached" });
    expect(await p.locator("#summary").textContent()).not.toContain("Only the first");
    expect(await p.locator(".export-all a").evaluateAll((links) => links.map((a) => a.getAttribute("href")))).toEqual(
      ["csv", "ndjson", "fhir"].map((format) => `/api/v1/export?format=${format}&vendor=epic`),
    );
  }, 60_000);

  it('rows whose version rests on the certification say "R4 (inferred)"; versions a list states do not', async () => {
    const p = await open("/?vendor=carepaths");
    await p.locator("#list > li").first().waitFor();
    const versions = await p.locator("#list .facts div:first-child dd").allTextContents();
    expect(versions).toHaveLength(25);
    expect(new Set(versions)).toEqual(new Set(["R4 (inferred)"]));
    await open("/?vendor=epic");
    await p.locator("#list > li").first().waitFor();
    const epic = await p.locator("#list .facts div:first-child dd").allTextContents();
    expect(epic.some((v) => v.includes("inferred"))).toBe(false);
  }, 60_000);

  it("an entry kept out of the listings says why, with no Copy button; a name ending in s gets only an apostrophe", async () => {
    const p = await open(`/?id=${CORRECTEK}`);
    await p.locator("#record-heading").waitFor();
    const record = p.locator("section[aria-labelledby=record-heading]");
    expect(await record.locator(".status").textContent()).toBe(
      "Not usable: the URL is a document (.html, .pdf), not a FHIR server's base",
    );
    expect(await record.locator("button.copy").count()).toBe(0);
    await open(`/?id=${CAREPATHS}`);
    await p.locator("#record-heading").waitFor();
    const usable = p.locator("section[aria-labelledby=record-heading]");
    expect(await usable.locator("button.copy").count()).toBe(1);
    expect(await usable.getByText("Carepaths' list").count()).toBe(1);
    expect(await usable.getByText("R4, inferred").count()).toBe(1);
  }, 60_000);

  it('a URL whose host was guessed says "Guessed URL", in its row and record; a URL as published says nothing', async () => {
    // MaximEyes published "api/eyesite/R4" for Howlin Vision Clinic: the host is a guess. Verona
    // Vision Care's URL on the same host was published whole.
    const p = await open("/?query=Howlin+Vision+Clinic");
    const guessed = p.locator("#list > li", { hasText: "Howlin Vision Clinic, PC" });
    await guessed.waitFor();
    expect(await guessed.locator(".url-line").textContent()).toContain("https://fhir.maximeyes.com/api/eyesite/R4");
    expect(await guessed.locator(".status-repaired").textContent()).toBe("Guessed URL");
    expect(await guessed.locator(".status-repaired").getAttribute("title")).toStartWith(
      "Guessed URL: the list gave a path",
    );
    await open("/?query=Verona+Vision+Care");
    const published = p.locator("#list > li", { hasText: "Verona Vision Care" });
    await published.waitFor();
    expect(await published.locator(".url-line").textContent()).toContain("https://fhir.maximeyes.com/api/hunt/R4");
    expect(await published.locator(".status-repaired").count()).toBe(0);
    await open(`/?id=${HOWLIN}`);
    await p.locator("#record-heading").waitFor();
    const record = p.locator("section[aria-labelledby=record-heading]");
    expect(await record.locator(".status-repaired").textContent()).toBe("Guessed URL");
    expect(await record.getByText("the host is a guess until a probe verifies it").count()).toBe(1);
    await open(`/?id=${VERONA}`);
    await p.locator("#record-heading").waitFor();
    expect(await p.locator("section[aria-labelledby=record-heading] .status-repaired").count()).toBe(0);
  }, 60_000);

  it('a health plan is found by its brand name ("WellFirst Health", "Amerigroup"), and its record says it is one', async () => {
    const p = await open("/");
    await p.locator("#list > li").first().waitFor();
    await p.locator("#f-query").pressSequentially("wellfirst health", { delay: 40 });
    await p.waitForURL(/query=wellfirst\+health/);
    await p.locator("#summary", { hasText: "1 endpoint matches" }).waitFor();
    const first = p.locator("#list > li").first();
    expect(await first.locator("h3").textContent()).toBe("WellFirst Health (WFH)");
    expect(await first.locator(".vendor").textContent()).toStartWith("1upHealth health plans");
    await first.locator("h3 a").click();
    await p.locator("#record-heading").waitFor();
    expect(await p.locator("#detail .vendor").first().textContent()).toContain("a health plan");
    const record = p.locator("section[aria-labelledby=record-heading]");
    expect(await record.getByText("Health plan (Patient Access API)").count()).toBe(1);
    // An EHR developer's entry says so too.
    await open(`/?id=${CAREPATHS}`);
    await p.locator("#record-heading").waitFor();
    expect(
      await p
        .locator("section[aria-labelledby=record-heading]")
        .getByText("EHR developer (certified health IT)")
        .count(),
    ).toBe(1);
    // Its developer's report card has no CHPL certification to show.
    const card = await open("/?developer=elevance-health-anthem");
    await card.getByText("not certified health IT").waitFor();
    const amerigroup = await open("/?query=amerigroup");
    await amerigroup.locator("#list > li").first().waitFor();
    const names = await amerigroup.locator("#list > li h3").allTextContents();
    expect(names).toContain("Amerigroup");
    expect(names).toContain("Amerigroup Medicaid");
  }, 60_000);
});
