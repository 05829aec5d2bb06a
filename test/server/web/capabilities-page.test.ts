import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { CHECKS } from "../../../src/model/capability-rules";
import { chromiumRuns, networkQuiet, type PageOnServer, pageOnServer } from "../../support/chromium";
import { ENTRIES, PROBES, R4_METADATA, VENDORS } from "../../support/fixture";
import { seedDatabase } from "../../support/seed";
import { tempDbPath } from "../../support/temp-db";
import { widen } from "./page-fixture";

/**
 * What servers offer, on the search page in headless Chromium against a real server process:
 * the Supports and Ready-for filters, "Ready for" badges in result rows, the verdict and checks
 * on the record page, the per-developer table. Skipped without Chromium, except in CI.
 */
const it = chromiumRuns ? test : test.skip;

/**
 * A server ready for every kind of app: an https base and endpoints, Patient Access for
 * Standalone Apps and Clinician Access for EHR Launch complete, PKCE, backend services.
 */
const READY_URL = "https://fhir.ready.example/r4";
const READY_SMART = JSON.stringify({
  authorization_endpoint: "https://auth.ready.example/authorize",
  token_endpoint: "https://auth.ready.example/token",
  capabilities: [
    "launch-ehr",
    "launch-standalone",
    "client-public",
    "client-confidential-asymmetric",
    "context-standalone-patient",
    "context-ehr-patient",
    "context-ehr-encounter",
    "permission-patient",
    "permission-user",
    "permission-v2",
  ],
  grant_types_supported: ["authorization_code", "client_credentials"],
  token_endpoint_auth_methods_supported: ["private_key_jwt"],
  token_endpoint_auth_signing_alg_values_supported: ["ES384"],
  scopes_supported: ["launch", "patient/*.rs", "user/*.rs", "system/*.rs"],
  code_challenge_methods_supported: ["S256"],
});

/**
 * Ready for patient apps by Patient Access for EHR Launch alone (no context-standalone-patient),
 * and for provider apps; no client_credentials, so not for backend services.
 */
const PORTAL_URL = "https://fhir.portal.example/r4";
const PORTAL_SMART = JSON.stringify({
  ...JSON.parse(READY_SMART),
  capabilities: JSON.parse(READY_SMART).capabilities.filter((c: string) => c !== "context-standalone-patient"),
  grant_types_supported: ["authorization_code"],
});
/** Probed, but /metadata answered 503 and no SMART configuration was read. */
const FAILING_URL = "https://fhir.failing.example/r4";

let live: PageOnServer | undefined;
let page: Page | undefined;
let base = "";
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!chromiumRuns) return;
  const db = seedDatabase(tempDbPath(), {
    vendors: VENDORS,
    entries: [
      ...ENTRIES.filter((entry) => entry.status !== "removed"),
      {
        vendorId: "meditech",
        url: READY_URL,
        organizationName: "Ready Regional Clinic",
        state: "OH",
        fhirVersion: "R4",
        access: ["patient", "provider"],
        status: "verified",
      },
      {
        vendorId: "meditech",
        url: PORTAL_URL,
        organizationName: "Portal Family Practice",
        state: "OH",
        fhirVersion: "R4",
        access: ["patient"],
        status: "verified",
      },
      {
        vendorId: "meditech",
        url: FAILING_URL,
        organizationName: "Failing Valley Hospital",
        state: "OH",
        fhirVersion: "R4",
        access: [],
        status: "unresponsive",
      },
    ],
    probes: [
      ...PROBES,
      {
        url: READY_URL,
        probeStatus: "success",
        fhirVersion: "R4",
        metadataBody: R4_METADATA,
        smartBody: READY_SMART,
        resources: ["Condition", "Observation", "Patient"],
        smartSupported: true,
      },
      {
        url: PORTAL_URL,
        probeStatus: "success",
        fhirVersion: "R4",
        metadataBody: R4_METADATA,
        smartBody: PORTAL_SMART,
        resources: ["Patient"],
        smartSupported: true,
      },
      { url: FAILING_URL, probeStatus: "failed", errorKind: "http_status", metadataHttpStatus: 503 },
    ],
    at: "2026-11-21T09:00:00.000Z",
  });
  db.sqlite.close();
  live = await pageOnServer(db.path, "capabilities-page", { width: 1400, height: 900 });
  page = live.page;
  base = live.base;
  page.on("pageerror", (error) => pageErrors.push(String(error)));
}, 60_000);

afterAll(async () => {
  await live?.close();
});

async function open(path: string) {
  const p = page!;
  await p.goto(`${base}${path}`, { waitUntil: "load" });
  await p.locator("#results:not([aria-busy])").waitFor({ state: "attached" });
  await networkQuiet(p);
  return p;
}

const apiNames = async (params: string) =>
  (
    (await (await fetch(`${base}/api/v1/endpoints?${params}`)).json()) as {
      data: { organizationName: string | null }[];
    }
  ).data.map((e) => e.organizationName);

describe("capabilities on the search page", () => {
  it("rows carry a Ready for badge per app kind whose verdict is ready, and only those rows", async () => {
    const p = await open("/?sort=name");
    const row = p.locator("#list .result", { hasText: "Ready Regional Clinic" });
    await row.locator(".badge-ready").first().waitFor();
    expect(await row.locator(".badge-ready").allTextContents()).toEqual([
      "Patient apps",
      "Provider apps",
      "Backend services",
    ]);
    const portal = p.locator("#list .result", { hasText: "Portal Family Practice" });
    expect(await portal.locator(".badge-ready").allTextContents()).toEqual(["Patient apps", "Provider apps"]);
    // Every other row's verdict is partial, no or unknown: no badge, the field hidden.
    expect(await p.locator("#list .badge-ready").count()).toBe(5);
    expect(await p.locator("#list .ready-for:not([hidden])").count()).toBe(2);
  }, 60_000);

  it("filters by Supports and Ready for, each as the API answers", async () => {
    for (const [selector, value, params] of [
      ["#f-ready", "patient-apps", "ready=patient-apps"],
      ["#f-supports", "launch-standalone", "supports=launch-standalone"],
    ] as const) {
      const p = await open("/");
      // The page's own list request for the new filter, then its rendering: the wait for a quiet
      // network in open() is over, and a wait begun now could end before the request is sent.
      const answered = p.waitForResponse((response) => response.url().includes(`/api/v1/endpoints?${params}`));
      await p.selectOption(selector, value);
      await p.waitForURL((url) => url.search === `?${params}`);
      await answered;
      await p.locator("#results:not([aria-busy])").waitFor({ state: "attached" });
      const expected = await apiNames(params);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(12);
      expect(await p.locator("#list .org").allTextContents()).toEqual(expected as string[]);
    }
    // A shared link with several values keeps them all.
    const p = await open("/?supports=pkce,backend-services");
    expect(await p.locator("#f-supports").inputValue()).toBe("pkce,backend-services");
    expect(await p.locator("#list .org").allTextContents()).toEqual(["Ready Regional Clinic"]);
  }, 60_000);

  it("the record page says whether each kind of app can connect, why not, and every check", async () => {
    const p = await open("/?query=massachusetts");
    await p.locator("#list .org a").first().click();
    await p.locator("#verdict-heading").waitFor();
    const verdict = p.locator(".verdict");
    // Each kind is offered (launch-standalone, launch-ehr, client_credentials) but incomplete.
    expect(await verdict.locator(".badge").allTextContents()).toEqual(["Incomplete", "Incomplete", "Incomplete"]);
    // The fixture's SMART configuration has no token endpoint and no PKCE.
    expect(await verdict.locator(".reasons").first().textContent()).toContain("no token_endpoint");
    expect(await verdict.locator(".reasons").first().textContent()).toContain(
      "code_challenge_methods_supported lacks S256",
    );
    const checks = p.locator(".checks tbody tr");
    expect(await checks.count()).toBe(CHECKS.length);
    const tls = p.locator('.checks tr[data-check="tls-1.2-or-later"] td');
    expect(await tls.allTextContents()).toEqual(["–", "no TLS handshake completed yet"]);
    const smart = p.locator('.checks tr[data-check="smart-configuration"]');
    expect(await smart.getAttribute("class")).toContain("check-ok");
  }, 60_000);

  it("the overview has a per-developer table of what their verified servers offer", async () => {
    const p = await open("/");
    const table = p.locator("#readiness table");
    await table.waitFor();
    const stats = (await (await fetch(`${base}/api/v1/stats/capabilities`)).json()) as {
      data: { vendors: { vendorName: string; verified: number; supports: { pkce: number } }[] };
    };
    const meditech = stats.data.vendors.find((v) => v.vendorName === "MEDITECH")!;
    const row = table.locator("tbody tr", { hasText: "MEDITECH" });
    expect(await row.locator("th .verified").textContent()).toBe(` (${meditech.verified})`);
    const cells = await row.locator("td").allTextContents();
    const pkce = Math.round((meditech.supports.pkce / meditech.verified) * 100);
    expect(cells[0]).toBe(`${pkce} %`);
    // Each share is drawn as a bar of that share of its track.
    const bar = row.locator("td").first().locator("rect.bar");
    const track = row.locator("td").first().locator("rect.share-track");
    expect(Number(await bar.getAttribute("width"))).toBe(
      Math.round((pkce / 100) * Number(await track.getAttribute("width"))),
    );
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it("the per-developer table fits the sidebar at 390, 1280 and 1920 px: every column shown, nothing to scroll", async () => {
    const p = page!;
    const found: Record<number, unknown> = {};
    for (const width of [390, 1280, 1920]) {
      // Loaded at 390 px, then widened (widen: the page widened is the page loaded at the width).
      await widen(p, width);
      if (width === 390) await open("/");
      const table = p.locator("#readiness table");
      await table.waitFor();
      const fit = await table.evaluate((t) => {
        const box = t.parentElement!.getBoundingClientRect();
        const cells = [...t.querySelectorAll("th, td")].map((c) => c.getBoundingClientRect());
        return {
          table: t.scrollWidth,
          room: t.parentElement!.clientWidth,
          outside: cells.filter((c) => c.right > box.right + 0.5 || c.left < box.left - 0.5).length,
        };
      });
      if (fit.table > fit.room || fit.outside > 0) found[width] = fit;
    }
    await p.setViewportSize({ width: 1400, height: 900 });
    expect(found).toEqual({});
  }, 90_000);

  it("an entry's page answers 'Can an app connect?' first, in the first screen at 1280 px", async () => {
    const p = page!;
    await p.setViewportSize({ width: 1280, height: 900 });
    const list = (await (await fetch(`${base}/api/v1/endpoints?query=ready%20regional`)).json()) as {
      data: { id: string }[];
    };
    await open(`/?id=${list.data[0]!.id}`);
    await p.locator("#verdict-heading").waitFor();
    const headings = await p.locator("#detail h3").allTextContents();
    expect(headings[0]).toBe("Can an app connect?");
    expect(headings.indexOf("Record")).toBeGreaterThan(0);
    const box = await p.locator("#detail .verdict").boundingBox();
    expect(box!.y + box!.height).toBeLessThan(900);
    expect(await p.locator("#detail .verdict .badge").allTextContents()).toEqual(["Ready", "Ready", "Ready"]);
    await p.setViewportSize({ width: 1400, height: 900 });
  }, 60_000);

  it("a verdict ready by one set of two names its sets and says, in a note, what the other set's apps lack", async () => {
    const p = page!;
    const list = (await (await fetch(`${base}/api/v1/endpoints?query=portal%20family`)).json()) as {
      data: { id: string }[];
    };
    await open(`/?id=${list.data[0]!.id}`);
    await p.locator("#verdict-heading").waitFor();
    const kinds = p.locator("#detail .verdict dd");
    expect(await p.locator("#detail .verdict .badge").allTextContents()).toEqual(["Ready", "Ready", "Incomplete"]);
    expect(await kinds.nth(0).locator(".sets").textContent()).toBe("SMART set: Patient Access for EHR Launch");
    expect(await kinds.nth(0).locator(".notes li").allTextContents()).toEqual([
      "ready for apps launched from the patient portal (Patient Access for EHR Launch); standalone patient apps: missing context-standalone-patient",
    ]);
    expect(await kinds.nth(1).locator(".sets").textContent()).toBe(
      "SMART sets: Clinician Access for EHR Launch; Clinician Access for Standalone",
    );
    expect(await kinds.nth(1).locator(".notes").count()).toBe(0);
    expect(await kinds.nth(2).locator(".reasons").textContent()).toContain(
      "client_credentials not in grant_types_supported",
    );
  }, 60_000);

  it("a failed probe's page says why it failed, once, instead of counting checks that cannot apply", async () => {
    const p = page!;
    const list = (await (await fetch(`${base}/api/v1/endpoints?query=failing%20valley`)).json()) as {
      data: { id: string }[];
    };
    await open(`/?id=${list.data[0]!.id}`);
    await p.locator("#verdict-heading").waitFor();
    expect(await p.locator("#detail .verdict .badge").allTextContents()).toEqual(["Unknown"]);
    expect(await p.locator("#detail .verdict").textContent()).toContain(
      "the last probe failed: /metadata answered HTTP 503 (http_status)",
    );
    const capabilities = (await p.locator("#capabilities-heading").locator("..").textContent()) ?? "";
    expect(capabilities).toContain("UTC failed: /metadata answered HTTP 503 (http_status)");
    expect(capabilities).not.toContain("cannot apply");
    expect(await p.locator("#detail .checks").count()).toBe(0);
  }, 60_000);

  it("an unprobed entry says once that it is not probed yet, not once per kind of app", async () => {
    const p = page!;
    const list = (await (await fetch(`${base}/api/v1/endpoints?limit=100`)).json()) as { data: { id: string }[] };
    let unprobed: string | null = null;
    for (const { id } of list.data) {
      const c = (await (await fetch(`${base}/api/v1/endpoints/${id}/capabilities`)).json()) as {
        data: { probeStatus: string };
      };
      if (c.data.probeStatus === "unchecked") {
        unprobed = id;
        break;
      }
    }
    await open(`/?id=${unprobed}`);
    await p.locator("#verdict-heading").waitFor();
    const verdict = (await p.locator("#detail .verdict").textContent()) ?? "";
    expect(verdict.match(/not probed/gi)).toHaveLength(1);
    expect(await p.locator("#detail .verdict .badge").allTextContents()).toEqual(["Not probed yet"]);
    // Its capabilities say what the first probe will bring, not "0 pass, 0 fail, 22 cannot apply".
    const capabilities = (await p.locator("#capabilities-heading").locator("..").textContent()) ?? "";
    expect(capabilities).toContain(`Still to come`);
    expect(capabilities).toContain(`${CHECKS.length} conformance checks`);
    expect(capabilities).not.toContain("cannot apply");
    expect(await p.locator("#detail .checks").count()).toBe(0);
  }, 60_000);
});
