import { existsSync } from "node:fs";

/** Debian's Chromium, which CI installs. */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Page tests run where Chromium is installed, and always in CI (where a missing one must fail).
 * Apart from test/support/chromium.ts so that the checks command reads it without loading Playwright.
 */
export const chromiumRuns = existsSync(CHROMIUM) || Boolean(process.env.CI);
