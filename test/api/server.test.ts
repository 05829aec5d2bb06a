import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fixtureDb } from "../support/fixture";
import { startServer, type ServerProcess } from "../support/server-process";

let server: ServerProcess;

beforeAll(async () => {
  const db = fixtureDb();
  db.sqlite.close();
  server = await startServer({ DATABASE_PATH: db.path, RATE_LIMIT_MAX: "100" });
});

afterAll(async () => {
  await server?.stop();
});

describe("the server on a real port", () => {
  test("answers /health", async () => {
    const response = await fetch(`${server.baseUrl}/health`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { status: string } }).data.status).toBe("ok");
  });

  test("answers a list request with rate-limit headers", async () => {
    const response = await fetch(`${server.baseUrl}/api/v1/endpoints?state=MA&limit=1`);
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-limit")).toBe("100");
    const body = (await response.json()) as { meta: unknown; data: { organizationName: string }[] };
    expect(body.meta).toEqual({ total: 2, page: 1, limit: 1 });
    expect(body.data[0]?.organizationName).toBe("Brigham and Women's Hospital");
  });

  test("rate limits per client address", async () => {
    const response = await fetch(`${server.baseUrl}/api/v1/stats`);
    expect(Number(response.headers.get("ratelimit-remaining"))).toBeLessThan(100);
  });

  test("exits 0 on SIGTERM", async () => {
    server.process.kill("SIGTERM");
    expect(await server.process.exited).toBe(0);
  });
});
