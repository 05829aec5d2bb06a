import type { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { markDatasetChanged } from "../../../src/db/dataset-meta";
import { writeReportPoints } from "../../../src/db/report-history";
import { canonicalUrl } from "../../../src/model/identity";
import { generateDemoHistory } from "../../../tools/sample/history";
import { createTestApp } from "../../support/app";
import { get, R4_METADATA, SMART_CONFIG } from "../../support/fixture";
import { seedDatabase } from "../../support/seed";
import { futureWriteClaims, stderrLines } from "../../support/stderr";
import { removeTempDirs, tempDbPath } from "../../support/temp-db";

afterAll(removeTempDirs);

const AT = "2026-11-20T09:00:00.000Z";
const DAY_MS = 86_400_000;

/**
 * Two developers, hand-made. alpha: five entries not removed, one of them unusable, on three
 * usable URLs (a1 shared by two entries, verified with SMART; a2 http and unresponsive; a3 never
 * probed); one removed entry; two certified products, one active with (g)(10), one withdrawn;
 * a1's certificate expires 10 days after the last write. beta: one verified entry without SMART,
 * whose certificate expired a day before.
 */
function seed(path: string) {
  const db = seedDatabase(path, {
    at: AT,
    vendors: [
      { id: "alpha", name: "Alpha Health" },
      { id: "beta", name: "Beta EHR" },
    ],
    entries: [
      {
        vendorId: "alpha",
        url: "https://a1.example/fhir",
        organizationName: "A One",
        npi: "1234567893",
        zipCode: "10001",
        state: "NY",
        status: "verified",
      },
      {
        vendorId: "alpha",
        url: "https://a1.example/fhir",
        organizationName: "A Two",
        zipCode: "10002",
        status: "verified",
      },
      { vendorId: "alpha", url: "http://a2.example/fhir", organizationName: null, status: "unresponsive" },
      { vendorId: "alpha", url: "https://a3.example/fhir", organizationName: "A Four", npi: "1234567894", state: "CA" },
      { vendorId: "alpha", url: "https://10.0.0.1/fhir", organizationName: "A Private" },
      { vendorId: "alpha", url: "https://a9.example/fhir", organizationName: "A Gone", status: "removed" },
      {
        vendorId: "beta",
        url: "https://b1.example/r4",
        organizationName: "B One",
        zipCode: "60601",
        state: "IL",
        status: "verified",
      },
    ],
    probes: [
      {
        url: "https://a1.example/fhir",
        probeStatus: "success",
        fhirVersion: "R4",
        metadataBody: R4_METADATA,
        smartBody: SMART_CONFIG,
        smartSupported: true,
      },
      { url: "http://a2.example/fhir", probeStatus: "failed" },
      { url: "https://b1.example/r4", probeStatus: "success", fhirVersion: "R4", metadataBody: R4_METADATA },
    ],
  });
  const run = (sql: string, ...args: (string | null)[]) => db.sqlite.prepare(sql).run(...args);
  const evidence = (url: string, org: string | null, value: string) =>
    run(
      "UPDATE entries SET version_evidence = ? WHERE url = ? AND organization_name IS ?",
      value,
      canonicalUrl(url),
      org,
    );
  evidence("https://a1.example/fhir", "A One", "list");
  evidence("https://a1.example/fhir", "A Two", "url");
  evidence("http://a2.example/fhir", null, "developer");
  evidence("https://a3.example/fhir", "A Four", "list");
  evidence("https://b1.example/r4", "B One", "list");
  run("UPDATE entries SET unusable = 'non-public-address' WHERE organization_name = 'A Private'");
  const products = [
    {
      chplProductNumber: "15.04.04.1111.Alph.01.00.1.220101",
      product: "Alpha EHR",
      version: "1",
      certificationDate: "2022-01-01",
      status: "Active",
      standardizedApi: true,
    },
    {
      chplProductNumber: "15.04.04.1111.Alph.02.00.1.200101",
      product: "Alpha Old",
      version: "0.9",
      certificationDate: "2020-01-01",
      status: "Withdrawn by Developer",
      standardizedApi: true,
    },
  ];
  run("UPDATE vendors SET certifications = ? WHERE id = 'alpha'", JSON.stringify(products));
  run(
    `INSERT INTO vendor_lists (id, vendor_id, url, format, published_url, last_scraped_at, last_entry_count)
     VALUES ('alpha-r4', 'alpha', 'https://lists.example/alpha.json', 'lantern-json', 'https://alpha.example/endpoints', ?, 6)`,
    AT,
  );
  const expires = (url: string, ms: number) =>
    run(
      "UPDATE probes SET tls_certificate_expires_at = ? WHERE url = ?",
      new Date(ms).toISOString(),
      canonicalUrl(url),
    );
  expires("https://a1.example/fhir", Date.parse(AT) + 10 * DAY_MS);
  expires("https://b1.example/r4", Date.parse(AT) - DAY_MS);
  return db;
}

function appOn(path: string) {
  return createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
}

/** Writes a dataset change at `at` (nothing else), as every ingest or probe run does. */
function writeAt(sqlite: Database, at: string) {
  sqlite.transaction(() => markDatasetChanged(sqlite, at))();
}

describe("a developer's report card", () => {
  const path = tempDbPath();
  seed(path).sqlite.close();
  const app = appOn(path);

  test("alpha's list figures, counted by hand: removed entries left out, the unusable one by its reason", async () => {
    const { status, body } = await get(app, "/api/v1/vendors/alpha/report");
    expect(status).toBe(200);
    expect(body.meta.asOf).toBe(AT);
    const { list, lists } = body.data;
    expect(list.listed).toBe(4);
    expect(list.unusable).toBe(1);
    expect(list.unusableByReason["non-public-address"]).toBe(1);
    expect(Object.values(list.unusableByReason).reduce((a: number, b) => a + (b as number), 0)).toBe(1);
    // Of the 4 listed: names 3, NPIs 2, ZIPs 2, states 2, https 3, a version the list or URL states 3.
    expect(list.shares).toEqual({
      organizationName: 0.75,
      npi: 0.5,
      zipCode: 0.5,
      state: 0.5,
      https: 0.75,
      statedFhirVersion: 0.75,
    });
    expect(lists).toEqual([
      {
        id: "alpha-r4",
        publishedUrl: "https://alpha.example/endpoints",
        readFrom: "https://lists.example/alpha.json",
        asOf: AT,
        entries: 6,
      },
    ]);
  });

  test("alpha's certification: one active (g)(10) product, one withdrawn; beta knows none", async () => {
    const alpha = (await get(app, "/api/v1/vendors/alpha/report")).body.data.certification;
    expect(alpha.products.map((p: { product: string }) => p.product)).toEqual(["Alpha EHR", "Alpha Old"]);
    expect([alpha.active, alpha.withdrawn, alpha.standardizedApi]).toEqual([1, 1, true]);
    const beta = (await get(app, "/api/v1/vendors/beta/report")).body.data.certification;
    expect(beta).toEqual({ products: [], active: 0, withdrawn: 0, standardizedApi: false });
  });

  test("alpha's servers: 3 URLs, 2 probed, 1 verified, 1 unresponsive; shares of the 1 verified URL", async () => {
    const { servers } = (await get(app, "/api/v1/vendors/alpha/report")).body.data;
    expect([servers.urls, servers.probed, servers.verified, servers.unresponsive]).toEqual([3, 2, 1, 1]);
    // No availability history was kept: no uptime to summarise.
    expect(servers.uptime30d).toEqual({ median: null, worstDecile: null });
    // a1's SMART configuration lists launch-ehr and launch-standalone and no PKCE method.
    expect(servers.supports["launch-ehr"]).toBe(1);
    expect(servers.supports["launch-standalone"]).toBe(1);
    expect(servers.supports.pkce).toBe(0);
    expect(servers.supports["bulk-export"]).toBe(0);
    expect(servers.certificates).toEqual({ expiringWithin30Days: 1, expired: 0 });
  });

  test("verdicts count URLs by the status each URL's own capabilities answer gives", async () => {
    const { servers } = (await get(app, "/api/v1/vendors/alpha/report")).body.data;
    const list = (await get(app, "/api/v1/endpoints?vendor=alpha&limit=100")).body.data as {
      id: string;
      url: string;
    }[];
    const byUrl = new Map(list.map((e) => [e.url, e.id]));
    expect(byUrl.size).toBe(3);
    const expected: Record<string, Record<string, number>> = {};
    const failedChecks = new Map<string, number>();
    for (const id of byUrl.values()) {
      const capabilities = (await get(app, `/api/v1/endpoints/${id}/capabilities`)).body.data;
      for (const [kind, verdict] of Object.entries(capabilities.verdict as Record<string, { status: string }>)) {
        expected[kind] ??= {};
        expected[kind][verdict.status] = (expected[kind][verdict.status] ?? 0) + 1;
      }
      if (capabilities.probeStatus === "success")
        for (const check of capabilities.checks as { id: string; ok: boolean | null }[])
          if (check.ok === false) failedChecks.set(check.id, (failedChecks.get(check.id) ?? 0) + 1);
    }
    for (const [kind, counts] of Object.entries(expected))
      for (const [status, n] of Object.entries(counts)) expect(servers.verdicts[kind][status]).toBe(n);
    for (const kind of Object.keys(servers.verdicts))
      expect(Object.values(servers.verdicts[kind] as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(3);
    expect(servers.mostFailedChecks.length).toBe(Math.min(5, failedChecks.size));
    for (const { id, failed } of servers.mostFailedChecks) expect(failedChecks.get(id)).toBe(failed);
  });

  test("beta: one URL, verified, its certificate already expired", async () => {
    const { list, servers } = (await get(app, "/api/v1/vendors/beta/report")).body.data;
    expect(list.listed).toBe(1);
    expect(list.shares).toEqual({ organizationName: 1, npi: 0, zipCode: 1, state: 1, https: 1, statedFhirVersion: 1 });
    expect([servers.urls, servers.probed, servers.verified, servers.unresponsive]).toEqual([1, 1, 1, 0]);
    expect(servers.certificates).toEqual({ expiringWithin30Days: 0, expired: 1 });
  });

  test("every developer at once, and the directory's totals: the sums of the two cards", async () => {
    const { body } = await get(app, "/api/v1/vendors/report");
    expect(body.data.vendors.map((v: { vendorId: string }) => v.vendorId)).toEqual(["alpha", "beta"]);
    const { national } = body.data;
    expect([national.developers, national.standardizedApi]).toEqual([2, 1]);
    expect([national.list.listed, national.list.unusable]).toEqual([5, 1]);
    expect([national.servers.urls, national.servers.verified]).toEqual([4, 2]);
    expect(national.list.shares.npi).toBe(0.4);
  });

  test("CSV: a header then one spreadsheet row per developer, the same figures as the JSON", async () => {
    const response = await app.handle(new Request("http://localhost/api/v1/vendors/report?format=csv"));
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const rows = (await response.text()).split("\r\n").filter((line) => line !== "");
    expect(rows).toHaveLength(3);
    const header = rows[0]!.split(",");
    const alpha = rows[1]!.split(",");
    const cell = (name: string) => alpha[header.indexOf(name)];
    expect(cell("vendorId")).toBe("alpha");
    expect(cell("list.listed")).toBe("4");
    expect(cell("list.shares.npi")).toBe("0.5");
    expect(cell("servers.unresponsive")).toBe("1");
    expect(cell("servers.uptime30d.median")).toBe("");
    expect(cell("standardizedApi")).toBe("true");
  });

  test("an unknown developer is a 404, a bad parameter a 400", async () => {
    expect((await get(app, "/api/v1/vendors/nobody/report")).status).toBe(404);
    expect((await get(app, "/api/v1/vendors/alpha/report?x=1")).status).toBe(400);
    expect((await get(app, "/api/v1/vendors/report?format=xml")).body.error.message).toBe(
      "format: must be json or csv",
    );
    for (const query of ["from=2026-02-30", "to=yesterday", "from=2026-11-21&to=2026-11-20"])
      expect((await get(app, `/api/v1/stats/history?${query}`)).status).toBe(400);
  });
});

describe("report history", () => {
  test("one point a day: the day's last write wins; later days add points; restarts keep them", async () => {
    const path = tempDbPath();
    const db = seed(path);
    const first = appOn(path);
    const points = async (app: ReturnType<typeof appOn>, query = "") =>
      (await get(app, `/api/v1/stats/history${query}`)).body.data.points as {
        day: string;
        figures: Record<string, number>;
      }[];
    expect((await points(first)).map((p) => p.day)).toEqual(["2026-11-20"]);
    first.directory.close();

    // A second write the same day (a probe run after the ingest): still one point, its figures now.
    db.sqlite
      .prepare("UPDATE entries SET status = 'verified' WHERE url = ?")
      .run(canonicalUrl("http://a2.example/fhir"));
    writeAt(db.sqlite, "2026-11-20T18:00:00.000Z");
    const second = appOn(path);
    const sameDay = await points(second);
    expect(sameDay.map((p) => p.day)).toEqual(["2026-11-20"]);
    expect(sameDay[0]!.figures["servers.unresponsive"]).toBe(0);
    second.directory.close();

    // Writes on two later days: a point each; the first day's point kept as it stood.
    db.sqlite.prepare("UPDATE entries SET status = 'removed' WHERE organization_name = 'B One'").run();
    writeAt(db.sqlite, "2026-11-22T03:00:00.000Z");
    appOn(path).directory.close();
    writeAt(db.sqlite, "2026-11-23T03:00:00.000Z");
    const restarted = appOn(path);
    const all = await points(restarted);
    expect(all.map((p) => p.day)).toEqual(["2026-11-20", "2026-11-22", "2026-11-23"]);
    expect(all.map((p) => p.figures["list.listed"])).toEqual([5, 4, 4]);
    expect((await points(restarted, "?from=2026-11-21&to=2026-11-22")).map((p) => p.day)).toEqual(["2026-11-22"]);
    const beta = (await get(restarted, "/api/v1/vendors/beta/report/history")).body.data;
    expect(beta.vendorId).toBe("beta");
    expect(beta.points.map((p: { figures: Record<string, number> }) => p.figures["list.listed"])).toEqual([1, 0, 0]);
    const stored = db.sqlite.prepare("SELECT COUNT(*) AS n FROM report_history WHERE vendor_id = ''").get() as {
      n: number;
    };
    expect(stored.n).toBe(3);
    restarted.directory.close();
  });

  test("points older than the change feed's 400 days are dropped", async () => {
    const path = tempDbPath();
    const db = seed(path);
    const today = Math.floor(Date.parse(AT) / DAY_MS);
    for (const back of [401, 399]) writeReportPoints(db.sqlite, today - back, new Map([["", { "list.listed": back }]]));
    appOn(path).directory.close();
    const days = db.sqlite.prepare("SELECT day FROM report_history WHERE vendor_id = '' ORDER BY day").values();
    expect(days.map(([day]) => Math.floor(Date.parse(AT) / DAY_MS) - (day as number))).toEqual([399, 0]);
  });
  test("a write dated in the future is dated today: later correct writes keep the history", async () => {
    const path = tempDbPath();
    const db = seed(path);
    const today = Math.floor(Date.now() / DAY_MS);
    const dayText = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
    const earlier = [300, 200, 100, 1].map((back) => today - back);
    for (const day of earlier) writeReportPoints(db.sqlite, day, new Map([["", { "list.listed": today - day }]]));
    const warned = await stderrLines(() => writeAt(db.sqlite, "2099-06-01T00:00:00.000Z"));
    expect(futureWriteClaims(warned)).toEqual(["2099-06-01T00:00:00.000Z"]);
    appOn(path).directory.close();
    for (const at of [new Date().toISOString(), new Date(Date.now() + 60_000).toISOString()]) {
      writeAt(db.sqlite, at);
      appOn(path).directory.close();
    }
    const app = appOn(path);
    const query = `?from=${dayText(today - 365)}&to=2099-12-31`;
    const days = ((await get(app, `/api/v1/stats/history${query}`)).body.data.points as { day: string }[]).map(
      (p) => p.day,
    );
    expect(days).toEqual(expect.arrayContaining([...earlier, today].map(dayText)));
    expect(days.filter((day) => day > dayText(today))).toEqual([]);
    expect((await get(app, "/api/v1/stats")).body.data.lastUpdated < "2099").toBe(true);
    app.directory.close();
  });
});

describe("the demo's generated year", () => {
  test("a point a day for a year before the last write, each marked generated; today's is the index's own", async () => {
    const path = tempDbPath();
    const db = seed(path);
    db.sqlite.close();
    expect(generateDemoHistory(path)).toBe(3 * 365);
    const app = appOn(path);
    const { body } = await get(app, "/api/v1/vendors/alpha/report/history?from=2025-01-01");
    const points = body.data.points as { day: string; generated?: boolean; figures: Record<string, number> }[];
    expect(points).toHaveLength(366);
    expect(points[0]!.day).toBe("2025-11-20");
    expect(points.slice(0, 365).every((p) => p.generated === true)).toBe(true);
    expect(points[365]).toEqual({ day: "2026-11-20", figures: expect.any(Object) });
    expect(points[365]!.figures["list.listed"]).toBe(4);
    // Counts grow towards now; the generated year starts lower than it ends.
    expect(points[0]!.figures["list.listed"]!).toBeLessThan(points[364]!.figures["list.listed"]!);
    app.directory.close();
  });
});
