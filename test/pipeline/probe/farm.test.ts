/**
 * The fault farm (tools/farm): one local host per way real servers answer, probed by a real run
 * into a real SQLite file; each is classified as docs/deploy.md ("What the probe makes of a
 * server") says, and the TLS facts come back through the capabilities API.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { probeDue } from "../../../src/pipeline/probe";
import { farmDocuments } from "../../../tools/farm/documents";
import { BEHAVIOURS, type Behaviour, type Farm, type FarmHost, startFarm } from "../../../tools/farm/farm";
import { createTestApp } from "../../support/app";
import { insertEntry, tempDb } from "./helpers";

const documents = farmDocuments();
let farm: Farm;
let ctx: ReturnType<typeof tempDb>;
const ids = new Map<Behaviour, string>();
const realIds: { id: string; text: string }[] = [];

beforeAll(async () => {
  farm = await startFarm([...BEHAVIOURS], { documents, slowMs: [300, 600], firstOctet: 42 });
  ctx = tempDb();
  for (const host of farm.hosts) ids.set(host.behaviour, insertEntry(ctx.db, { url: farm.baseUrl(host) }));
  // Every real document, each on a tenant of the well-behaved host (tenant n serves document
  // (host index + n) mod count; tenants from `count` on are free).
  const ok = host("ok");
  const count = documents.metadata.length;
  documents.metadata.forEach((text, n) => {
    const tenant = count + ((((n - ok.index) % count) + count) % count);
    realIds.push({ id: insertEntry(ctx.db, { url: farm.baseUrl(ok, tenant) }), text });
  });
  await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 1500, ca: farm.certificates!.ca, writeInWorker: false });
}, 30_000);

afterAll(async () => {
  app?.directory.close();
  await farm.stop();
  ctx.cleanup();
});

const host = (behaviour: Behaviour): FarmHost => farm.hosts.find((h) => h.behaviour === behaviour)!;

interface Stored {
  probe_status: string;
  error_kind: string | null;
  metadata_http_status: number | null;
  status: string;
  fhir_version: string;
  final_url: string | null;
  redirect_count: number | null;
  tls_protocol: string | null;
  tls_verified: number | null;
  tls_issuer: string | null;
  tls_certificate_expires_at: string | null;
}

function stored(behaviour: Behaviour): Stored {
  return ctx.db.sqlite
    .prepare(
      `SELECT p.probe_status, p.error_kind, p.metadata_http_status, e.status, p.fhir_version, p.final_url,
              p.redirect_count, p.tls_protocol, p.tls_verified, p.tls_issuer, p.tls_certificate_expires_at
       FROM entries e JOIN probes p ON p.url = e.url WHERE e.id = ?`,
    )
    .get(ids.get(behaviour)!) as Stored;
}

let app: ReturnType<typeof createTestApp> | undefined;
async function api(id: string, what = "capabilities") {
  app ??= createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "warn" }) });
  const response = await app.handle(new Request(`http://localhost/api/v1/endpoints/${id}/${what}`));
  expect(response.status).toBe(200);
  const data = ((await response.json()) as { data: any }).data;
  // The TLS checks, which close the list of checks: the ones this file is about.
  return data.checks === undefined ? data : { ...data, checks: data.checks.slice(-3) };
}

/** What each behaviour must leave: probeStatus, entry status, error kind, /metadata's HTTP status. */
const EXPECTED: Record<(typeof BEHAVIOURS)[number], [string, string, string | null, number | null]> = {
  ok: ["success", "verified", null, 200],
  slow: ["success", "verified", null, 200],
  silent: ["failed", "unresponsive", "timeout", null],
  closed: ["failed", "unresponsive", "refused", null],
  reset: ["failed", "unresponsive", "network", null],
  "status-401": ["failed", "listed", "http_status", 401],
  "status-403": ["failed", "listed", "http_status", 403],
  "status-500": ["failed", "listed", "http_status", 500],
  "html-login": ["failed", "listed", "invalid_json", 200],
  "xml-only": ["failed", "listed", "invalid_json", 200],
  "too-large": ["failed", "listed", "body_too_large", 200],
  endless: ["failed", "listed", "body_too_large", 200],
  drip: ["failed", "listed", "body_timeout", 200],
  "redirect-chain": ["success", "verified", null, 200],
  "redirect-loop": ["failed", "listed", "too_many_redirects", 302],
  "cross-host": ["success", "verified", null, 200],
  "gzip-bomb": ["failed", "listed", "body_too_large", 200],
  "tls-ok": ["success", "verified", null, 200],
  "expired-cert": ["failed", "unresponsive", "certificate_expired", null],
  "self-signed": ["failed", "unresponsive", "certificate_self_signed", null],
  dstu2: ["partial", "verified", "http_status", 200],
  bom: ["success", "verified", null, 200],
  "wrong-content-type": ["success", "verified", null, 200],
};

describe("every farm behaviour is classified as documented", () => {
  for (const behaviour of BEHAVIOURS) {
    test(behaviour, () => {
      const [probeStatus, status, errorKind, httpStatus] = EXPECTED[behaviour];
      expect(stored(behaviour)).toMatchObject({
        probe_status: probeStatus,
        status,
        error_kind: errorKind,
        metadata_http_status: httpStatus,
      });
    });
  }

  test("the politeness limit held: at most 2 requests in flight at any host", () => {
    for (const h of farm.hosts) expect(h.maxInFlight).toBeLessThanOrEqual(2);
    expect(Math.max(...farm.hosts.map((h) => h.maxInFlight))).toBe(2);
  });

  test("a DSTU2 Conformance counts as a CapabilityStatement: verified, FHIR version DSTU2", () => {
    expect(stored("dstu2").fhir_version).toBe("DSTU2");
  });

  test("a failed probe is in the availability history with its error kind", async () => {
    for (const behaviour of ["expired-cert", "self-signed", "gzip-bomb", "silent"] as const) {
      const availability = await api(ids.get(behaviour)!, "availability");
      expect(availability.recent[0]).toMatchObject({ outcome: "failed", error: EXPECTED[behaviour][2] });
    }
  });
});

describe("where the server really is", () => {
  test("redirects: the final URL and the count are stored; a chain on the host passes metadata-on-same-host", async () => {
    const chain = stored("redirect-chain");
    expect(chain.redirect_count).toBe(3);
    expect(chain.final_url).toBe(`${host("redirect-chain").origin}/done/t/0/metadata`);
    const checks = (await api(ids.get("redirect-chain")!)).checks;
    expect(checks[2]).toMatchObject({ id: "metadata-on-same-host", ok: true });
  });

  test("a redirect to another host fails metadata-on-same-host and names it", async () => {
    const cross = stored("cross-host");
    expect(cross.redirect_count).toBe(1);
    expect(new URL(cross.final_url!).host).not.toBe(new URL(host("cross-host").origin).host);
    const check = (await api(ids.get("cross-host")!)).checks[2];
    expect(check.ok).toBe(false);
    expect(check.detail).toContain(new URL(cross.final_url!).host);
  });

  test("a host that never answered has no final URL: the check cannot apply", async () => {
    expect(stored("silent").final_url).toBeNull();
    expect((await api(ids.get("silent")!)).checks[2].ok).toBeNull();
  });
});

describe("TLS facts (a CA made for the test)", () => {
  test("a valid certificate: protocol, expiry, issuer, verified; all three checks pass", async () => {
    const data = await api(ids.get("tls-ok")!);
    expect(data.summary.tls).toEqual({
      protocol: "TLSv1.3",
      certificateExpiresAt: farm.certificates!.validUntil.toISOString(),
      issuer: "Farm Test CA",
      verified: true,
    });
    expect(data.checks).toEqual([
      { id: "tls-1.2-or-later", ok: true, detail: "negotiated TLSv1.3" },
      { id: "certificate-valid-30-days", ok: true, detail: expect.stringMatching(/^verified; expires \d{4}-/) },
      { id: "metadata-on-same-host", ok: true, detail: expect.stringContaining("without a redirect") },
    ]);
  });

  test("an expired certificate: reported as expired, not verified, the certificate check fails", async () => {
    const data = await api(ids.get("expired-cert")!);
    expect(data.summary.tls.verified).toBe(false);
    expect(Date.parse(data.summary.tls.certificateExpiresAt)).toBeLessThan(Date.now());
    expect(data.checks[1]).toMatchObject({ id: "certificate-valid-30-days", ok: false });
  });

  test("a self-signed certificate: its own issuer, not verified", async () => {
    const data = await api(ids.get("self-signed")!);
    expect(data.summary.tls).toMatchObject({ issuer: "self-signed farm host", verified: false, protocol: "TLSv1.3" });
    expect(data.checks[1].ok).toBe(false);
  });

  test("http: every TLS member null, the TLS checks cannot apply", async () => {
    const data = await api(ids.get("ok")!);
    expect(data.summary.tls).toEqual({ protocol: null, certificateExpiresAt: null, issuer: null, verified: null });
    expect(data.checks.map((c: { ok: boolean | null }) => c.ok)).toEqual([null, null, true]);
  });
});

test("the capability statistics count each verified entry's TLS checks as its answer gives them", async () => {
  app ??= createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "warn" }) });
  const counted = ((await (await app.handle(new Request("http://localhost/api/v1/stats/capabilities"))).json()) as any)
    .data;
  const expected: Record<string, { ok: number; failed: number; notApplicable: number }> = {};
  for (const id of ["tls-1.2-or-later", "certificate-valid-30-days", "metadata-on-same-host"])
    expected[id] = { ok: 0, failed: 0, notApplicable: 0 };
  for (const id of [...ids.values(), ...realIds.map((real) => real.id)]) {
    const response = await app.handle(new Request(`http://localhost/api/v1/endpoints/${id}`));
    if (((await response.json()) as any).data.status !== "verified") continue;
    for (const check of (await api(id)).checks as { id: string; ok: boolean | null }[]) {
      const c = expected[check.id]!;
      if (check.ok === null) c.notApplicable++;
      else if (check.ok) c.ok++;
      else c.failed++;
    }
  }
  expect(expected["tls-1.2-or-later"]!.ok).toBeGreaterThan(0);
  for (const id of Object.keys(expected)) expect([id, counted.checks[id]]).toEqual([id, expected[id]]);
});

test("every real CapabilityStatement served by the farm is verified, raw", async () => {
  expect(realIds.length).toBeGreaterThan(5);
  const db = new Database(ctx.path, { readonly: true });
  try {
    for (const { id, text } of realIds) {
      const row = db.prepare("SELECT status FROM entries WHERE id = ?").get(id) as { status: string };
      expect(row.status).toBe("verified");
      const data = await api(id);
      expect(data.capabilityStatement).toEqual(JSON.parse(text));
    }
  } finally {
    db.close();
  }
});

describe("a silent host costs one time-out per run, not one per URL", () => {
  test("five URLs on a host that never answers: one wait, all unresponsive; its neighbours unaffected", async () => {
    const small = await startFarm(["silent", "slow"], { documents, slowMs: [100, 200], firstOctet: 43 });
    const own = tempDb();
    try {
      const [silent, slow] = small.hosts as [FarmHost, FarmHost];
      const urls = [0, 1, 2, 3, 4].map((n) => small.baseUrl(silent, n));
      for (const url of urls) insertEntry(own.db, { url });
      insertEntry(own.db, { url: small.baseUrl(slow) });
      const started = performance.now();
      const summary = await probeDue(own.db, { allowPrivate: true, timeoutMs: 600, writeInWorker: false });
      const elapsed = performance.now() - started;
      expect(summary).toMatchObject({ probed: 6, unresponsive: 5, success: 1, failed: 5 });
      // One connection (the first request; the others waited for it), one time-out for the host.
      expect(silent.requests).toBe(1);
      // Less than a time-out per URL, however busy the machine (one each would be 3 s).
      expect(elapsed).toBeLessThan(urls.length * 600);
      const kinds = own.db.sqlite.prepare("SELECT url, error_kind AS k FROM probes").all() as {
        url: string;
        k: string;
      }[];
      for (const url of urls) expect(kinds.find((r) => r.url === url)?.k).toBe("timeout");
    } finally {
      await small.stop();
      own.cleanup();
    }
  });
});
