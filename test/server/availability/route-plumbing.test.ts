/** The availability route shares the other routes' plumbing: rate limit, headers, OpenAPI. */
import { describe, expect, test } from "bun:test";
import { ENTRIES, fixtureApp, get } from "../../support/fixture";

describe("availability route plumbing", () => {
  test("rate limited like the other routes, with the common headers; 405 for other methods", async () => {
    const { app } = fixtureApp({ RATE_LIMIT_MAX: "2" });
    const { body: list } = await get(app, "/api/v1/endpoints?limit=1");
    const id = list.data[0].id;
    expect(ENTRIES.map((e) => e.url)).toContain(list.data[0].url);
    const first = await get(app, `/api/v1/endpoints/${id}/availability`);
    expect(first.status).toBe(200);
    expect(first.response.headers.get("ratelimit-remaining")).toBe("0");
    expect(first.response.headers.get("x-request-id")).toBeTruthy();
    expect(first.response.headers.get("access-control-allow-origin")).toBe("*");
    expect(first.response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const limited = await get(app, `/api/v1/endpoints/${id}/availability`);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("TOO_MANY_REQUESTS");
    const { app: open } = fixtureApp({ RATE_LIMIT_MAX: "0" });
    const post = await open.handle(
      new Request(`http://localhost/api/v1/endpoints/${id}/availability`, { method: "POST" }),
    );
    expect(post.status).toBe(405);
  });

  test("documented in OpenAPI with a response example and its error responses", async () => {
    const { app } = fixtureApp();
    const { body } = await get(app, "/docs/json");
    const op = body.paths["/api/v1/endpoints/{id}/availability"].get;
    expect(Object.keys(op.responses).sort()).toEqual(["200", "304", "400", "401", "404", "405", "429", "500"]);
    const example = op.responses["200"].content["application/json"].example;
    expect(example.data.uptime).toEqual({ "1d": 1, "7d": 0.8571, "30d": 0.9667, "365d": 0.9918 });
    expect(op.description).toContain("CapabilityStatement");
  });
});
