import { describe, expect, test } from "bun:test";
import { fixtureApp, get } from "../../support/fixture";

function limitedApp(max: number, windowSeconds = 60) {
  let now = Date.parse("2026-11-25T12:00:10.000Z");
  const { app } = fixtureApp(
    { RATE_LIMIT_MAX: String(max), RATE_LIMIT_WINDOW_SECONDS: String(windowSeconds) },
    () => new Date(now),
  );
  return { app, advance: (ms: number) => (now += ms) };
}

describe("rate limiting (fixed window per client)", () => {
  test("remaining decreases, then 429 with Retry-After and the RateLimit headers", async () => {
    const { app } = limitedApp(3);
    const remaining = [];
    for (let i = 0; i < 3; i++) {
      const { status, response } = await get(app, "/api/v1/stats");
      expect(status).toBe(200);
      expect(response.headers.get("ratelimit-limit")).toBe("3");
      expect(response.headers.get("ratelimit-policy")).toBe("3;w=60");
      expect(response.headers.get("ratelimit-reset")).toBe("50");
      remaining.push(response.headers.get("ratelimit-remaining"));
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const { status, body, response } = await get(app, "/api/v1/endpoints");
    expect(status).toBe(429);
    expect(body.error.code).toBe("TOO_MANY_REQUESTS");
    expect(response.headers.get("retry-after")).toBe("50");
    expect(response.headers.get("ratelimit-remaining")).toBe("0");
    expect(response.headers.get("ratelimit-reset")).toBe("50");
  });

  test("errors count and carry the headers too", async () => {
    const { app } = limitedApp(2);
    const bad = await get(app, "/api/v1/endpoints?limit=0");
    expect(bad.status).toBe(400);
    expect(bad.response.headers.get("ratelimit-remaining")).toBe("1");
    const missing = await get(app, "/api/v1/nope");
    expect(missing.status).toBe(404);
    expect(missing.response.headers.get("ratelimit-remaining")).toBe("0");
    expect((await get(app, "/api/v1/vendors")).status).toBe(429);
  });

  test("a new window restores the quota; Reset counts down to it", async () => {
    const { app, advance } = limitedApp(1);
    expect((await get(app, "/api/v1/stats")).status).toBe(200);
    advance(49_500);
    const limited = await get(app, "/api/v1/stats");
    expect(limited.status).toBe(429);
    expect(limited.response.headers.get("retry-after")).toBe("1");
    advance(1_000);
    const restored = await get(app, "/api/v1/stats");
    expect(restored.status).toBe(200);
    expect(restored.response.headers.get("ratelimit-remaining")).toBe("0");
    expect(restored.response.headers.get("ratelimit-reset")).toBe("60");
  });

  test("an entry's record, capabilities, availability and source together cost one request; more cost again", async () => {
    const { app } = limitedApp(3);
    const list = await get(app, "/api/v1/endpoints?limit=2");
    expect(list.response.headers.get("ratelimit-remaining")).toBe("2");
    const [first, second] = list.body.data.map((entry: { id: string }) => `/api/v1/endpoints/${entry.id}`);
    const remaining = async (path: string) => {
      const { status, response } = await get(app, path);
      expect(status).toBe(200);
      return response.headers.get("ratelimit-remaining");
    };
    const parts = ["", "/capabilities", "/availability", "/source"];
    const seen = [];
    for (const part of parts) seen.push(await remaining(`${first}${part}`));
    expect(seen).toEqual(["1", "1", "1", "1"]);
    // A fifth look at the same entry in the window is a request of its own; so is another entry.
    expect(await remaining(`${first}/capabilities`)).toBe("0");
    expect((await get(app, `${second}/source`)).status).toBe(429);
  });

  test("a well-formed id, known or not, is grouped; a malformed one is counted every time", async () => {
    const { app } = limitedApp(2);
    const id = "0".repeat(64);
    expect((await get(app, `/api/v1/endpoints/${id}`)).response.headers.get("ratelimit-remaining")).toBe("1");
    expect((await get(app, `/api/v1/endpoints/${id}/capabilities`)).response.headers.get("ratelimit-remaining")).toBe(
      "1",
    );
    expect((await get(app, "/api/v1/endpoints/nope/capabilities")).response.headers.get("ratelimit-remaining")).toBe(
      "0",
    );
    expect((await get(app, "/api/v1/endpoints/nope/capabilities")).status).toBe(429);
  });

  test("a developer's report card and its history, as its page asks them, cost one request", async () => {
    const { app } = limitedApp(2);
    const remaining = async (path: string) => {
      const answer = await get(app, path);
      expect(answer.status).toBe(200);
      return answer.response.headers.get("ratelimit-remaining");
    };
    expect(await remaining("/api/v1/vendors/epic/report")).toBe("1");
    expect(await remaining("/api/v1/vendors/epic/report/history")).toBe("1");
    // Another developer's card is another request.
    expect(await remaining("/api/v1/vendors/oracle-health/report")).toBe("0");
    expect((await get(app, "/api/v1/vendors/meditech/report")).status).toBe(429);
  });

  test("/health and the docs are never limited", async () => {
    const { app } = limitedApp(1);
    await get(app, "/api/v1/stats");
    for (let i = 0; i < 5; i++) {
      const health = await get(app, "/health");
      expect(health.status).toBe(200);
      expect(health.response.headers.get("ratelimit-limit")).toBeNull();
      expect((await get(app, "/docs/json")).status).toBe(200);
    }
  });

  test("RATE_LIMIT_MAX=0 turns limiting off", async () => {
    const { app } = limitedApp(0);
    for (let i = 0; i < 100; i++) expect((await get(app, "/api/v1/stats")).status).toBe(200);
    expect((await get(app, "/api/v1/stats")).response.headers.get("ratelimit-limit")).toBeNull();
  });
});
