import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { loadConfig } from "../../../src/config";
import { createTestApp } from "../../support/app";
import { fixtureDb } from "../../support/fixture";
import { requestLog } from "../../support/request-log";

/**
 * Every answer leaves through one place, whichever way the app found it: the hook chain, an
 * answer kept from an earlier request, a CORS preflight, a direct route, Bun's router calling a
 * static route, an error, a relative request line. Each must give exactly one log line with its
 * own status, and one count in the metrics.
 */
const { log, requests, logged } = requestLog("info");
const app = createTestApp({ db: fixtureDb(), config: loadConfig({ RATE_LIMIT_MAX: "1000" }), log });
let base = "";

beforeAll(() => {
  app.listen({ port: 0, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${app.server!.port}`;
});
afterAll(() => app.stop(true));

/** A request line written as is over TCP: fetch would never send it without a Host. */
function withoutHost(path: string, id: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = "";
    const socket = connect(app.server!.port!, "127.0.0.1", () =>
      socket.write(`GET ${path} HTTP/1.0\r\nX-Request-Id: ${id}\r\n\r\n`),
    );
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(Number(text.split(" ")[1])));
  });
}

describe("each answer is observed once", () => {
  test("chain, kept, preflight, direct, static, errors, FHIR and a request without Host: one line each, with its status", async () => {
    const list = (await (await fetch(`${base}/api/v1/endpoints?limit=1`)).json()) as { data: { id: string }[] };
    const id = list.data[0]!.id;
    const sent: Record<string, { path: string; method: string }> = {
      chain: { path: "/api/v1/endpoints?state=MA", method: "GET" },
      kept: { path: "/api/v1/endpoints?state=MA", method: "GET" },
      preflight: { path: "/api/v1/stats", method: "OPTIONS" },
      direct: { path: `/api/v1/endpoints/${id}`, method: "GET" },
      "direct refused": { path: `/api/v1/endpoints/${id}?x=1`, method: "GET" },
      static: { path: "/api/v1/stats", method: "GET" },
      head: { path: "/api/v1/stats", method: "HEAD" },
      unknown: { path: "/nope", method: "GET" },
      "wrong method": { path: "/api/v1/stats", method: "DELETE" },
      fhir: { path: "/fhir/Endpoint?_count=1", method: "GET" },
      health: { path: "/health", method: "GET" },
    };
    const before = requests().length;
    const statuses: Record<string, number> = {};
    for (const [name, { path, method }] of Object.entries(sent)) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { "x-request-id": `each-${name.replace(" ", "-")}` },
      });
      await response.arrayBuffer();
      statuses[`each-${name.replace(" ", "-")}`] = response.status;
    }
    statuses["each-no-host"] = await withoutHost("/api/v1/stats", "each-no-host");
    const count = Object.keys(statuses).length;
    await logged(before + count);
    await Bun.sleep(20); // a second line for any of them would be written by now
    const lines = requests().slice(before);
    expect(lines).toHaveLength(count);
    for (const [requestId, status] of Object.entries(statuses))
      expect(lines.filter((line) => line.requestId === requestId).map((line) => line.status)).toEqual([status]);
    expect(statuses).toMatchObject({
      "each-chain": 200,
      "each-kept": 200,
      "each-preflight": 204,
      "each-direct": 200,
      "each-direct-refused": 400,
      "each-static": 200,
      "each-unknown": 404,
      "each-wrong-method": 405,
      "each-no-host": 200,
    });
    const labels = Object.fromEntries(lines.map((line) => [line.requestId, line.route]));
    expect(labels["each-direct"]).toBe("/api/v1/endpoints/:id");
    expect(labels["each-preflight"]).toBe("/api/v1/stats");
    expect(labels["each-no-host"]).toBe("/api/v1/stats");
    expect(labels["each-unknown"]).toBe("unmatched");

    const metrics = await (await fetch(`${base}/metrics`)).text();
    const counted = metrics
      .split("\n")
      .filter((line) => line.startsWith("http_requests_total{"))
      .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
    // Every request this file sent before /metrics: the first list request and the ones above.
    expect(counted).toBe(1 + count);
  });
});
