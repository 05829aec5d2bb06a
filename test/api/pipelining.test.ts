import { describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { createApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { fixtureDb } from "../support/fixture";

/**
 * HTTP/1.1 pipelining (RFC 9112 §9.3.2): a client may write several requests on one connection
 * without waiting, and the server answers every one, in order. The requests are written in one
 * piece over raw TCP (fetch never pipelines); each carries its own X-Request-Id, which its answer
 * echoes, so the order of the answers is checked as well as their content. The last request says
 * `Connection: close`, so the server closes once it has answered them all.
 */

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Every answer in `raw`, read one after another (Content-Length or chunked; a 304 has no body). */
function parseAnswers(raw: Buffer): Answer[] {
  const text = raw.toString("latin1");
  const answers: Answer[] = [];
  let at = 0;
  while (at < text.length) {
    const split = text.indexOf("\r\n\r\n", at);
    if (split < 0) throw new Error(`an incomplete answer: ${JSON.stringify(text.slice(at, at + 200))}`);
    const [statusLine = "", ...lines] = text.slice(at, split).split("\r\n");
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(statusLine.split(" ")[1]);
    at = split + 4;
    let body = "";
    if (headers["transfer-encoding"] === "chunked") {
      for (;;) {
        const end = text.indexOf("\r\n", at);
        const size = Number.parseInt(text.slice(at, end), 16);
        at = end + 2;
        if (!size) {
          at += 2;
          break;
        }
        body += text.slice(at, at + size);
        at += size + 2;
      }
    } else if (status !== 304 && status !== 204) {
      const length = Number(headers["content-length"] ?? 0);
      body = text.slice(at, at + length);
      at += length;
    }
    answers.push({ status, headers, body: Buffer.from(body, "latin1").toString("utf8") });
  }
  return answers;
}

/** Writes `requests` in one piece on one connection; resolves with every byte read until the server closes. */
function pipeline(port: number, requests: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, "127.0.0.1", () => socket.write(requests.join("")));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks)));
  });
}

interface Call {
  name: string;
  path: string;
  headers?: Record<string, string>;
}

const requestText = (call: Call, id: string, last: boolean) =>
  [
    `GET ${call.path} HTTP/1.1`,
    "Host: 127.0.0.1",
    `X-Request-Id: ${id}`,
    ...Object.entries(call.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    ...(last ? ["Connection: close"] : []),
    "",
    "",
  ].join("\r\n");

function startApp() {
  const app = createApp({
    db: fixtureDb(),
    config: loadConfig({ LOG_LEVEL: "error", RATE_LIMIT_MAX: "100000", RATE_LIMIT_WINDOW_SECONDS: "3600" }),
    clock: () => new Date("2026-11-25T12:00:10.000Z"),
  });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  return app;
}

/** Every route a client reads, its errors and its 304s; ids and ETags read from a server of the same data. */
async function catalogue(): Promise<Call[]> {
  const app = startApp();
  try {
    const root = `http://127.0.0.1:${app.server!.port}`;
    const list = (await (await fetch(`${root}/api/v1/endpoints?limit=3`)).json()) as { data: { id: string }[] };
    const [a, b, c] = list.data.map((entry) => entry.id);
    const etagOf = async (path: string) => (await fetch(`${root}${path}`)).headers.get("etag")!;
    const calls: Call[] = [
      { name: "by id", path: `/api/v1/endpoints/${a}` },
      { name: "capabilities", path: `/api/v1/endpoints/${b}/capabilities` },
      { name: "availability", path: `/api/v1/endpoints/${c}/availability` },
      { name: "list", path: "/api/v1/endpoints?limit=2" },
      { name: "filtered list", path: "/api/v1/endpoints?state=MA&limit=5" },
      { name: "vendors", path: "/api/v1/vendors" },
      { name: "stats", path: "/api/v1/stats" },
      { name: "health", path: "/health" },
      { name: "unknown id", path: `/api/v1/endpoints/${"0".repeat(64)}` },
      { name: "bad query", path: "/api/v1/endpoints?limit=0" },
      { name: "unknown route", path: "/api/v1/nothing-here" },
    ];
    for (const path of [`/api/v1/endpoints/${a}`, `/api/v1/endpoints/${c}/availability`, "/api/v1/stats"])
      calls.push({ name: `304 of ${path}`, path, headers: { "If-None-Match": await etagOf(path) } });
    return calls;
  } finally {
    app.stop(true);
  }
}

/** What each call answers on its own, by fetch: status and body. */
async function alone(port: number, calls: Call[]) {
  const out: { status: number; body: string }[] = [];
  for (const call of calls) {
    const response = await fetch(`http://127.0.0.1:${port}${call.path}`, { headers: call.headers });
    out.push({ status: response.status, body: await response.text() });
  }
  return out;
}

describe("pipelined requests are all answered, in order", async () => {
  const calls = await catalogue();
  // Each pipeline of n takes n calls in a row, starting at every call in turn, so every route is
  // asked first, in the middle and last (with Connection: close).
  const pipelinesOf = (n: number) =>
    calls.map((_, start) => Array.from({ length: n }, (_, i) => calls[(start + i) % calls.length]!));

  for (const n of [3, 6, 10])
    for (const state of ["cold", "cached"] as const)
      test(`pipelines of ${n}, ${state}`, async () => {
        // What each call answers on its own; the cached server has answered every call once.
        const reference = startApp();
        const warm = startApp();
        try {
          const expected = await alone(reference.server!.port!, calls);
          await alone(warm.server!.port!, calls);
          for (const [start, batch] of pipelinesOf(n).entries()) {
            // Cold: a server that has answered nothing yet.
            const app = state === "cold" ? startApp() : warm;
            try {
              const ids = batch.map((call, i) => `pipe-${i}-${call.name.replace(/[^a-z0-9]+/gi, "-")}`);
              const raw = await pipeline(
                app.server!.port!,
                batch.map((call, i) => requestText(call, ids[i]!, i === batch.length - 1)),
              );
              const answers = parseAnswers(raw);
              expect(answers.map((answer) => answer.headers["x-request-id"])).toEqual(ids);
              expect(answers.map(({ status, body }) => ({ status, body }))).toEqual(
                batch.map((_, i) => expected[(start + i) % calls.length]!),
              );
            } finally {
              if (app !== warm) app.stop(true);
            }
          }
        } finally {
          reference.stop(true);
          warm.stop(true);
        }
      });
});
