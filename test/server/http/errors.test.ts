import { describe, expect, test } from "bun:test";
import { fixtureApp, get } from "../../support/fixture";

const { app } = fixtureApp();

function expectEnvelope(body: { success: boolean; error: { code: string; message: string } }, code: string) {
  expect(body.success).toBe(false);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
}

describe("not found", () => {
  test.each([
    "0".repeat(64),
    "abc",
    "'%22;DROP TABLE entries;--",
    "%00",
    "%E2%9C%93%F0%9F%8F%A5",
    "x".repeat(5000),
    "%25",
    "..%2F..%2Fetc",
  ])("an unknown endpoint id (%#) → 404 ENDPOINT_NOT_FOUND on get and capabilities", async (id) => {
    for (const path of [`/api/v1/endpoints/${id}`, `/api/v1/endpoints/${id}/capabilities`]) {
      const { status, body } = await get(app, path);
      expect(status).toBe(404);
      expectEnvelope(body, "ENDPOINT_NOT_FOUND");
    }
  });

  test.each([
    "/api",
    "/api/v1",
    "/api/v2/endpoints",
    "/api/v1/endpoint",
    "/api/v1/endpoints/abc/nope",
    "/health/extra",
    "/api/v1/vendors/epic",
  ])("%s → 404 NOT_FOUND", async (path) => {
    const { status, body, response } = await get(app, path);
    expect(status).toBe(404);
    expectEnvelope(body, "NOT_FOUND");
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });
});

describe("methods", () => {
  test.each(["POST", "PUT", "DELETE", "PATCH"])("%s on an existing route → 405 with Allow", async (method) => {
    const { status, body, response } = await get(app, "/api/v1/endpoints", {
      method,
      body: method === "DELETE" ? undefined : "{}",
    });
    expect(status).toBe(405);
    expectEnvelope(body, "METHOD_NOT_ALLOWED");
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  test("HEAD answers like GET without a body", async () => {
    const { status, text } = await get(app, "/api/v1/stats", { method: "HEAD" });
    expect(status).toBe(200);
    expect(text).toBe("");
  });

  test("a CORS preflight is answered", async () => {
    const { status, response } = await get(app, "/api/v1/endpoints", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "GET" },
    });
    expect(status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toContain("GET");
  });
});

describe("odd query values never give a 500", () => {
  test.each([
    "'",
    '"',
    "%25",
    "%",
    "_",
    "*",
    "Ω≈ç√∫",
    "🏥 hospital",
    "a%00b",
    "(",
    ":",
    "\\",
    "OR 1=1 --",
    "x".repeat(200),
    "NEAR(a b)",
    "a AND b",
  ])("query=%p → 200", async (query) => {
    const { status, body } = await get(app, `/api/v1/endpoints?query=${encodeURIComponent(query)}`);
    expect(status).toBe(200);
    expect(body.success).toBe(true);
  });

  test.each(["vendor='", "vendor=%00", "vendor=épic", "hasResource=Patient%00"])(
    "%s → a clear 2xx or 4xx envelope",
    async (query) => {
      const { status, body } = await get(app, `/api/v1/endpoints?${query}`);
      expect(status === 200 || status === 400).toBe(true);
      expect(typeof body.success).toBe("boolean");
    },
  );
});

describe("headers on every response", () => {
  test.each(["/api/v1/endpoints", "/api/v1/endpoints?limit=0", "/nope", "/health"])(
    "%s carries X-Request-Id, CORS and nosniff",
    async (path) => {
      const { response } = await get(app, path);
      expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    },
  );

  test("an incoming X-Request-Id is returned; an unsafe one is replaced", async () => {
    expect(
      (await get(app, "/health", { headers: { "x-request-id": "abc-123" } })).response.headers.get("x-request-id"),
    ).toBe("abc-123");
    expect(
      (await get(app, "/health", { headers: { "x-request-id": "bad id <script>" } })).response.headers.get(
        "x-request-id",
      ),
    ).not.toContain("script");
  });

  test("data responses carry an ETag and honour If-None-Match with 304", async () => {
    const first = await get(app, "/api/v1/endpoints?state=MA");
    const etag = first.response.headers.get("etag")!;
    expect(etag).toBeTruthy();
    const second = await get(app, "/api/v1/endpoints?state=MA", { headers: { "if-none-match": etag } });
    expect(second.status).toBe(304);
    expect(second.text).toBe("");
    const other = await get(app, "/api/v1/endpoints?state=TX", { headers: { "if-none-match": etag } });
    expect(other.status).toBe(200);
  });
});
