import type { Page } from "playwright-core";
import type { Db } from "../../../src/db/client";
import { networkQuiet } from "../../support/chromium";
import { ENTRIES, PROBES, VENDORS } from "../../support/fixture";
import { type SeedEntry, seedDatabase } from "../../support/seed";
import { tempDbPath } from "../../support/temp-db";

/** An organization name written to run script if a page ever parsed it as HTML. */
export const HOSTILE_NAME = "<img src=x onerror=alert(1)>";

/** 30 clinics in Ohio, enough for two pages of 25. */
const MERCY: SeedEntry[] = Array.from({ length: 30 }, (_, i) => {
  const n = String(i + 1).padStart(2, "0");
  return {
    vendorId: "meditech",
    url: `https://fhir.mercy${n}.example/r4`,
    organizationName: `Mercy Clinic ${n}`,
    city: "Columbus",
    state: "OH",
    fhirVersion: "R4",
    access: ["patient"],
    status: i % 2 === 0 ? "verified" : "listed",
  };
});

/** The shared fixture's 11 listed entries, the hostile name and the Ohio clinics: 42 endpoints. */
export function pageFixtureDb(): Db {
  return seedDatabase(tempDbPath(), {
    vendors: VENDORS,
    entries: [
      // Without the shared fixture's removed entry: the page shows what the list operation lists.
      ...ENTRIES.filter((entry) => entry.status !== "removed"),
      ...MERCY,
      {
        vendorId: "oracle-health",
        url: "https://fhir.hostile.example/r4",
        organizationName: HOSTILE_NAME,
        state: "OH",
        fhirVersion: "R4",
        access: ["patient"],
        status: "listed",
      },
    ],
    probes: PROBES,
    at: "2026-11-21T09:00:00.000Z",
  });
}

/** Waits until the page has shown the answer to its latest request, and asks nothing more. */
export async function settled(page: Page) {
  // A locator, not waitForFunction: the page's CSP forbids the eval that a string predicate needs.
  await page.locator("#results:not([aria-busy])").waitFor({ state: "attached" });
  await networkQuiet(page);
}

/**
 * Widens (or narrows) the page to `width` × 900 px and waits for a frame at it: the page's media
 * query listeners have run. A page loaded at 390 px and widened is the page loaded at the width
 * (the accessibility tests in search-page.test.ts check it on the list and on a detail view).
 */
export async function widen(page: Page, width: number) {
  await page.setViewportSize({ width, height: 900 });
  await page.evaluate(`new Promise((resolve) => {
    const frame = () => requestAnimationFrame(() => (window.innerWidth === ${width} ? resolve() : frame()));
    frame();
  })`);
}
