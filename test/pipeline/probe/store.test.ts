import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { DocumentResult, ProbeResult } from "../../../src/model/probe";
import { recordProbe, recordProbes } from "../../../src/pipeline/probe";
import { bareSummary, datasetVersion, documentResult, entry, fixture, insertEntry, probeRow, tempDb } from "./helpers";

const R4 = fixture("r4-capability.json");
const SMART = fixture("smart-patient.json");

const doc = (partial: Partial<DocumentResult>) => documentResult({ durationMs: 3, ...partial });

function success(url: string): ProbeResult {
  return {
    url,
    startedAt: "2026-11-25T00:00:00.000Z",
    tls: null,
    durationMs: 42,
    probeStatus: "success",
    entryStatus: "verified",
    errorKind: null,
    metadata: doc({ ok: true, httpStatus: 200, body: R4, json: JSON.parse(R4) }),
    smart: doc({ ok: true, httpStatus: 200, body: SMART, json: JSON.parse(SMART) }),
    summary: {
      fhirVersion: "R4",
      softwareName: "Test EHR",
      softwareVersion: "4.0.1e2",
      supportedResourceCount: 2,
      supportedResources: ["Observation", "Patient"],
      smartSupported: true,
      smartCapabilities: ["launch-standalone"],
      grantTypes: ["authorization_code"],
    },
    access: ["patient"],
  };
}

function failed(url: string, entryStatus: "unresponsive" | null, httpStatus: number | null): ProbeResult {
  const d = doc({ httpStatus, errorKind: httpStatus === null ? "timeout" : "http_status" });
  return {
    url,
    startedAt: "2026-11-25T00:00:00.000Z",
    tls: null,
    durationMs: 10,
    probeStatus: "failed",
    entryStatus,
    errorKind: d.errorKind,
    metadata: d,
    smart: d,
    summary: bareSummary("UNKNOWN"),
    access: null,
  };
}

const URL_A = "https://fhir.shared.example/r4";
const T1 = "2026-11-25T10:00:00.000Z";
const T2 = "2026-11-25T11:00:00.000Z";

let ctx: ReturnType<typeof tempDb>;
beforeEach(() => {
  ctx = tempDb();
});
afterEach(() => ctx.cleanup());

describe("recordProbe on a real SQLite file", () => {
  test("entries sharing one URL share one probe row", () => {
    const ids = [
      insertEntry(ctx.db, { url: URL_A }),
      insertEntry(ctx.db, { url: URL_A }),
      insertEntry(ctx.db, { url: URL_A, vendorId: "other" }),
    ];
    const other = insertEntry(ctx.db, { url: "https://fhir.other.example/r4" });
    recordProbe(ctx.db, URL_A, success(URL_A), T1);
    expect((ctx.db.sqlite.prepare("SELECT COUNT(*) AS n FROM probes").get() as { n: number }).n).toBe(1);
    for (const id of ids) {
      const e = entry(ctx.db, id);
      expect(e.status).toBe("verified");
      expect(e.fhirVersion).toBe("R4");
      expect(e.access).toBe('["patient"]');
      expect(e.lastUpdated).toBe(T1);
    }
    expect(entry(ctx.db, other).status).toBe("listed");
  });

  test("the row keeps the bodies exactly as received and every derived field", () => {
    insertEntry(ctx.db, { url: URL_A });
    recordProbe(ctx.db, URL_A, success(URL_A), new Date(T1));
    const row = probeRow(ctx.db, URL_A)!;
    expect(row.metadata_body).toBe(R4);
    expect(row.smart_body).toBe(SMART);
    expect(row).toMatchObject({
      url: URL_A,
      probed_at: T1,
      probe_status: "success",
      metadata_http_status: 200,
      smart_http_status: 200,
      error_kind: null,
      duration_ms: 42,
      fhir_version: "R4",
      software_name: "Test EHR",
      software_version: "4.0.1e2",
      supported_resources: '["Observation","Patient"]',
      smart_supported: 1,
      access: '["patient"]',
      smart_capabilities: '["launch-standalone"]',
      grant_types: '["authorization_code"]',
    });
  });

  test("a later probe replaces the row (upsert)", () => {
    insertEntry(ctx.db, { url: URL_A });
    recordProbe(ctx.db, URL_A, success(URL_A), T1);
    recordProbe(ctx.db, URL_A, failed(URL_A, null, 401), T2);
    const row = probeRow(ctx.db, URL_A)!;
    expect(row).toMatchObject({
      probed_at: T2,
      probe_status: "failed",
      metadata_http_status: 401,
      metadata_body: null,
      smart_body: null,
      access: null,
      error_kind: "http_status",
    });
  });

  test("statuses: verified, unresponsive, unchanged on HTTP errors, never touching removed", () => {
    const listed = insertEntry(ctx.db, { url: URL_A });
    const removed = insertEntry(ctx.db, { url: URL_A, status: "removed", lastUpdated: "2026-01-02T00:00:00.000Z" });
    recordProbe(ctx.db, URL_A, success(URL_A), T1);
    expect(entry(ctx.db, listed)).toMatchObject({ status: "verified", lastUpdated: T1 });
    expect(entry(ctx.db, removed).status).toBe("removed");

    // Verified again: nothing changes, lastUpdated stays.
    recordProbe(ctx.db, URL_A, success(URL_A), T2);
    expect(entry(ctx.db, listed)).toMatchObject({ status: "verified", lastUpdated: T1 });

    // An HTTP error leaves the status alone.
    const t3 = "2026-11-25T12:00:00.000Z";
    recordProbe(ctx.db, URL_A, failed(URL_A, null, 401), t3);
    expect(entry(ctx.db, listed).status).toBe("verified");

    // Unreachable → unresponsive, lastUpdated moves; removed still untouched.
    const t4 = "2026-11-25T13:00:00.000Z";
    recordProbe(ctx.db, URL_A, failed(URL_A, "unresponsive", null), t4);
    expect(entry(ctx.db, listed)).toMatchObject({ status: "unresponsive", lastUpdated: t4 });
    expect(entry(ctx.db, removed).status).toBe("removed");

    // Back again → verified.
    recordProbe(ctx.db, URL_A, success(URL_A), "2026-11-25T14:00:00.000Z");
    expect(entry(ctx.db, listed).status).toBe("verified");
  });

  test("an HTTP error on a listed entry changes neither status nor lastUpdated", () => {
    const id = insertEntry(ctx.db, {
      url: URL_A,
      lastUpdated: "2026-01-03T00:00:00.000Z",
      listFhirVersion: "R4",
      listAccess: '["provider"]',
    });
    recordProbe(ctx.db, URL_A, failed(URL_A, null, 403), T1);
    expect(entry(ctx.db, id)).toEqual({
      status: "listed",
      lastUpdated: "2026-01-03T00:00:00.000Z",
      fhirVersion: "R4",
      access: '["provider"]',
    });
  });

  test("every write bumps dataset_version and sets last_refresh_at", () => {
    insertEntry(ctx.db, { url: URL_A });
    const before = datasetVersion(ctx.db);
    recordProbe(ctx.db, URL_A, success(URL_A), T1);
    expect(datasetVersion(ctx.db)).toBe(before + 1);
    recordProbes(
      ctx.db,
      [
        { url: URL_A, result: success(URL_A) },
        { url: "https://b.example", result: failed("https://b.example", "unresponsive", null) },
      ],
      T2,
    );
    expect(datasetVersion(ctx.db)).toBe(before + 2);
    const last = ctx.db.sqlite.prepare("SELECT value FROM dataset_meta WHERE key = 'last_refresh_at'").get() as {
      value: string;
    };
    expect(last.value).toBe(T2);
  });

  test("fast: thousands of results a second in batches", () => {
    const urls = Array.from({ length: 3000 }, (_, i) => `https://fhir${i}.example/r4`);
    for (const url of urls) insertEntry(ctx.db, { url });
    const started = performance.now();
    for (let i = 0; i < urls.length; i += 50)
      recordProbes(
        ctx.db,
        urls.slice(i, i + 50).map((url) => ({ url, result: success(url) })),
        T1,
      );
    const perSecond = urls.length / ((performance.now() - started) / 1000);
    expect(perSecond).toBeGreaterThan(500);
    expect(
      (ctx.db.sqlite.prepare("SELECT COUNT(*) AS n FROM entries WHERE status = 'verified'").get() as { n: number }).n,
    ).toBe(3000);
  });
});
