import { describe, expect, test } from "bun:test";
import { fixtureApp } from "../../support/fixture";

const { app } = fixtureApp({ RATE_LIMIT_MAX: "0" });

const ask = (path: string, headers: Record<string, string> = {}) =>
  app.handle(new Request(`http://localhost${path}`, { headers }));

/** A JSON list, a FHIR search, a FHIR read and FHIR's metadata: one response path answers them all. */
const PATHS = ["/api/v1/endpoints?state=MA", "/fhir/Endpoint?name=mass", "/fhir/metadata", "/api/v1/stats"];

describe("one response path for the JSON API and FHIR", () => {
  test.each(PATHS)("%s: ETag and Last-Modified, 304 by either validator, built and kept alike", async (path) => {
    const first = await ask(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    const lastModified = first.headers.get("last-modified")!;
    expect(etag).toMatch(/^W\/"/);
    expect(new Date(lastModified).toUTCString()).toBe(lastModified);
    expect(first.headers.get("cache-control")).toContain("max-age=");
    // The second answer comes from the kept answer, before routing: the same bytes and headers.
    const again = await ask(path);
    expect(await again.text()).toBe(await first.text());
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    const validators: Record<string, string>[] = [{ "if-none-match": etag }, { "if-modified-since": lastModified }];
    for (const sent of validators) {
      const notModified = await ask(path, sent);
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get("etag")).toBe(etag);
      expect(notModified.headers.get("last-modified")).toBe(lastModified);
    }
  });

  test("a FHIR search by POST is answered without validators, and never 304", async () => {
    const response = await app.handle(
      new Request("http://localhost/fhir/Endpoint/_search", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "if-none-match": "*" },
        body: "name=mass",
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toBeNull();
    expect(response.headers.get("last-modified")).toBeNull();
    expect(((await response.json()) as { resourceType: string }).resourceType).toBe("Bundle");
  });

  test("FHIR answers are kept per origin: links in the body name the host asked", async () => {
    const a = await app.handle(new Request("http://one.example/fhir/Endpoint?name=mass"));
    const b = await app.handle(new Request("http://two.example/fhir/Endpoint?name=mass"));
    expect(await a.text()).toContain("http://one.example/fhir/");
    expect(await b.text()).toContain("http://two.example/fhir/");
  });
});
