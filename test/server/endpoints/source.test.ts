/**
 * GET /api/v1/endpoints/:id/source, and unusable entries kept out of listings, counts and exports,
 * over a real HTTP server on 127.0.0.1 and a real SQLite file filled through the ingest code.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { entryId } from "../../../src/model/identity";
import { ingestContent, syncVendorRegistry } from "../../../src/pipeline/ingest";
import { acmeRegistry } from "../../support/acme";
import { createTestApp } from "../../support/app";
import { tempDbPath } from "../../support/temp-db";

const LANTERN = {
  repository: "onc-healthit/lantern-back-end",
  path: "resources/prod_resources/Acme_EndpointSources.json",
  commit: "8a6f77361f3a03857f9520164be76aa6f9aa678c",
};
const REGISTRY = acmeRegistry(
  [
    {
      id: "acme-lantern",
      url: "https://raw.githubusercontent.com/onc-healthit/lantern-back-end/HEAD/resources/prod_resources/Acme_EndpointSources.json",
      format: "lantern-json",
      source: "lantern",
      publishedUrl: "https://acme.example/developers/endpoints.json",
    },
  ],
  { defaultFhirVersion: "R4" },
);

const item = (URL: string, OrganizationName: string, OrganizationZipCode = "") => ({
  URL,
  OrganizationName,
  NPIID: "",
  OrganizationZipCode,
});
const FIRST = [
  item("https://fhir.acme.example/r4/alpha", "Alpha Clinic", "02114"),
  item("https://fhir.acme.example/fhir", "NC - Beta Practice"),
  item("https://other.acme.example/api", "Gamma Health"),
  item("https://10.0.0.5/fhir", "Internal Server"),
  item("https://api.acme.example/fhir", "**DO NOT USE**"),
  item("https://tab.acme.example\t/fhir/r4", "Delta Eye Care"),
];
const FIRST_AT = "2024-04-22T16:32:19.000Z";
const SECOND_AT = "2024-05-01T00:00:00.000Z";
const idOf = (url: string, name: string) => entryId("acme", url, null, name);

let root: string;
let stop: () => void;
const firstContent = JSON.stringify({ Endpoints: FIRST });
const firstSha = new Bun.CryptoHasher("sha256").update(firstContent).digest("hex");

beforeAll(async () => {
  const db = openDatabase(tempDbPath("source.sqlite"));
  syncVendorRegistry(db, REGISTRY);
  const ingest = (content: string, now: string) =>
    ingestContent(db, { vendorId: "acme", listId: "acme-lantern", content, force: true, now, read: LANTERN }, REGISTRY);
  const first = await ingest(firstContent, FIRST_AT);
  expect(first.unusable.map((u) => [u.url, u.kind])).toEqual([
    ["https://10.0.0.5/fhir", "non-public-address"],
    ["https://api.acme.example/fhir", "do-not-use"],
  ]);
  // The second read no longer has Gamma: it is removed, and still answers by id.
  const second = await ingest(
    JSON.stringify({ Endpoints: FIRST.filter((i) => i.OrganizationName !== "Gamma Health") }),
    SECOND_AT,
  );
  expect(second.ok).toBe(true);
  const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "1000" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  root = `http://127.0.0.1:${app.server!.port}/api/v1`;
  stop = () => app.stop(true);
});
afterAll(() => stop?.());

const fetchJson = async (path: string, init?: RequestInit) => {
  const response = await fetch(`${root}${path}`, init);
  const text = await response.text();
  return { response, status: response.status, body: text === "" ? null : JSON.parse(text) };
};

describe("GET /api/v1/endpoints/:id/source", () => {
  test("names the list, where it is published, the Lantern copy read, as of when, its SHA-256, and how each field is known", async () => {
    const { status, body } = await fetchJson(
      `/endpoints/${idOf("https://fhir.acme.example/r4/alpha", "Alpha Clinic")}/source`,
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      data: {
        endpointId: idOf("https://fhir.acme.example/r4/alpha", "Alpha Clinic"),
        vendorId: "acme",
        list: {
          id: "acme-lantern",
          publishedAt: "https://acme.example/developers/endpoints.json",
          readFrom: LANTERN,
          asOf: SECOND_AT,
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
        firstSeen: FIRST_AT,
        lastSeen: SECOND_AT,
        environment: null,
        fields: { url: "published", urlAsPublished: null, fhirVersion: "url", state: "zip" },
      },
    });
    expect(body.data.list.sha256).not.toBe(firstSha);
  });

  test("an unversioned URL on a host that publishes /r4/ is not assumed R4; another host gets the developer's version, marked so", async () => {
    const beta = await fetchJson(`/endpoints/${idOf("https://fhir.acme.example/fhir", "NC - Beta Practice")}/source`);
    expect(beta.body.data.fields).toEqual({ url: "published", urlAsPublished: null, fhirVersion: null, state: "name" });
    const betaRecord = await fetchJson(`/endpoints/${idOf("https://fhir.acme.example/fhir", "NC - Beta Practice")}`);
    expect(betaRecord.body.data.fhirVersion).toBe("UNKNOWN");
    const delta = await fetchJson(`/endpoints/${idOf("https://tab.acme.example/fhir/r4", "Delta Eye Care")}/source`);
    expect(delta.body.data.fields).toEqual({
      url: "cleaned",
      urlAsPublished: "https://tab.acme.example\t/fhir/r4",
      fhirVersion: "url",
      state: null,
    });
  });

  test("a removed entry answers, last seen at the read that still had it", async () => {
    const { status, body } = await fetchJson(
      `/endpoints/${idOf("https://other.acme.example/api", "Gamma Health")}/source`,
    );
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      firstSeen: FIRST_AT,
      lastSeen: FIRST_AT,
      list: { id: "acme-lantern" },
      fields: { fhirVersion: "developer" },
    });
  });

  test("unknown id → 404 ENDPOINT_NOT_FOUND; any query parameter → 400; ETag and If-None-Match → 304", async () => {
    const missing = await fetchJson(`/endpoints/${"0".repeat(64)}/source`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("ENDPOINT_NOT_FOUND");
    const id = idOf("https://fhir.acme.example/r4/alpha", "Alpha Clinic");
    const withQuery = await fetchJson(`/endpoints/${id}/source?verbose=1`);
    expect(withQuery.status).toBe(400);
    expect(withQuery.body.error.code).toBe("VALIDATION_ERROR");
    // A malformed id is answered as get by id answers it.
    const badId = await fetchJson("/endpoints/not-an-id/source");
    expect([badId.status, badId.body.error.code]).toEqual([
      (await fetchJson("/endpoints/not-an-id")).status,
      (await fetchJson("/endpoints/not-an-id")).body.error.code,
    ]);
    const first = await fetchJson(`/endpoints/${id}/source`);
    const etag = first.response.headers.get("etag");
    expect(etag).toBeTruthy();
    expect(first.response.headers.get("ratelimit-limit")).toBe("1000");
    expect(Number(first.response.headers.get("ratelimit-remaining"))).toBeLessThan(1000);
    const again = await fetch(`${root}/endpoints/${id}/source`, { headers: { "If-None-Match": etag! } });
    expect(again.status).toBe(304);
  });

  test("documented in the OpenAPI document with its responses", async () => {
    const doc = (await (await fetch(root.replace("/api/v1", "/docs/json"))).json()) as {
      paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
      components: { schemas: Record<string, unknown> };
    };
    const op = doc.paths["/api/v1/endpoints/{id}/source"]!.get;
    expect(Object.keys(op.responses).sort()).toEqual(["200", "304", "400", "401", "404", "405", "429", "500"]);
    // The answer's schema is named: SourceResponse, its data the Source record.
    expect(op.responses["200"]!.content["application/json"]!.schema).toEqual({
      $ref: "#/components/schemas/SourceResponse",
    });
    expect(JSON.stringify(doc.components.schemas.Source)).toContain("readFrom");
  });
});

describe("unusable entries", () => {
  test("are stored and answer by id, but are not listed, counted or exported", async () => {
    const internal = idOf("https://10.0.0.5/fhir", "Internal Server");
    const doNotUse = idOf("https://api.acme.example/fhir", "**DO NOT USE**");
    for (const id of [internal, doNotUse]) expect((await fetchJson(`/endpoints/${id}`)).status).toBe(200);
    const list = await fetchJson("/endpoints?limit=100");
    const listed = list.body.data.map((e: { organizationName: string }) => e.organizationName).sort();
    expect(listed).toEqual(["Alpha Clinic", "Delta Eye Care", "NC - Beta Practice"]);
    expect(list.body.meta.total).toBe(3);
    const stats = await fetchJson("/stats");
    expect(stats.body.data.totalEndpoints).toBe(3);
    const vendors = await fetchJson("/vendors");
    expect(vendors.body.data[0].endpointCount).toBe(3);
    const exported = await (await fetch(`${root}/export?format=ndjson`)).text();
    expect(exported.trim().split("\n")).toHaveLength(3);
    expect(exported).not.toContain("10.0.0.5");
    expect(exported).not.toContain("DO NOT USE");
  });
});
