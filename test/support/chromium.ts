import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { type ServerProcess, startServer } from "./server-process";

/** Debian's Chromium, which CI installs. */
const CHROMIUM = "/usr/bin/chromium";

/** Page tests run where Chromium is installed, and always in CI (where a missing one must fail). */
export const chromiumRuns = existsSync(CHROMIUM) || Boolean(process.env.CI);

/** Where page tests leave their screenshots (ignored by git). */
export const ARTIFACTS = join(import.meta.dir, "..", "..", "test-artifacts");

/**
 * Flags that keep every Chromium a test starts on this machine: each request for a host other
 * than loopback goes to a proxy on 127.0.0.1:1, where nothing listens, so it fails there
 * (Chromium never sends loopback through a proxy); a name other than 127.0.0.1 is not even looked
 * up; WebRTC sends no UDP outside the proxy. Chromium does this itself, without Playwright's
 * request interception, which costs a round trip through the test process for every request.
 */
export const LOOPBACK_ONLY = [
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
  const profileDir = mkdtempSync(join(tmpdir(), `${name}-chromium-`));
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
  return { context, profileDir };
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
