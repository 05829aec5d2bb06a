import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { chromiumRuns, type PageOnServer, pageOnServer } from "../../support/chromium";
import { pageFixtureDb, settled } from "./page-fixture";

/**
 * A person reading one entry after another on the search page, in headless Chromium against a
 * real server with the documented anonymous limit (60 requests a minute): the page's look at an
 * entry costs one request, so reading 40 entries as fast as the page goes is never refused,
 * while a script is still held to 60 requests. The five-minute session at one entry every two
 * seconds is `bun run bench:page-browsing`. Skipped without Chromium, except in CI.
 */
const it = chromiumRuns ? test : test.skip;
const VIEWS = 40;

let live: PageOnServer | undefined;
let page: Page | undefined;
let base = "";

beforeAll(async () => {
  if (!chromiumRuns) return;
  const db = pageFixtureDb();
  db.sqlite.close();
  live = await pageOnServer(
    db.path,
    "browsing-limits",
    { width: 1280, height: 900 },
    { RATE_LIMIT_MAX: "60", RATE_LIMIT_WINDOW_SECONDS: "60" },
  );
  page = live.page;
  base = live.base;
}, 60_000);

afterAll(async () => {
  await live?.close();
});

describe("a person browsing under the default rate limit", () => {
  it(`reads ${VIEWS} entries in a row without a 429, while a script is refused past 60 requests`, async () => {
    const p = page!;
    const refused: string[] = [];
    p.on("response", (response) => {
      if (response.status() === 429) refused.push(new URL(response.url()).pathname);
    });
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
