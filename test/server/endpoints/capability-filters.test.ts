/**
 * `supports=` and `ready=` on the list and the export, over real HTTP: local FHIR servers are
 * probed for real, then the directory answers from what their documents declare.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { probeDue } from "../../../src/pipeline/probe";
import { insertEntry, json, serve, tempDb } from "../../pipeline/probe/helpers";
import { createTestApp } from "../../support/app";
import { fetchPublished } from "../../support/fixture";

const statement = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    resourceType: "CapabilityStatement",
    fhirVersion: "4.0.1",
    kind: "instance",
    format: ["json"],
    rest: [{ mode: "server", resource: [{ type: "Patient" }, { type: "Observation" }] }],
    ...extra,
  });
const US_CORE = { instantiates: ["http://hl7.org/fhir/us/core/CapabilityStatement/us-core-server|7.0.0"] };
const smart = (extra: Record<string, unknown>) =>
  JSON.stringify({
    authorization_endpoint: "https://auth.example/authorize",
    token_endpoint: "https://auth.example/token",
    ...extra,
  });

/** Each site: its two documents (undefined → 404), and what its entry should match. */
const SITES = {
  // Everything: US Core, SMART v2 with both launches, PKCE, backend services.
  full: {
    metadata: statement(US_CORE),
    smart: smart({
      capabilities: ["launch-ehr", "launch-standalone", "permission-v2", "client-confidential-asymmetric"],
      grant_types_supported: ["authorization_code", "client_credentials"],
      code_challenge_methods_supported: ["S256"],
    }),
  },
  // Backend services and bulk export only.
  backend: {
    metadata: statement({
      rest: [
        {
          mode: "server",
          resource: [{ type: "Patient" }, { type: "Group", operation: [{ name: "export" }] }],
        },
      ],
    }),
    smart: smart({
      grant_types_supported: ["client_credentials"],
      token_endpoint_auth_methods_supported: ["private_key_jwt"],
    }),
  },
  // Standalone launch and PKCE, but the token endpoint is plain http: partial.
  insecure: {
    metadata: statement(),
    smart: smart({
      token_endpoint: "http://auth.example/token",
      capabilities: ["launch-standalone"],
      code_challenge_methods_supported: ["S256"],
    }),
  },
  // No SMART at all.
  none: { metadata: statement(US_CORE), smart: undefined },
} satisfies Record<string, { metadata?: string; smart?: string }>;

const fhir = serve({}, (request) => {
  const [, site, ...rest] = new URL(request.url).pathname.split("/");
  const documents = SITES[site as keyof typeof SITES];
  const path = rest.join("/");
  if (documents && path === "metadata") return json(documents.metadata);
  if (documents?.smart && path === ".well-known/smart-configuration") return json(documents.smart);
  return new Response("not found", { status: 404 });
});
const ctx = tempDb();
const urls: Record<string, string> = {};
let app: ReturnType<typeof createTestApp>;
let root: string;

beforeAll(async () => {
  for (const site of Object.keys(SITES)) {
    urls[site] = `${fhir.url}/${site}`;
    insertEntry(ctx.db, { url: urls[site]! });
  }
  urls.unprobed = "https://unprobed.example/fhir";
  await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 5000 });
  insertEntry(ctx.db, { url: urls.unprobed });
  // The list says DSTU2 for the `backend` server, whose statement says 4.0.1.
  ctx.db.sqlite
    .prepare("UPDATE entries SET list_fhir_version = 'DSTU2', version_evidence = 'list' WHERE url = ?")
    .run(urls.backend!);
  app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  root = `http://127.0.0.1:${app.server!.port}`;
});
afterAll(async () => {
  await app?.stop();
  app?.directory.close();
  fhir.stop();
  ctx.cleanup();
});

/** The sites whose entries a list query returns, sorted. */
async function sites(query: string): Promise<string[]> {
  const { status, body } = await fetchPublished(app, root, `/api/v1/endpoints?${query}&limit=100`);
  expect(status).toBe(200);
  const byUrl = new Map(Object.entries(urls).map(([site, url]) => [url, site]));
  return (body.data as { url: string }[]).map((e) => byUrl.get(e.url)!).sort();
}

describe("supports= and ready=", () => {
  test("each supports value: the entries whose documents declare it", async () => {
    expect(await sites("supports=us-core")).toEqual(["full", "none"]);
    expect(await sites("supports=bulk-export")).toEqual(["backend"]);
    expect(await sites("supports=smart-v2")).toEqual(["full"]);
    expect(await sites("supports=pkce")).toEqual(["full", "insecure"]);
    expect(await sites("supports=backend-services")).toEqual(["backend", "full"]);
    expect(await sites("supports=launch-ehr")).toEqual(["full"]);
    expect(await sites("supports=launch-standalone")).toEqual(["full", "insecure"]);
  });

  test("a comma list: every value must hold; spaces and repeats ignored", async () => {
    expect(await sites("supports=pkce,%20launch-standalone,pkce")).toEqual(["full", "insecure"]);
    expect(await sites("supports=pkce,us-core")).toEqual(["full"]);
    expect(await sites("supports=bulk-export,smart-v2")).toEqual([]);
  });

  test("ready: the app kinds whose verdict is ready; partial and unprobed never match", async () => {
    expect(await sites("ready=patient-apps")).toEqual(["full"]);
    expect(await sites("ready=provider-apps")).toEqual(["full"]);
    expect(await sites("ready=backend-services")).toEqual(["backend", "full"]);
    expect(await sites("ready=patient-apps,backend-services&supports=us-core")).toEqual(["full"]);
  });

  test("the list's meta.ready names, per row, the app kinds ready there", async () => {
    const list = await fetchPublished(app, root, "/api/v1/endpoints?limit=100");
    const data = list.body.data as { url: string }[];
    const ready = list.body.meta.ready as string[][];
    expect(ready).toHaveLength(data.length);
    const bySite = Object.fromEntries(
      data.map((entry, i) => [Object.entries(urls).find(([, url]) => url === entry.url)![0], ready[i]]),
    );
    expect(bySite).toEqual({
      full: ["patient-apps", "provider-apps", "backend-services"],
      backend: ["backend-services"],
      insecure: [],
      none: [],
      unprobed: [],
    });
  });

  test("the verdicts the filters rest on, as capabilities says them", async () => {
    const list = await fetchPublished(app, root, "/api/v1/endpoints?limit=100");
    const verdicts: Record<string, string[]> = {};
    for (const entry of list.body.data as { id: string; url: string }[]) {
      const site = Object.entries(urls).find(([, url]) => url === entry.url)![0];
      const { body } = await fetchPublished(app, root, `/api/v1/endpoints/${entry.id}/capabilities`);
      const v = body.data.verdict;
      verdicts[site] = [v.patientApps.status, v.providerApps.status, v.backendServices.status];
    }
    expect(verdicts).toEqual({
      full: ["ready", "ready", "ready"],
      backend: ["partial", "partial", "ready"],
      insecure: ["partial", "partial", "no"],
      none: ["no", "no", "no"],
      unprobed: ["unknown", "unknown", "unknown"],
    });
  });

  test("fhir-version-matches compares the statement with what the list states, else the URL", async () => {
    const list = await fetchPublished(app, root, "/api/v1/endpoints?limit=100");
    const checks: Record<string, unknown> = {};
    for (const entry of list.body.data as { id: string; url: string }[]) {
      const { body } = await fetchPublished(app, root, `/api/v1/endpoints/${entry.id}/capabilities`);
      checks[entry.url] = body.data.checks.find((c: { id: string }) => c.id === "fhir-version-matches");
    }
    expect(checks[urls.backend!]).toEqual({
      id: "fhir-version-matches",
      ok: false,
      detail: "fhirVersion 4.0.1 (R4); the list or URL states DSTU2",
    });
    // Nothing stated: the rule cannot apply.
    expect((checks[urls.full!] as { ok: unknown }).ok).toBeNull();
  });

  test("GET /api/v1/stats/capabilities counts facets and checks of verified entries, verdicts of all", async () => {
    const { status, body } = await fetchPublished(app, root, "/api/v1/stats/capabilities");
    expect(status).toBe(200);
    const data = body.data;
    expect([data.vendor, data.endpoints, data.verified]).toEqual([null, 5, 4]);
    expect(data.supports).toEqual({
      "us-core": 2,
      "bulk-export": 1,
      "smart-v2": 1,
      pkce: 2,
      "backend-services": 2,
      "launch-ehr": 1,
      "launch-standalone": 2,
    });
    expect(data.verdict.patientApps).toEqual({ ready: 1, partial: 2, no: 1, unknown: 1 });
    expect(data.verdict.backendServices).toEqual({ ready: 2, partial: 0, no: 2, unknown: 1 });
    expect(data.checks["capability-statement"]).toEqual({ ok: 4, failed: 0, notApplicable: 0 });
    expect(data.checks["smart-token-endpoint"]).toEqual({ ok: 2, failed: 2, notApplicable: 0 });
    expect(data.checks["tls-1.2-or-later"]).toEqual({ ok: 0, failed: 0, notApplicable: 4 });
    // One developer has entries: its row carries the same counts.
    expect(data.vendors.map((v: { vendorId: string }) => v.vendorId)).toEqual(["epic"]);
    const { vendorId: _id, vendorName: _name, ...epic } = data.vendors[0];
    const { vendor: _vendor, vendors: _vendors, ...overall } = data;
    expect(epic).toEqual(overall);

    const one = await fetchPublished(app, root, "/api/v1/stats/capabilities?vendor=epic");
    expect([one.body.data.vendor, one.body.data.endpoints, one.body.data.vendors.length]).toEqual(["epic", 5, 1]);
    const none = await fetchPublished(app, root, "/api/v1/stats/capabilities?vendor=other");
    expect([none.body.data.endpoints, none.body.data.vendors]).toEqual([0, []]);
    for (const query of ["vendor=nope", "vendors=epic", "vendor=epic&vendor=epic"]) {
      const bad = await fetchPublished(app, root, `/api/v1/stats/capabilities?${query}`);
      expect([query, bad.status, bad.body.error.code]).toEqual([query, 400, "VALIDATION_ERROR"]);
    }
  });

  test("/fhir/Endpoint takes supports and ready, declared in its CapabilityStatement", async () => {
    const addresses = async (query: string) => {
      const response = await fetch(`${root}/fhir/Endpoint?${query}&_count=100`);
      expect([query, response.status]).toEqual([query, 200]);
      const bundle = (await response.json()) as { entry?: { resource: { address: string } }[] };
      const byUrl = new Map(Object.entries(urls).map(([site, url]) => [url, site]));
      return (bundle.entry ?? []).map((e) => byUrl.get(e.resource.address)).sort();
    };
    expect(await addresses("supports=pkce")).toEqual(["full", "insecure"]);
    // FHIR: a comma is "any of", a repeated parameter "all of".
    expect(await addresses("supports=smart-v2,bulk-export")).toEqual(["backend", "full"]);
    expect(await addresses("supports=us-core&supports=pkce")).toEqual(["full"]);
    expect(await addresses("ready=backend-services")).toEqual(["backend", "full"]);
    expect(await addresses("ready=patient-apps&supports=launch-ehr")).toEqual(["full"]);

    const bad = await fetch(`${root}/fhir/Endpoint?supports=fast`);
    expect(bad.status).toBe(400);
    const outcome = (await bad.json()) as { resourceType: string; issue: { diagnostics: string }[] };
    expect(outcome.resourceType).toBe("OperationOutcome");
    expect(outcome.issue[0]!.diagnostics).toContain('supports: "fast" is not one of us-core');

    const statement = (await (await fetch(`${root}/fhir/metadata`)).json()) as {
      rest: { resource: { type: string; searchParam: { name: string; definition: string; type: string }[] }[] }[];
    };
    const params = statement.rest[0]!.resource.find((r) => r.type === "Endpoint")!.searchParam;
    for (const name of ["supports", "ready"]) {
      const declared = params.find((p) => p.name === name)!;
      expect([declared.type, declared.definition]).toEqual(["token", `${root}/fhir/SearchParameter/endpoint-${name}`]);
      const definition = (await (await fetch(declared.definition)).json()) as Record<string, unknown>;
      expect(definition).toMatchObject({
        resourceType: "SearchParameter",
        code: name,
        base: ["Endpoint"],
        type: "token",
      });
    }
  });

  test("the export takes the same filters", async () => {
    const response = await fetch(`${root}/api/v1/export?format=ndjson&ready=backend-services`);
    expect(response.status).toBe(200);
    const lines = (await response.text()).trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).url).sort()).toEqual([urls.backend, urls.full].sort());
  });

  test("bad values: 400 naming the parameter, on the list and the export", async () => {
    const cases: [string, string][] = [
      ["supports=fhir", 'supports: "fhir" is not one of us-core, bulk-export'],
      ["supports=pkce,", "supports: empty value"],
      ["supports=pkce,pkce,pkce,pkce,pkce,pkce,pkce,pkce", "supports: at most 7 values"],
      ["ready=patients", 'ready: "patients" is not one of patient-apps'],
      [`supports=${"x".repeat(201)}`, "supports: must be a comma-separated list"],
      ["ready=patient-apps&ready=provider-apps", "ready"],
    ];
    for (const [query, message] of cases)
      for (const path of [`/api/v1/endpoints?${query}`, `/api/v1/export?format=csv&${query}`]) {
        const response = await fetch(`${root}${path}`);
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect([path, response.status, body.error.code]).toEqual([path, 400, "VALIDATION_ERROR"]);
        expect(body.error.message).toContain(message);
      }
  });
});
