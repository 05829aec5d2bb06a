import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { loadConfig } from "../../../src/config";
import { createTestApp } from "../../support/app";
import { fixtureDb } from "../../support/fixture";

/**
 * Requests written byte by byte over TCP to a real server on 127.0.0.1, so the request line and
 * the Host header are exactly what a hostile client sends (fetch would fix them up). Whatever
 * the Host (short, empty, missing with HTTP/1.0, odd), a request must be routed, limited and
 * refused exactly like the same request line with a normal Host.
 */

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function rawRequest(port: number, text: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const raw = Buffer.concat(chunks).toString("latin1");
      const split = raw.indexOf("\r\n\r\n");
      const [statusLine = "", ...lines] = raw.slice(0, split).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = raw.slice(split + 4);
      if (headers["transfer-encoding"] === "chunked") {
        let decoded = "";
        for (let at = 0; ; ) {
          const end = body.indexOf("\r\n", at);
          const size = Number.parseInt(body.slice(at, end), 16);
          if (!size) break;
          decoded += body.slice(end + 2, end + 2 + size);
          at = end + 2 + size + 2;
        }
        body = decoded;
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
    });
  });
}

/** How the Host is sent: the plain request, then the variants that once changed the route Elysia saw. */
const HOSTS: Record<string, (port: number) => { version: string; host: string | null }> = {
  plain: (port) => ({ version: "HTTP/1.1", host: `127.0.0.1:${port}` }),
  "one-character host": () => ({ version: "HTTP/1.1", host: "a" }),
  "two-character host": () => ({ version: "HTTP/1.1", host: "ab" }),
  "three-character host": () => ({ version: "HTTP/1.1", host: "abc" }),
  "empty host": () => ({ version: "HTTP/1.1", host: "" }),
  "HTTP/1.0 without host": () => ({ version: "HTTP/1.0", host: null }),
  "HTTP/1.0 with a short host": () => ({ version: "HTTP/1.0", host: "a" }),
  "host with a slash": () => ({ version: "HTTP/1.1", host: "a/b" }),
  "host with an at sign": () => ({ version: "HTTP/1.1", host: "x@y" }),
  "long host": () => ({ version: "HTTP/1.1", host: `${"h".repeat(300)}.example` }),
};

function requestText(method: string, target: string, port: number, variant: string, headers: string[] = []): string {
  const { version, host } = HOSTS[variant]!(port);
  const lines = [`${method} ${target} ${version}`];
  if (host !== null) lines.push(`Host: ${host}`);
  lines.push("Connection: close", ...headers);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

function startApp(env: Record<string, string>) {
  const app = createTestApp({
    db: fixtureDb(),
    config: loadConfig({ LOG_LEVEL: "error", RATE_LIMIT_WINDOW_SECONDS: "3600", ...env }),
    clock: () => new Date("2026-11-25T12:00:10.000Z"),
  });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  return { app, port: app.server!.port! };
}

const ROUTES = [
  "/api/v1/endpoints?limit=2&page=1",
  "/api/v1/endpoints/ID",
  "/api/v1/endpoints/ID/capabilities",
  "/api/v1/vendors",
  "/api/v1/stats",
  "/health",
  "/docs/json",
  "/metrics",
];
const EXEMPT_PREFIXES = ["/docs", "/health", "/metrics", "/docs/assets", "/docs/json"];

describe("the route is the request line's path, whatever the Host", () => {
  let server: ReturnType<typeof startApp>;
  let id: string;
  let targets: string[];
  beforeAll(async () => {
    server = startApp({ RATE_LIMIT_MAX: "100000000" });
    const list = await rawRequest(
      server.port,
      requestText("GET", "/api/v1/endpoints?query=mass%20general", server.port, "plain"),
    );
    id = JSON.parse(list.body).data[0].id;
    const routes = ROUTES.map((route) => route.replace("ID", id));
    targets = [
      ...routes,
      ...EXEMPT_PREFIXES.flatMap((prefix) => routes.map((route) => `${prefix}${route}`)),
      "/api/v1/stats/",
      "/api/v1/stats?x=a/b",
      "/api/v1/endpoints?query=a/b&vendor=epic",
      "/api/v1/endpoints?vendor=epic&limit=100",
      "/api/v1/nowhere",
      "/",
    ];
  });
  afterAll(() => server?.app.stop(true));

  /** What must not depend on the Host: status, body, ETag, whether limited, Allow. */
  const observable = (response: RawResponse, target: string) => ({
    status: response.status,
    body: target.includes("/health") ? response.body.replace(/"timestamp":"[^"]+"/, "") : response.body,
    etag: response.headers.etag,
    limited: response.headers["ratelimit-limit"] !== undefined,
    allow: response.headers.allow,
  });

  for (const variant of Object.keys(HOSTS).filter((name) => name !== "plain")) {
    test(`${variant}: every route and exempt-looking prefix answers like the plain request (GET, HEAD, POST)`, async () => {
      const port = server.port;
      for (const method of ["GET", "HEAD", "POST"]) {
        for (const target of targets) {
          if (target.includes("/metrics")) continue; // its body counts the requests themselves
          const plain = await rawRequest(port, requestText(method, target, port, "plain"));
          const other = await rawRequest(port, requestText(method, target, port, variant));
          expect({ method, target, ...observable(other, target) }).toEqual({
            method,
            target,
            ...observable(plain, target),
          });
        }
      }
    });
  }

  test("POST to a data route is 405 with Allow under every Host", async () => {
    for (const variant of Object.keys(HOSTS)) {
      const response = await rawRequest(server.port, requestText("POST", "/api/v1/stats", server.port, variant));
      expect({ variant, status: response.status, allow: response.headers.allow }).toEqual({
        variant,
        status: 405,
        allow: "GET, HEAD, OPTIONS",
      });
    }
  });

  test("the ETag of an answer does not depend on the Host", async () => {
    const etags = new Set<string | undefined>();
    for (const variant of Object.keys(HOSTS))
      etags.add(
        (await rawRequest(server.port, requestText("GET", "/api/v1/vendors", server.port, variant))).headers.etag,
      );
    expect(etags.size).toBe(1);
    expect([...etags][0]).toMatch(/^W\/"/);
  });
});

describe("the limiter sees the same route", () => {
  test("a client at its quota gets 429 on every data route under every Host, with RateLimit headers", async () => {
    const { app, port } = startApp({ RATE_LIMIT_MAX: "3" });
    try {
      for (let i = 0; i < 3; i++)
        expect((await rawRequest(port, requestText("GET", "/api/v1/stats", port, "plain"))).status).toBe(200);
      const dataTargets = [
        "/api/v1/endpoints?limit=100&page=1",
        "/api/v1/stats",
        "/api/v1/vendors",
        "/api/v1/endpoints/abc",
        "/api/v1/endpoints/abc/capabilities",
      ];
      for (const variant of Object.keys(HOSTS))
        for (const target of [...dataTargets, ...EXEMPT_PREFIXES.flatMap((p) => dataTargets.map((t) => p + t))]) {
          const response = await rawRequest(port, requestText("GET", target, port, variant));
          expect({ variant, target, status: response.status }).toEqual({ variant, target, status: 429 });
          expect(response.headers["retry-after"]).toBeDefined();
          expect(response.headers["ratelimit-remaining"]).toBe("0");
        }
    } finally {
      app.stop(true);
    }
  });

  test("/health, /docs, /docs/json and /metrics are never limited, whatever the Host", async () => {
    const { app, port } = startApp({ RATE_LIMIT_MAX: "2" });
    try {
      for (const variant of Object.keys(HOSTS))
        for (const target of ["/health", "/docs", "/docs/json", "/metrics"])
          for (let i = 0; i < 4; i++) {
            const response = await rawRequest(port, requestText("GET", target, port, variant));
            expect({ variant, target, status: response.status }).toEqual({ variant, target, status: 200 });
            expect({ variant, target, limit: response.headers["ratelimit-limit"] }).toEqual({
              variant,
              target,
              limit: undefined,
            });
          }
    } finally {
      app.stop(true);
    }
  });
});

describe("a request Bun left with a relative URL", () => {
  test("is measured once, under its route, and keeps its client address", async () => {
    const { app, port } = startApp({ RATE_LIMIT_MAX: "100" });
    try {
      for (let i = 0; i < 3; i++) await rawRequest(port, requestText("GET", "/health", port, "HTTP/1.0 without host"));
      const stats = await rawRequest(port, requestText("GET", "/api/v1/stats", port, "empty host"));
      expect(stats.headers["ratelimit-remaining"]).toBe("99");
      // The same client, now with a Host: its count goes on.
      const again = await rawRequest(port, requestText("GET", "/api/v1/stats", port, "plain"));
      expect(again.headers["ratelimit-remaining"]).toBe("98");
      // Metrics are recorded once a response is sent: read them until the last one is in (a
      // fixed wait could fall short on a busy machine).
      const statsCounted = 'http_requests_total{route="/api/v1/stats",method="GET",status="200"} 2';
      let metrics = "";
      for (let i = 0; i < 200 && !metrics.includes(statsCounted); i++) {
        if (i > 0) await Bun.sleep(10);
        metrics = (await rawRequest(port, requestText("GET", "/metrics", port, "plain"))).body;
      }
      expect(metrics).toContain('http_requests_total{route="/health",method="GET",status="200"} 3');
      expect(metrics).toContain('http_requests_total{route="/api/v1/stats",method="GET",status="200"} 2');
      expect(metrics).not.toContain("unmatched");
    } finally {
      app.stop(true);
    }
  });
});
