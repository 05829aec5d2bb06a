import { describe, expect, test } from "bun:test";
import { FILTER_PARAMETERS } from "../../support/filters";
import { fixtureApp, get } from "../../support/fixture";

const { app } = fixtureApp();

describe("API documentation", () => {
  test("/docs/json documents every operation with parameters and responses", async () => {
    const { status, body } = await get(app, "/docs/json");
    expect(status).toBe(200);
    expect(body.info.title).toBe("Endpoint Directory API");
    expect(Object.keys(body.paths).sort()).toEqual([
      "/api/v1/brands",
      "/api/v1/changes",
      "/api/v1/endpoints",
      "/api/v1/endpoints/{id}",
      "/api/v1/endpoints/{id}/availability",
      "/api/v1/endpoints/{id}/capabilities",
      "/api/v1/endpoints/{id}/source",
      "/api/v1/export",
      "/api/v1/freshness",
      "/api/v1/stats",
      "/api/v1/stats/capabilities",
      "/api/v1/stats/history",
      "/api/v1/vendors",
      "/api/v1/vendors/report",
      "/api/v1/vendors/{id}/report",
      "/api/v1/vendors/{id}/report/history",
      "/fhir/Endpoint",
      "/fhir/Endpoint/_search",
      "/fhir/Endpoint/{id}",
      "/fhir/Organization",
      "/fhir/Organization/_search",
      "/fhir/Organization/{id}",
      "/fhir/SearchParameter/{id}",
      "/fhir/metadata",
      "/fhir/{type}",
      "/fhir/{type}/_search",
      "/fhir/{type}/{id}",
      "/health",
    ]);
    const list = body.paths["/api/v1/endpoints"].get;
    const names = list.parameters.map((p: { name: string }) => p.name).sort();
    expect(names).toEqual([...FILTER_PARAMETERS, "limit", "page", "sort"].sort());
    for (const parameter of list.parameters) expect(parameter.schema.description ?? parameter.description).toBeTruthy();
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(["200", "400", "429"]));
    expect(JSON.stringify(body)).toContain("case-insensitive");
  });

  test("/docs is an HTML page whose assets are served locally, not from a CDN", async () => {
    const { response, text } = await app
      .handle(new Request("http://localhost/docs"))
      .then(async (r) => ({ response: r, text: await r.text() }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(text).not.toMatch(/https?:\/\/(unpkg|cdn\.jsdelivr)/);
    const assets = [...text.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.sort()).toEqual([
      "/docs/assets/start.js",
      "/docs/assets/swagger-ui-bundle.js",
      "/docs/assets/swagger-ui.css",
    ]);
    for (const asset of assets) {
      const r = await app.handle(new Request(`http://localhost${asset}`));
      expect(r.status).toBe(200);
      expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(asset.endsWith("start.js") ? 0 : 10_000);
    }
  });

  test("/docs runs no inline script, says so in its Content-Security-Policy, and may not be framed", async () => {
    const response = await app.handle(new Request("http://localhost/docs"));
    const text = await response.text();
    expect(text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const policy = Object.fromEntries(
      (response.headers.get("content-security-policy") ?? "").split(";").map((part) => {
        const [name = "", ...values] = part.trim().split(/\s+/);
        return [name, values.join(" ")];
      }),
    );
    expect(policy["frame-ancestors"]).toBe("'none'");
    expect(policy["script-src"]).toBe("'self'");
    expect(policy["default-src"]).toBe("'none'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
  });

  test("an unknown asset is 404", async () => {
    expect((await get(app, "/docs/assets/nope.js")).status).toBe(404);
  });
});
