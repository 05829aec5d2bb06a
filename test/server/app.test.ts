import { describe, expect, test } from "bun:test";
import { fixtureApp, get, R4_METADATA, SMART_CONFIG } from "../support/fixture";

const { app, db } = fixtureApp();
const idOf = async (query: string) =>
  (await get(app, `/api/v1/endpoints?query=${encodeURIComponent(query)}`)).body.data[0].id as string;

describe("GET /api/v1/endpoints/:id", () => {
  test("returns the record without meta", async () => {
    const id = await idOf("ucsf");
    const { status, body } = await get(app, `/api/v1/endpoints/${id}`);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(["success", "data"]);
    expect(body.data).toMatchObject({
      id,
      organizationName: "UCSF Health",
      status: "unresponsive",
      zipCode: "94143-0001",
      fhirVersion: "DSTU2",
    });
  });

  test("an id one hex digit away from a real one, or outside the range of ids, is 404", async () => {
    const id = await idOf("ucsf");
    const flip = (hex: string) => (hex === "0" ? "1" : "0");
    for (const near of [
      id.slice(0, -1) + flip(id.at(-1)!),
      flip(id[0]!) + id.slice(1),
      "0".repeat(64),
      "f".repeat(64),
    ]) {
      const { status, body } = await get(app, `/api/v1/endpoints/${near}`);
      expect(status).toBe(404);
      expect(body.error.code).toBe("ENDPOINT_NOT_FOUND");
    }
    expect((await get(app, `/api/v1/endpoints/${id}`)).status).toBe(200);
  });

  test("a removed entry is in no listing but still answers by id and capabilities", async () => {
    const { id } = db.sqlite.prepare("SELECT id FROM entries WHERE status = 'removed'").get() as { id: string };
    const listed = (await get(app, "/api/v1/endpoints?vendor=epic&limit=100")).body.data as { id: string }[];
    expect(listed.map((e) => e.id)).not.toContain(id);
    expect((await get(app, `/api/v1/endpoints/${id}`)).body.data).toMatchObject({ id, status: "removed" });
    const capabilities = await get(app, `/api/v1/endpoints/${id}/capabilities`);
    expect(capabilities.status).toBe(200);
    expect(capabilities.body.data).toMatchObject({ endpointId: id, probeStatus: "unchecked" });
  });
});

describe("GET /api/v1/endpoints/:id/capabilities", () => {
  test("a probed endpoint: summary plus the raw bodies exactly as the server sent them", async () => {
    const id = await idOf("massachusetts");
    const { status, body, text } = await get(app, `/api/v1/endpoints/${id}/capabilities`);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      endpointId: id,
      url: "https://fhir.mgh.example/api/FHIR/R4",
      vendorName: "Epic Systems",
      lastProbed: "2026-11-21T08:00:00.000Z",
      probeStatus: "success",
      summary: {
        fhirVersion: "R4",
        softwareName: "Epic",
        softwareVersion: "1.10e2",
        supportedResourceCount: 3,
        supportedResources: ["Condition", "Observation", "Patient"],
        smartSupported: true,
        smartCapabilities: ["launch-standalone", "launch-ehr", "context-standalone-patient"],
        grantTypes: ["authorization_code", "client_credentials"],
      },
    });
    expect(body.data.capabilityStatement).toEqual(JSON.parse(R4_METADATA));
    expect(body.data.smartConfiguration).toEqual(JSON.parse(SMART_CONFIG));
    expect(text).toContain(R4_METADATA);
    expect(text).toContain(SMART_CONFIG);
  });

  test("entries sharing a URL share one probe result", async () => {
    const athena = (await get(app, "/api/v1/endpoints?vendor=athenahealth")).body.data;
    const results = await Promise.all(
      athena.map(async (e: { id: string }) => (await get(app, `/api/v1/endpoints/${e.id}/capabilities`)).body.data),
    );
    expect(new Set(results.map((r) => JSON.stringify({ ...r, endpointId: undefined }))).size).toBe(1);
    expect(results[0].probeStatus).toBe("partial");
    expect(results[0].smartConfiguration).toBeNull();
  });

  test("a failed probe: every summary key present with empty values, raw bodies null", async () => {
    const { body } = await get(app, `/api/v1/endpoints/${await idOf("ucsf")}/capabilities`);
    expect(body.data.probeStatus).toBe("failed");
    expect(body.data.capabilityStatement).toBeNull();
    expect(body.data.smartConfiguration).toBeNull();
    expect(body.data.summary).toEqual({
      fhirVersion: null,
      softwareName: null,
      softwareVersion: null,
      supportedResourceCount: 0,
      supportedResources: [],
      smartSupported: false,
      smartCapabilities: [],
      grantTypes: [],
      usCore: { declared: false, versions: [] },
      bulkData: { system: false, group: false, patient: false },
      smart: {
        v1: false,
        v2: false,
        pkceS256: false,
        pkcePlain: false,
        launchEhr: false,
        launchStandalone: false,
        backendServices: false,
        authorizeUrl: null,
        tokenUrl: null,
        scopes: [],
        permissionOffline: false,
        clientTypes: [],
        openIdConnect: false,
        issuer: null,
        jwksUri: null,
        registrationUrl: null,
        signingAlgorithms: [],
      },
      access: { declared: "none", services: [] },
      payer: {
        carinBlueButton: { declared: false, versions: [] },
        pdex: { declared: false, versions: [] },
        planNet: { declared: false, versions: [] },
        explanationOfBenefit: false,
      },
      tls: { protocol: null, certificateExpiresAt: null, issuer: null, verified: null },
    });
    // Probed, answered nothing: what it offers is unknown; the checks on the statement cannot apply.
    expect(Object.values(body.data.verdict).map((v: any) => v.status)).toEqual(["unknown", "unknown", "unknown"]);
    const ok = Object.fromEntries(body.data.checks.map((c: any) => [c.id, c.ok]));
    expect([ok["capability-statement"], ok["kind-instance"], ok["smart-configuration"]]).toEqual([false, null, false]);
  });

  test("an endpoint never probed is unchecked with lastProbed null", async () => {
    const { body } = await get(app, `/api/v1/endpoints/${await idOf("valley")}/capabilities`);
    expect(body.data.probeStatus).toBe("unchecked");
    expect(body.data.lastProbed).toBeNull();
    expect(body.data.summary.supportedResourceCount).toBe(0);
    expect(Object.values(body.data.verdict).map((v: any) => v.status)).toEqual(["unknown", "unknown", "unknown"]);
    expect(new Set(body.data.checks.map((c: any) => c.ok))).toEqual(new Set([null]));
  });
});

describe("GET /api/v1/vendors", () => {
  test("all vendors, alphabetical by name, with counts and no meta", async () => {
    const { body } = await get(app, "/api/v1/vendors");
    expect(Object.keys(body)).toEqual(["success", "data"]);
    expect(body.data.map((v: { name: string }) => v.name)).toEqual([
      "athenahealth",
      "Epic Systems",
      "MEDITECH",
      "Oracle Health",
    ]);
    // Epic has five entries, one of them removed: it is not counted.
    expect(body.data.map((v: { endpointCount: number }) => v.endpointCount)).toEqual([3, 4, 2, 2]);
    expect(body.data[1]).toEqual({
      id: "epic",
      name: "Epic Systems",
      // A certified health IT developer; a health plan would be `payer`.
      kind: "ehr",
      endpointCount: 4,
      endpointListUrl: "https://open.epic.com/MyApps/Endpoints",
      lastScrapedAt: "2026-11-20T10:00:00.000Z",
    });
    expect(body.data[0].lastScrapedAt).toBeNull();
  });

  test("every vendor id is a working vendor filter", async () => {
    for (const vendor of (await get(app, "/api/v1/vendors")).body.data) {
      expect((await get(app, `/api/v1/endpoints?vendor=${vendor.id}`)).body.meta.total).toBe(vendor.endpointCount);
    }
  });
});

describe("GET /api/v1/stats", () => {
  test("totals, vendor count, every FHIR version key, last refresh", async () => {
    const { body } = await get(app, "/api/v1/stats");
    expect(body.data).toEqual({
      // The removed entry (UNKNOWN) is not counted.
      totalEndpoints: 11,
      vendorCount: 4,
      fhirVersionCounts: { DSTU2: 1, STU3: 1, R4: 7, R4B: 1, R5: 1, UNKNOWN: 0 },
      lastUpdated: "2026-11-21T09:00:00.000Z",
    });
  });
});

describe("GET /health", () => {
  test("ok with the server time, even with the database closed", async () => {
    app.directory.close();
    db.sqlite.close();
    const before = Date.now();
    const { status, body } = await get(app, "/health");
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, data: { status: "ok", timestamp: expect.any(String) } });
    expect(Math.abs(Date.parse(body.data.timestamp) - before)).toBeLessThan(5000);
  });
});
