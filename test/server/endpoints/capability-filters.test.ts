/**
 * `supports=` and `ready=` on the list and the export, over real HTTP: local FHIR servers (over
 * TLS, and one over plain http) are probed for real, then the directory answers from what their
 * documents declare.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { SUPPORTS } from "../../../src/model/capability-rules";
import { probeDue } from "../../../src/pipeline/probe";
import { insertEntry, json, type Route, serve, serveTls, tempDb } from "../../pipeline/probe/helpers";
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
/**
 * Everything SMART App Launch 2.2 names: Patient Access for Standalone Apps and Clinician Access
 * for EHR Launch complete, refresh tokens, OpenID Connect, dynamic registration, PKCE S256, and
 * Backend Services (client_credentials, client-confidential-asymmetric, scopes_supported,
 * private_key_jwt with RS384).
 */
const FULL = {
  metadata: statement(US_CORE),
  smart: smart({
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
      "permission-offline",
      "permission-v2",
      "sso-openid-connect",
    ],
    issuer: "https://auth.example",
    jwks_uri: "https://auth.example/jwks",
    registration_endpoint: "https://auth.example/register",
    grant_types_supported: ["authorization_code", "client_credentials"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "private_key_jwt"],
    token_endpoint_auth_signing_alg_values_supported: ["RS384"],
    scopes_supported: ["launch", "patient/*.rs", "user/*.rs", "system/*.rs"],
    code_challenge_methods_supported: ["S256"],
  }),
};
const SITES = {
  full: FULL,
  // The same documents from a base URL over plain http: offered, never ready.
  plain: FULL,
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
      capabilities: ["client-confidential-asymmetric"],
      grant_types_supported: ["client_credentials"],
      token_endpoint_auth_methods_supported: ["private_key_jwt"],
      token_endpoint_auth_signing_alg_values_supported: ["ES384"],
      scopes_supported: ["system/Patient.read", "system/Group.read"],
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
  // No authorization declared at all (an open server).
  none: { metadata: statement(US_CORE), smart: undefined },
} satisfies Record<string, { metadata?: string; smart?: string }>;

const route: Route = (request) => {
  const [, site, ...rest] = new URL(request.url).pathname.split("/");
  const documents = SITES[site as keyof typeof SITES];
  const path = rest.join("/");
  if (documents && path === "metadata") return json(documents.metadata);
  if (documents?.smart && path === ".well-known/smart-configuration") return json(documents.smart);
  return new Response("not found", { status: 404 });
};
const fhir = serveTls(route);
const plain = serve({}, route);
const ctx = tempDb();
const urls: Record<string, string> = {};
let app: ReturnType<typeof createTestApp>;
let root: string;

beforeAll(async () => {
  for (const site of Object.keys(SITES)) {
    urls[site] = `${site === "plain" ? plain.url : fhir.url}/${site}`;
    insertEntry(ctx.db, { url: urls[site]! });
  }
  urls.unprobed = "https://unprobed.example/fhir";
  await probeDue(ctx.db, { ...fhir.probeOptions, timeoutMs: 5000 });
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
  plain.stop();
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
    expect(await sites("supports=us-core")).toEqual(["full", "none", "plain"]);
    expect(await sites("supports=bulk-export")).toEqual(["backend"]);
    expect(await sites("supports=smart-v2")).toEqual(["full", "plain"]);
    expect(await sites("supports=pkce")).toEqual(["full", "insecure", "plain"]);
    expect(await sites("supports=backend-services")).toEqual(["backend", "full", "plain"]);
    expect(await sites("supports=launch-ehr")).toEqual(["full", "plain"]);
    expect(await sites("supports=launch-standalone")).toEqual(["full", "insecure", "plain"]);
    for (const value of ["permission-offline", "sso-openid-connect", "dynamic-registration", "client-public"])
      expect([value, await sites(`supports=${value}`)]).toEqual([value, ["full", "plain"]]);
    expect(await sites("supports=client-confidential-asymmetric")).toEqual(["backend", "full", "plain"]);
    expect(await sites("supports=client-confidential-symmetric")).toEqual([]);
  });

  test("a comma list: every value must hold; spaces and repeats ignored", async () => {
    expect(await sites("supports=pkce,%20launch-standalone,pkce")).toEqual(["full", "insecure", "plain"]);
    expect(await sites("supports=pkce,us-core")).toEqual(["full", "plain"]);
    expect(await sites("supports=bulk-export,smart-v2")).toEqual([]);
  });

  test("every documented value at once, spaces around each comma: accepted on the list and the export", async () => {
    const all = SUPPORTS.join(" , ");
    for (const path of [
      `/api/v1/endpoints?supports=${encodeURIComponent(all)}`,
      `/api/v1/export?format=csv&supports=${encodeURIComponent(all)}`,
    ]) {
      const response = await fetch(`${root}${path}`);
      expect([path, response.status]).toEqual([path, 200]);
      await response.arrayBuffer();
    }
    // No server here declares every facet (bulk-export and smart-v2 are never together).
    expect(await sites(`supports=${SUPPORTS.join(",")}`)).toEqual([]);
  });

  test("ready: the app kinds whose verdict is ready; partial (an http base too) and unprobed never match", async () => {
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
      plain: [],
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
      // Declares client-confidential-asymmetric alone: no capability of a launching app.
      backend: ["no", "no", "ready"],
      // A standalone launch with patient context missing; nothing of clinicians or backends.
      insecure: ["partial", "no", "no"],
      none: ["undeclared", "undeclared", "undeclared"],
      plain: ["partial", "partial", "partial"],
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
    expect([data.vendor, data.endpoints, data.verified]).toEqual([null, 6, 5]);
    expect(data.supports).toEqual({
      "us-core": 3,
      "bulk-export": 1,
      "smart-v2": 2,
      pkce: 3,
      "backend-services": 3,
      "launch-ehr": 2,
      "launch-standalone": 3,
      "permission-offline": 2,
      "sso-openid-connect": 2,
      "dynamic-registration": 2,
      "client-public": 2,
      "client-confidential-symmetric": 0,
      "client-confidential-asymmetric": 3,
      // The payer guides: no statement here declares one, nor ExplanationOfBenefit.
      "carin-bb": 0,
      "davinci-pdex": 0,
      "plan-net": 0,
      "explanation-of-benefit": 0,
    });
    expect(data.verdict.patientApps).toEqual({ ready: 1, partial: 2, no: 1, undeclared: 1, unknown: 1 });
    expect(data.verdict.providerApps).toEqual({ ready: 1, partial: 1, no: 2, undeclared: 1, unknown: 1 });
    expect(data.verdict.backendServices).toEqual({ ready: 2, partial: 1, no: 1, undeclared: 1, unknown: 1 });
    expect(data.checks["capability-statement"]).toEqual({ ok: 5, failed: 0, notApplicable: 0 });
    expect(data.checks["smart-token-endpoint"]).toEqual({ ok: 3, failed: 2, notApplicable: 0 });
    expect(data.checks["tls-1.2-or-later"]).toEqual({ ok: 4, failed: 0, notApplicable: 1 });
    // One developer has entries: its row carries the same counts.
    expect(data.vendors.map((v: { vendorId: string }) => v.vendorId)).toEqual(["epic"]);
    const { vendorId: _id, vendorName: _name, ...epic } = data.vendors[0];
    const { vendor: _vendor, kind: _kind, vendors: _vendors, ...overall } = data;
    expect(epic).toEqual(overall);

    const one = await fetchPublished(app, root, "/api/v1/stats/capabilities?vendor=epic");
    expect([one.body.data.vendor, one.body.data.endpoints, one.body.data.vendors.length]).toEqual(["epic", 6, 1]);
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
    expect(await addresses("supports=pkce")).toEqual(["full", "insecure", "plain"]);
    // FHIR: a comma is "any of", a repeated parameter "all of".
    expect(await addresses("supports=smart-v2,bulk-export")).toEqual(["backend", "full", "plain"]);
    expect(await addresses("supports=us-core&supports=pkce")).toEqual(["full", "plain"]);
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
      [`supports=${Array(18).fill("pkce").join(",")}`, "supports: at most 17 values"],
      ["ready=patients", 'ready: "patients" is not one of patient-apps'],
      [`supports=${"x".repeat(SUPPORTS.join(" , ").length + 1)}`, "supports: must be a comma-separated list"],
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
