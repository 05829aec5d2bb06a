import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** Debian's Chromium, which CI installs. */
const CHROMIUM = "/usr/bin/chromium";

/** Page tests run where Chromium is installed, and always in CI (where a missing one must fail). */
export const chromiumRuns = existsSync(CHROMIUM) || Boolean(process.env.CI);

/** Where page tests leave their screenshots (ignored by git). */
export const ARTIFACTS = join(import.meta.dir, "..", "..", "test-artifacts");

/**
 * Headless Chromium with a new, empty profile (Playwright's way of passing --user-data-dir).
 * Playwright adds --headless itself; the other flags keep Chromium from calling home.
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
    ],
    viewport,
    serviceWorkers: "block",
  });
  return { context, profileDir };
}
