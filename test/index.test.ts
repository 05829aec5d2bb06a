import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { fixtureDb } from "./support/fixture";
import { type ServerProcess, startServer } from "./support/server-process";

let server: ServerProcess;

/** A GET over a socket bound to `localAddress` (any 127.x address is loopback); the response head. */
function rawGet(baseUrl: string, path: string, localAddress: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = connect({ host: hostname, port: Number(port), localAddress }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
    });
    socket.on("data", (chunk) => (received += chunk.toString()));
    socket.on("end", () => resolve(received.split("\r\n\r\n")[0]!));
    socket.on("error", reject);
  });
}

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
    expect(body.meta).toEqual({ total: 2, page: 1, limit: 1, fhirVersionBasis: ["probe"], ready: [[]] });
    expect(body.data[0]?.organizationName).toBe("Brigham and Women's Hospital");
  });

  test("rate limits per socket address: each client's quota counts on its own, on every way in", async () => {
    const list = (await (await fetch(`${server.baseUrl}/api/v1/endpoints?limit=4`)).json()) as {
      data: { id: string }[];
    };
    // Through Elysia's hooks (stats), and a direct route Bun's router calls (an entry by id: each
    // request names another entry, as the parts of one entry count once a window).
    const byId = (i: number) => `/api/v1/endpoints/${list.data[i]!.id}`;
    for (const [path, [one, other]] of [
      [() => "/api/v1/stats", ["127.0.0.2", "127.0.0.3"]],
      [byId, ["127.0.0.4", "127.0.0.5"]],
    ] as const) {
      let sent = 0;
      const remaining = async (localAddress: string) => {
        const headers = await rawGet(server.baseUrl, path(sent++), localAddress);
        return Number(/^ratelimit-remaining: (\d+)/im.exec(headers)![1]);
      };
      const first = await remaining(one);
      expect(await remaining(one)).toBe(first - 1);
      expect(await remaining(one)).toBe(first - 2);
      expect(await remaining(other)).toBe(99);
    }
  });

  test("exits 0 on SIGTERM", async () => {
    server.process.kill("SIGTERM");
    expect(await server.process.exited).toBe(0);
  });
});
