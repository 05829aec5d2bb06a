/**
 * `bun bench/page-browsing.ts`: a person browsing the search page against a server with the
 * default rate limits (60 anonymous requests a minute), in headless Chromium (playwright-core,
 * /usr/bin/chromium, loopback only).
 *
 * The person opens the search page, then every BENCH_VIEW_MS (default 2,000) opens the next
 * result's record, reads it, and goes back to the results (the next page after the 25th), for
 * BENCH_MINUTES (default 5). Target: no answer is a 429 and the page never says "Too many
 * requests". Then, in a fresh window, a script reads entries the way the page does (record,
 * capabilities, availability, source) as fast as it can: it must be refused (429) at its 61st
 * entry, as the documented limit says.
 *
 *     bun bench/page-browsing.ts
 *     BENCH_MINUTES=1 bun bench/page-browsing.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseCli } from "../src/cli/args";
import { envNumber } from "./lib/env";
import { freePort, generateDatabase, startPinned, stop, waitUntilAnswers } from "./lib/process";

parseCli({
  command: "bun run bench:page-browsing",
  synopsis: [""],
  description:
    "A person browsing the search page in headless Chromium against a server with the default rate limits: no answer may be a 429; then a script reading entries as fast as it can must be refused at its 61st.",
  options: {},
  optionHelp: [],
  environment: "BENCH_MINUTES (5), BENCH_VIEW_MS (2000), BENCH_SERVER_CPUS (0).",
});

// Playwright (its own few hundred milliseconds to load) once the arguments are read.
const { chromium } = await import("playwright-core");
const ROOT = resolve(import.meta.dir, "..");
const minutes = envNumber("BENCH_MINUTES", 5);
const viewMs = envNumber("BENCH_VIEW_MS", 2000);
const LIMIT = 60;

const dir = mkdtempSync(join(tmpdir(), "page-browsing-"));
const dbPath = join(dir, "endpoints.sqlite");
generateDatabase(dbPath, { endpoints: 2000 }, true);

const started = startPinned(
  join(ROOT, "src/index.ts"),
  process.env.BENCH_SERVER_CPUS || "0",
  {
    DATABASE_PATH: dbPath,
    INDEX_DIR: join(dir, "index"),
    HOST: "127.0.0.1",
    // The documented defaults, whatever the environment says.
    RATE_LIMIT_MAX: String(LIMIT),
    RATE_LIMIT_WINDOW_SECONDS: "60",
    LOG_LEVEL: "error",
  },
  join(dir, "server.log"),
  freePort(),
);
const base = `http://127.0.0.1:${started.port}`;

try {
  await waitUntilAnswers(started, "/health", 60_000);
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route("**", (route) =>
    new URL(route.request().url()).hostname === "127.0.0.1" ? route.continue() : route.abort("blockedbyclient"),
  );
  const page = await context.newPage();
  const statuses = new Map<number, number>();
  let apiRequests = 0;
  page.on("response", (response) => {
    if (!new URL(response.url()).pathname.startsWith("/api/")) return;
    apiRequests++;
    statuses.set(response.status(), (statuses.get(response.status()) ?? 0) + 1);
  });

  // The results in name order: the bare page lists the developers, not entries.
  await page.goto(`${base}/?sort=name`);
  await page.locator("#list > li").first().waitFor();
  const end = Date.now() + minutes * 60_000;
  let views = 0;
  let row = 0;
  let messages = 0;
  while (Date.now() < end) {
    const next = Date.now() + viewMs;
    if (row === 25) {
      await page.locator('#pager a[rel="next"]').click();
      await page.locator("#results:not([aria-busy])").waitFor({ state: "attached" });
      row = 0;
    }
    await page.locator("#list > li h3 a").nth(row).click();
    await page.locator("#verdict-heading, #message:not([hidden])").first().waitFor();
    views++;
    row++;
    if (await page.locator("#message:not([hidden])").count()) messages++;
    await page.waitForTimeout(Math.max(0, next - Date.now() - 150));
    await page.locator("a.back").click();
    await page.locator("#list > li").first().waitFor();
    await page.waitForTimeout(Math.max(0, next - Date.now()));
  }
  await browser.close();

  // A script in a window of its own: every part of each entry, as fast as it goes.
  await Bun.sleep(60_000 - (Date.now() % 60_000) + 50);
  const first = await fetch(`${base}/api/v1/endpoints?limit=100`);
  const ids = ((await first.json()) as { data: { id: string }[] }).data;
  // The list is the script's first counted request; `refusedAt` counts the entries after it.
  let counted = LIMIT - Number(first.headers.get("ratelimit-remaining"));
  let refusedAt: number | null = null;
  for (let i = 0; i < ids.length && refusedAt === null; i++)
    for (const part of ["", "/capabilities", "/availability", "/source"]) {
      const response = await fetch(`${base}/api/v1/endpoints/${ids[i]!.id}${part}`);
      await response.arrayBuffer();
      if (response.status === 429) {
        refusedAt = counted + 1;
        break;
      }
      if (part === "") counted = LIMIT - Number(response.headers.get("ratelimit-remaining"));
    }

  const refused = statuses.get(429) ?? 0;
  console.log(
    JSON.stringify({
      minutes,
      viewMs,
      views,
      apiRequests,
      statuses: Object.fromEntries(statuses),
      pageMessages: messages,
      scriptRefusedAtRequestUnit: refusedAt,
    }),
  );
  console.log(
    refused === 0 && messages === 0 && refusedAt === LIMIT + 1
      ? `PASS: ${views} record views in ${minutes} min without a 429; the script was refused at request ${refusedAt} of its window`
      : "FAIL",
  );
  if (!(refused === 0 && messages === 0 && refusedAt === LIMIT + 1)) process.exitCode = 1;
} finally {
  await stop(started);
  rmSync(dir, { recursive: true, force: true });
}
