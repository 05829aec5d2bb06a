import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page, type Request } from "playwright-core";
import { CHROMIUM } from "./chromium-runs";
import { type ServerProcess, startServer } from "./server-process";
import { tempDir } from "./temp-dirs";

export { chromiumRuns } from "./chromium-runs";

/** Where page tests leave their screenshots (ignored by git). */
export const ARTIFACTS = join(import.meta.dir, "..", "..", "test-artifacts");

/**
 * Saves a screenshot of `page` as test-artifacts/<name>.png for a person to look at, only when
 * PAGE_SCREENSHOTS is set: no assertion reads these, and each costs Chromium 0.1 to 0.5 CPU-s
 * (a whole page's more). A screenshot a test asserts on is taken with `page.screenshot` itself.
 */
export async function screenshotToLookAt(page: Page, name: string, fullPage = true): Promise<void> {
  if (!process.env.PAGE_SCREENSHOTS) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
}

/**
 * Flags that keep every Chromium a test starts on this machine: each request for a host other
 * than loopback goes to a proxy on 127.0.0.1:1, where nothing listens, so it fails there
 * (Chromium never sends loopback through a proxy); a name other than 127.0.0.1 is not even looked
 * up; WebRTC sends no UDP outside the proxy. Chromium does this itself, without Playwright's
 * request interception, which costs a round trip through the test process for every request.
 */
const LOOPBACK_ONLY = [
  "--proxy-server=http://127.0.0.1:1",
  "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
];

/**
 * Headless Chromium with a new, empty profile (Playwright's way of passing --user-data-dir),
 * cut off from every host but loopback (LOOPBACK_ONLY). Playwright adds --headless itself; the
 * other flags keep Chromium from calling home.
 */
export async function launchChromium(
  name: string,
  viewport: { width: number; height: number },
): Promise<{ context: BrowserContext; profileDir: string }> {
  // A temporary directory of the test file's (./temp-dirs.ts): removed when the file ends, if not before.
  const profileDir = tempDir(`${name}-chromium-`);
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...LOOPBACK_ONLY,
    ],
    viewport,
    serviceWorkers: "block",
  });
  for (const page of context.pages()) countRequests(page);
  context.on("page", countRequests);
  return { context, profileDir };
}

/** Each page's requests in flight, and how many it has sent: counted from its first (countRequests). */
const traffic = new WeakMap<Page, { open: Set<Request>; sent: number }>();

function countRequests(page: Page) {
  const counts = { open: new Set<Request>(), sent: 0 };
  traffic.set(page, counts);
  page.on("request", (request) => {
    counts.open.add(request);
    counts.sent++;
  });
  page.on("requestfinished", (request) => counts.open.delete(request));
  page.on("requestfailed", (request) => counts.open.delete(request));
}

/**
 * Resolves once `page` has no request in flight and has sent none for `quietMs`: Playwright's
 * "networkidle" from the same request events, with a tenth of its fixed 500 ms of quiet (a page
 * test waits for its view with a locator first; this covers the requests that view leads to).
 */
export async function networkQuiet(page: Page, quietMs = 50, timeoutMs = 30_000): Promise<void> {
  const counts = traffic.get(page);
  if (!counts) throw new Error("networkQuiet needs a page of a Chromium that launchChromium started");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`requests still in flight: ${[...counts.open].map((r) => r.url())}`);
    if (counts.open.size > 0) {
      await Bun.sleep(5);
      continue;
    }
    const sent = counts.sent;
    await Bun.sleep(quietMs);
    if (counts.open.size === 0 && counts.sent === sent) return;
  }
}

interface OpenChromium {
  context: BrowserContext;
  page: Page;
  /** Quits Chromium and deletes its profile. */
  close(): Promise<void>;
}

/** Chromium as launchChromium starts it (loopback only), with its first page. */
async function openLoopbackChromium(name: string, viewport: { width: number; height: number }): Promise<OpenChromium> {
  const { context, profileDir } = await launchChromium(name, viewport);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close().catch(() => {});
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

export interface PageOnServer extends OpenChromium {
  server: ServerProcess;
  /** The server's origin, `http://127.0.0.1:<port>`. */
  base: string;
}

/**
 * A real server (`bun src/index.ts`, no rate limit unless `env` sets one) on the database at `databasePath`, and
 * loopback-only Chromium (`name`, `viewport`) to open its pages; `close()` quits and stops both.
 */
export async function pageOnServer(
  databasePath: string,
  name: string,
  viewport: { width: number; height: number },
  env: Record<string, string> = {},
): Promise<PageOnServer> {
  const server = await startServer({ DATABASE_PATH: databasePath, RATE_LIMIT_MAX: "0", ...env });
  const browser = await openLoopbackChromium(name, viewport);
  return {
    ...browser,
    server,
    base: new URL(server.baseUrl).origin,
    close: async () => {
      await browser.close();
      await server.stop();
    },
  };
}
