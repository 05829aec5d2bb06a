import { describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { fixtureApp, get } from "../../support/fixture";

const { app } = fixtureApp({ RATE_LIMIT_MAX: "1000" });

describe("HTTP caching and compression", () => {
  test("a repeated request with its ETag gets 304 and no body; a changed dataset would change the ETag", async () => {
    const first = await get(app, "/api/v1/endpoints?limit=5");
    const etag = first.response.headers.get("etag")!;
    expect(first.response.headers.get("cache-control")).toContain("max-age=");
    const again = await app.handle(
      new Request("http://localhost/api/v1/endpoints?limit=5", { headers: { "if-none-match": etag } }),
    );
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
  });

  test("If-None-Match: * answers 304 for a valid request, and a bad request stays a 400", async () => {
    const valid = await app.handle(
      new Request("http://localhost/api/v1/endpoints?vendor=epic&limit=3", { headers: { "if-none-match": "*" } }),
    );
    expect(valid.status).toBe(304);
    for (const bad of ["hasResource=patient", "hasResource=Patient,,Condition", `query=${"x".repeat(201)}`]) {
      const response = await app.handle(
        new Request(`http://localhost/api/v1/endpoints?${bad}`, { headers: { "if-none-match": "*" } }),
      );
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("VALIDATION_ERROR");
    }
  });

  test.each([
    ["gzip", (b: Buffer) => gunzipSync(b)],
    ["br", (b: Buffer) => brotliDecompressSync(b)],
    ["gzip, deflate, br, zstd", (b: Buffer) => brotliDecompressSync(b)],
  ] as const)("Accept-Encoding %p: compressed body equals the uncompressed one", async (accept, decode) => {
    const plain = await app.handle(new Request("http://localhost/api/v1/endpoints?limit=100"));
    const plainText = await plain.text();
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plainText.length).toBeGreaterThan(1024);
    const compressed = await app.handle(
      new Request("http://localhost/api/v1/endpoints?limit=100", { headers: { "accept-encoding": accept } }),
    );
    const encoding = compressed.headers.get("content-encoding")!;
    expect(accept).toContain(encoding);
    expect(compressed.headers.get("vary")).toContain("Accept-Encoding");
    const bytes = Buffer.from(await compressed.arrayBuffer());
    expect(bytes.length).toBeLessThan(plainText.length);
    expect(decode(bytes).toString("utf8")).toBe(plainText);
  });

  test("small bodies are not compressed", async () => {
    const small = await app.handle(
      new Request("http://localhost/api/v1/stats", { headers: { "accept-encoding": "gzip" } }),
    );
    expect(small.headers.get("content-encoding")).toBeNull();
    expect(((await small.json()) as { success: boolean }).success).toBe(true);
  });

  test("CORS headers on success and on errors", async () => {
    for (const path of ["/api/v1/endpoints", "/api/v1/endpoints?limit=0", "/api/v1/endpoints/nope", "/nowhere"]) {
      const { response } = await get(app, path, { headers: { origin: "https://app.example" } });
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
    }
  });
});
