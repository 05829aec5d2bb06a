import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import Ajv2020 from "ajv/dist/2020";
import { loadConfig } from "../../src/config";
import { createApiKey } from "../../src/db/api-keys";
import { createTestApp } from "../support/app";
import { fixtureDb } from "../support/fixture";
import { PublishedDocument } from "./published-document";

/**
 * The document at /docs/json judged by tools nobody here wrote: Redocly's recommended rules, and
 * Ajv (JSON Schema 2020-12) holding every answer of a real server on 127.0.0.1 (typical, edge,
 * every error status, 304s, the fast paths by id) to the document.
 */
const db = fixtureDb();
const { key } = createApiKey(db, { name: "contract", now: "2026-11-25T00:00:00Z" });
const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "40", RATE_LIMIT_MAX_WITH_KEY: "1000" }) });
let base: string;
let text: string;
let published: PublishedDocument;

beforeAll(async () => {
  app.listen({ port: 0, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${app.server!.port}`;
  text = await (await fetch(`${base}/docs/json`)).text();
  published = new PublishedDocument(JSON.parse(text));
});
afterAll(() => app.stop());

/** The lint's errors and warnings, by rule and place. */
async function lint(source: string) {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({ source, absoluteRef: `${base}/docs/json`, config });
  const render = (severity: string) =>
    problems
      .filter((problem) => problem.severity === severity)
      .map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer ?? ""}: ${problem.message}`);
  return { errors: render("error"), warnings: render("warn") };
}

describe("Redocly's recommended rules", () => {
  test("the served document has no error, and no warning but the licence", async () => {
    const { errors, warnings } = await lint(text);
    expect(errors).toEqual([]);
    // Two expected warnings. info-license: the project names no license. no-ambiguous-paths on
    // the POST search of types not served: the rule compares paths by their count of templated
    // segments only, so `/fhir/{type}/_search` and `/fhir/Endpoint/{id}` look alike to it; but the
    // one URL both match, `/fhir/Endpoint/_search`, is itself a concrete path of the document,
    // which OpenAPI matches first (and it takes POST, the read GET).
    expect(warnings).toEqual([
      "info-license #/info: Info object should contain `license` field.",
      "no-ambiguous-paths #/paths/~1fhir~1{type}~1_search: Paths should resolve unambiguously. Found two ambiguous paths: `/fhir/Endpoint/{id}` and `/fhir/{type}/_search`.",
    ]);
  });

  test("the lint does find errors (a document without its security schemes)", async () => {
    const broken = JSON.parse(text);
    delete broken.components.securitySchemes;
    broken.paths["/api/v1/stats"].get.parameters = [{ name: "x", in: "query", schema: { type: "string" }, error: "x" }];
    expect((await lint(JSON.stringify(broken))).errors.length).toBeGreaterThan(0);
  });
});

describe("the document's examples", () => {
  test("every media type example validates against its own schema", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat("date-time", (value: string) => !Number.isNaN(Date.parse(value)));
    ajv.addFormat("uri", (value: string) => URL.canParse(value));
    const document = JSON.parse(text);
    ajv.addSchema(document, "https://published.invalid/openapi.json");
    const failures: string[] = [];
    let examples = 0;
    const visit = (node: unknown, at: string) => {
      if (node === null || typeof node !== "object") return;
      const object = node as Record<string, unknown>;
      if ("schema" in object && at.includes("/responses/") && at.includes("/content/") && !("example" in object))
        failures.push(`${at}: no example`);
      if ("schema" in object && "example" in object && at.includes("/content/")) {
        examples++;
        const validate = ajv.compile({ $ref: `https://published.invalid/openapi.json#${at}/schema` });
        if (!validate(object.example)) failures.push(`${at}: ${ajv.errorsText(validate.errors)}`);
      }
      for (const [name, value] of Object.entries(object))
        visit(value, `${at}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`);
    };
    visit(document, "");
    expect(failures).toEqual([]);
    // The 200 of every JSON operation, the export's three media types, every shared error.
    // HEAD operations have no body, so no example.
    const withBodies = (operations: object) => Object.keys(operations).filter((method) => method !== "head");
    const operations = Object.values(document.paths as Record<string, object>).flatMap(withBodies).length;
    const errors = Object.keys(document.components.responses).filter((name) => name !== "NotModified").length;
    // The JSON API's 9 error answers (416 among them) and /fhir's 9 (OperationOutcomes).
    expect(errors).toBe(9 + 9);
    // Every operation answers with at least one example (its 200, or its own 404).
    expect(examples).toBeGreaterThanOrEqual(operations + errors);
    // Every operation shows a whole answer.
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>))
      for (const [method, operation] of Object.entries(operations)) {
        if (method === "head") continue;
        // An operation that only refuses (FHIR's unsupported resource types) shows its default.
        const ok = (operation.responses["200"] ?? operation.responses.default).content;
        for (const media of Object.values(ok as Record<string, { example?: unknown }>))
          expect({ path, example: media.example !== undefined }).toEqual({ path, example: true });
      }
  });
});

describe("every answer of a real server matches the published document (Ajv 2020-12)", () => {
  const seen: string[] = [];
  /** Sends the request and returns the answer, after checking it against the document. */
  async function check(path: string, init: RequestInit = {}) {
    const response = await fetch(`${base}${path}`, init);
    const body = await response.text();
    const method = init.method ?? "GET";
    const problems = published.problems(method, path, response.status, response.headers, body);
    // The JSON API's statuses; /fhir's are counted by its own test.
    if (!path.startsWith("/fhir/")) seen.push(`${method} ${response.status}`);
    expect({ path, problems }).toEqual({ path, problems: [] });
    return { response, body };
  }
  const withKey = { headers: { "x-api-key": key } };

  test("typical and edge answers of every operation, 200 and 304", async () => {
    const list = JSON.parse((await check("/api/v1/endpoints?limit=100", withKey)).body) as {
      data: { id: string }[];
    };
    expect(list.data.length).toBeGreaterThan(5);
    for (const query of ["", "?query=mass%20gen", "?state=MA&fhirVersion=R4", "?page=1000", "?vendor=nobody"])
      await check(`/api/v1/endpoints${query}`, withKey);
    // Every entry by id, its capabilities and its availability (through the direct routes: GET, no query).
    for (const { id } of list.data)
      for (const tail of ["", "/capabilities", "/availability", "/source"])
        await check(`/api/v1/endpoints/${id}${tail}`, withKey);
    for (const path of ["/api/v1/vendors", "/api/v1/stats", "/health"]) await check(path, withKey);
    for (const path of ["/api/v1/brands", "/api/v1/brands?state=MA"]) await check(path, withKey);
    for (const format of ["csv", "ndjson", "fhir", "brands"]) {
      await check(`/api/v1/export?format=${format}`, withKey);
      await check(`/api/v1/export?format=${format}&vendor=nobody`, withKey);
    }
    // 304s: by ETag, and by Last-Modified.
    for (const path of ["/api/v1/endpoints", "/api/v1/vendors", `/api/v1/endpoints/${list.data[0]!.id}`]) {
      const { response } = await check(path, withKey);
      const etag = response.headers.get("etag")!;
      const lastModified = response.headers.get("last-modified")!;
      expect((await check(path, { headers: { ...withKey.headers, "if-none-match": etag } })).response.status).toBe(304);
      expect(
        (await check(path, { headers: { ...withKey.headers, "if-modified-since": lastModified } })).response.status,
      ).toBe(304);
    }
    await check("/api/v1/export?format=csv", { method: "HEAD", ...withKey });
  });

  test("/fhir: reads, searches (GET and form POST), metadata, 304, and every error status, in FHIR JSON", async () => {
    const fhirSeen = new Set<string>();
    const fhir = async (path: string, init: RequestInit = {}) => {
      const answer = await check(`/fhir${path}`, init);
      fhirSeen.add(`${init.method ?? "GET"} ${answer.response.status}`);
      if (answer.body !== "")
        expect(answer.response.headers.get("content-type")).toStartWith(
          answer.body.startsWith('{"success"') ? "application/json" : "application/fhir+json",
        );
      return answer;
    };
    const bundle = JSON.parse((await fhir("/Organization?_count=3&_include=Organization:endpoint", withKey)).body);
    const organization = bundle.entry.find((e: { search: { mode: string } }) => e.search.mode === "match").resource;
    await fhir(`/Organization/${organization.id}`, withKey);
    await fhir("/Organization/developer-epic", withKey);
    const endpoints = JSON.parse((await fhir("/Endpoint?status=active&_count=2", withKey)).body);
    await fhir(`/Endpoint/${endpoints.entry[0].resource.id}`, withKey);
    await fhir("/Endpoint?_summary=count", withKey);
    await fhir("/metadata", withKey);
    await fhir("/SearchParameter/endpoint-fhir-version", withKey);
    const form = { "content-type": "application/x-www-form-urlencoded" };
    await fhir("/Organization/_search", { method: "POST", headers: { ...withKey.headers, ...form }, body: "_count=2" });
    const { response } = await fhir("/Endpoint?_count=2", withKey);
    await fhir("/Endpoint?_count=2", {
      headers: { ...withKey.headers, "if-none-match": response.headers.get("etag")! },
    });
    // Each error: 400 (a bad value, an unknown parameter under strict, a POSTed one), 401, 404, 405, 406, 410.
    await fhir("/Endpoint?_count=many", withKey);
    await fhir("/Organization?colour=blue", { headers: { ...withKey.headers, prefer: "handling=strict" } });
    await fhir("/Endpoint/_search", { method: "POST", headers: { ...withKey.headers, ...form }, body: "_count=x" });
    await fhir("/metadata", { headers: { "x-api-key": "not-a-key" } });
    await fhir(`/Endpoint/${"0".repeat(64)}`, withKey);
    await fhir("/Patient?name=x", withKey);
    await fhir("/Patient/1", withKey);
    await fhir("/Endpoint", { method: "DELETE", ...withKey });
    await fhir("/Endpoint?_format=xml", withKey);
    await fhir("/metadata", { headers: { ...withKey.headers, accept: "application/fhir+xml" } });
    await fhir("/Endpoint?_count=2&_offset=2&_snapshot=999", withKey);
    expect(fhirSeen).toEqual(
      new Set([
        "GET 200",
        "POST 200",
        "GET 304",
        "GET 400",
        "POST 400",
        "GET 401",
        "GET 404",
        "DELETE 405",
        "GET 406",
        "GET 410",
      ]),
    );
  });

  test("HEAD: every GET operation has its HEAD twin, and HEAD answers match it", async () => {
    const document = published.document as unknown as { paths: Record<string, Record<string, object>> };
    const gets = Object.entries(document.paths).filter(([, operations]) => "get" in operations);
    expect(gets.length).toBeGreaterThan(15);
    for (const [path, operations] of gets) expect({ path, head: "head" in operations }).toEqual({ path, head: true });
    const id = ((await (await fetch(`${base}/api/v1/endpoints?limit=1`, withKey)).json()) as { data: { id: string }[] })
      .data[0]!.id;
    for (const path of [
      "/health",
      "/api/v1/endpoints?state=MA",
      `/api/v1/endpoints/${id}`,
      `/api/v1/endpoints/${id}/capabilities`,
      "/api/v1/vendors",
      "/api/v1/export?format=csv",
      "/fhir/metadata",
      "/fhir/Endpoint?_count=1",
      "/fhir/Organization/developer-epic",
      "/fhir/Patient/1",
      "/api/v1/stats?x=1",
    ]) {
      const { response, body } = await check(path, { method: "HEAD", ...withKey });
      expect(body).toBe("");
      expect(response.headers.get("date")).not.toBeNull();
    }
  });

  test("POST /fhir/{type}/_search is documented with its form body, and answers as documented", async () => {
    const operation = published.document.paths["/fhir/{type}/_search"]?.post as
      | { requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown> }
      | undefined;
    expect(Object.keys(operation?.requestBody?.content ?? {})).toEqual(["application/x-www-form-urlencoded"]);
    expect(Object.keys(operation?.responses ?? {})).toContain("404");
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const { response, body } = await check("/fhir/Patient/_search", {
      method: "POST",
      headers: { ...withKey.headers, ...form },
      body: "name=x",
    });
    expect(response.status).toBe(404);
    expect(JSON.parse(body).issue[0].code).toBe("not-found");
  });

  test("every error status: 400, 401, 404, 405, 429", async () => {
    await check("/api/v1/endpoints?page=0", withKey);
    await check("/api/v1/endpoints?nope=1", withKey);
    await check("/api/v1/export?format=xml", withKey);
    await check("/api/v1/export?format=csv&page=2", withKey);
    await check("/api/v1/stats?x=1", withKey);
    await check(`/api/v1/endpoints/${"0".repeat(64)}`, withKey);
    await check(`/api/v1/endpoints/${"0".repeat(64)}/availability`, withKey);
    await check("/api/v1/vendors", { headers: { "x-api-key": "not-a-key" } });
    await check("/api/v1/vendors", { headers: { authorization: "Bearer not-a-key" } });
    for (const method of ["POST", "PUT", "DELETE"]) await check("/api/v1/endpoints", { method, ...withKey });
    await check("/health", { method: "POST" });
    // Anonymous, past the quota of 40 (twice that, should a window end meanwhile): then 429.
    let status = 0;
    for (let i = 0; i < 90 && status !== 429; i++) status = (await check("/api/v1/stats")).response.status;
    expect(status).toBe(429);
    // The same quota over /fhir.
    status = 0;
    for (let i = 0; i < 90 && status !== 429; i++) status = (await check("/fhir/metadata")).response.status;
    expect(status).toBe(429);
    expect(new Set(seen)).toEqual(
      new Set([
        "GET 200",
        "GET 304",
        "HEAD 200",
        "HEAD 400",
        "GET 400",
        "GET 401",
        "GET 404",
        "POST 405",
        "PUT 405",
        "DELETE 405",
        "GET 429",
      ]),
    );
  });

  test("the check fails on an answer the document does not allow", () => {
    const headers = new Headers({ "content-type": "application/json" });
    const body = JSON.stringify({ success: true, data: { status: "ok", timestamp: 5 } });
    expect(published.problems("GET", "/health", 200, headers, body).length).toBe(1);
    expect(published.problems("GET", "/health", 418, headers, body)).toEqual([
      "GET /health → 418: status not documented",
    ]);
    expect(published.problems("GET", "/health", 200, new Headers({ link: "<x>" }), "")).toEqual([
      "GET /health → 200: header link not documented",
    ]);
  });
});
