/**
 * Hostile input on every route, seeded-random: never a 5xx, never a stack trace or SQL,
 * always the JSON envelope (the docs page, its assets and /metrics aside), always X-Request-Id and
 * nosniff, no Server / X-Powered-By version. Through app.handle for everything a Request can carry,
 * and through raw TCP to a real server for what it cannot (bytes the URL parser would normalise,
 * very long request lines, odd methods, malformed headers).
 *
 * HARDENING_SEED=<n> replays a run; every failure message names the seed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { ingestFile } from "../../../src/pipeline/ingest";
import { createTestApp } from "../../support/app";
import { fixtureApp, fixtureDb } from "../../support/fixture";
import { type ServerProcess, startServer } from "../../support/server-process";

const SEED = Number(process.env.HARDENING_SEED ?? 20261126);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const JSON_TYPE = "application/json; charset=utf-8";
/** What a body must never contain: stack frames, file paths, runtime error names, SQL/driver text. */
const LEAKS: [RegExp, string][] = [
  [/\bat [^\s]+ \(.*:\d+:\d+\)|\bat .*\.ts:\d+/, "stack frame"],
  [/\.tsx?:\d+/, "source file position"],
  [/node_modules|\/work\/|\/src\/|\/tmp\//, "file path"],
  [/\b(?:TypeError|RangeError|ReferenceError|URIError|SyntaxError|SQLiteError)\b/, "runtime error name"],
  [/SQLITE_|no such (?:table|column)|near "[^"]*": syntax error|\bFROM entries\b|drizzle/i, "SQL or driver text"],
];
const EXPECTED_CODES: Record<number, string[]> = {
  400: ["VALIDATION_ERROR"],
  401: ["INVALID_API_KEY"],
  404: ["NOT_FOUND", "ENDPOINT_NOT_FOUND"],
  405: ["METHOD_NOT_ALLOWED"],
  429: ["TOO_MANY_REQUESTS"],
};

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One generator per test, derived from the seed and the test's name, so tests replay independently. */
function generator(name: string) {
  const random = mulberry32(SEED ^ Number(Bun.hash.wyhash(name) & 0xffffffffn));
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  return { random, int, pick, chance: (p: number) => random() < p };
}
type Gen = ReturnType<typeof generator>;

const LIST_KEYS = [
  "query",
  "vendor",
  "state",
  "fhirVersion",
  "access",
  "hasResource",
  "smartSupported",
  "page",
  "limit",
];
const JUNK_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "page[]",
  "limit[0]",
  "a.b",
  "",
  " ",
  "Query",
  "LIMIT",
  "q\u0000",
  "ключ",
  "🔑",
  "x".repeat(10_240),
  "%zz",
  "%",
  "%E0%A4%A",
  "%00",
  "%C0%AF",
];
const TEN_KB = "A".repeat(10_240);
/** Names every plain object answers to: lookups keyed by user input must not find them. */
const PROTO_NAMES = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
  "isPrototypeOf",
];

function value(g: Gen): string {
  return g.pick([
    "",
    " ",
    "1",
    "0",
    "-1",
    "1000",
    "1001",
    "100",
    "101",
    "25",
    "1e3",
    "1.0",
    "1.5",
    "0x10",
    "+5",
    " 5",
    "5 ",
    "01",
    "99999999999999999999",
    "NaN",
    "Infinity",
    "-0",
    "null",
    "undefined",
    "true",
    "false",
    "TRUE",
    "R4",
    "r4",
    "DSTU2",
    "R4B",
    "R5",
    "UNKNOWN",
    "patient",
    "provider",
    "PATIENT",
    "CA",
    "ca",
    "ZZ",
    "C",
    "CAL",
    "epic",
    "EPIC",
    "oracle-health",
    "Patient",
    "Patient,Observation",
    "Patient,,Observation",
    ",",
    "Patient ,  Condition",
    "patient",
    "A",
    "Patient,".repeat(30),
    "Pat1ent",
    "mass gen",
    "Clínica Señor",
    "CLÍNICA",
    "O'Brien",
    "%",
    "_",
    "*",
    '"',
    "(",
    ":",
    "' OR 1=1 --",
    "'; DROP TABLE entries; --",
    '" OR ""="',
    "1; SELECT 1",
    "$where",
    '{"$gt":""}',
    "[]",
    "{}",
    "\u0000",
    "a\u0000b",
    "\u202e\u0645\u0631\u062d\u0628\u0627",
    "e\u0301",
    "😀".repeat(50),
    "\ud800",
    "\udfff",
    "\uffff",
    "\u200b",
    "\t\n\r",
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "%2e%2e%2f",
    TEN_KB,
    "é".repeat(5_000),
    "%zz",
    "%",
    "%4",
    "%%",
    "%E0%A4%A",
    "%ED%A0%80",
    "%FF",
    "%C0%80",
    "%00",
    "%0A",
    "%2526",
    "+",
    "++",
    "%20%20",
    ...PROTO_NAMES,
    "Constructor",
    "Patient,Constructor",
  ]);
}

/** Either percent-encoded, or raw (the URL parser then encodes what it must and keeps the rest). */
/** encodeURIComponent, except for lone surrogates, which stay raw (the URL parser makes them U+FFFD). */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text;
  }
}

function encodePart(g: Gen, text: string): string {
  return g.chance(0.5) ? text : encode(text);
}

function randomQuery(g: Gen, keys: readonly string[]): string {
  const parts: string[] = [];
  const count = g.int(5);
  for (let i = 0; i < count; i++) {
    const key = g.chance(0.75) ? g.pick(keys) : g.pick(JUNK_KEYS);
    const form = g.int(10);
    if (form === 0) parts.push(encodePart(g, key));
    else if (form === 1) parts.push(`${encodePart(g, key)}=`);
    else parts.push(`${encodePart(g, key)}=${encodePart(g, value(g))}`);
    if (g.chance(0.1)) parts.push(parts.at(-1)!); // repeated parameter
  }
  if (g.chance(0.05)) parts.push("");
  return parts.length === 0 ? "" : `?${parts.join(g.chance(0.9) ? "&" : "&&")}`;
}

function randomId(g: Gen, realIds: readonly string[]): string {
  return g.pick([
    () => g.pick(realIds),
    () => g.pick(realIds).toUpperCase(),
    () => "0".repeat(64),
    () => "f".repeat(65),
    () => encode(value(g)),
    () => value(g).replaceAll("/", "%2F").replaceAll("?", "%3F").replaceAll("#", "%23").replaceAll(" ", "%20"),
    () => "%2F..%2F..%2Fetc%2Fpasswd",
    () => "a".repeat(g.pick([1, 100, 2_000, 8_000])),
    () => "%00",
    () => "%zz",
  ])();
}

function randomPath(g: Gen, realIds: readonly string[]): { path: string; keys: readonly string[] } {
  const id = () => randomId(g, realIds);
  const choice = g.int(16);
  switch (choice) {
    case 0:
      return { path: "/health", keys: ["t", "cachebuster"] };
    case 1:
    case 2:
    case 3:
    case 4:
      return { path: "/api/v1/endpoints", keys: LIST_KEYS };
    case 5:
    case 6:
      return { path: `/api/v1/endpoints/${id()}`, keys: LIST_KEYS };
    case 7:
      return { path: `/api/v1/endpoints/${id()}/capabilities`, keys: LIST_KEYS };
    case 8:
      return { path: "/api/v1/vendors", keys: LIST_KEYS };
    case 9:
      return { path: "/api/v1/stats", keys: LIST_KEYS };
    case 10:
      return {
        path: g.pick([
          "/docs",
          "/docs/json",
          "/metrics",
          "/docs/assets/swagger-ui.css",
          "/docs/assets/..%2F..%2Fpackage.json",
          "/docs/assets/nope.js",
          `/docs/assets/${g.pick(PROTO_NAMES)}`,
        ]),
        keys: ["x"],
      };
    case 11:
      return {
        path: g.pick([
          "/api/v1/endpoints/",
          "/api/v1//endpoints",
          "/API/V1/ENDPOINTS",
          "/api/v1/endpoints/%2F",
          "/api/v2/endpoints",
          "/api/v1",
          "/api",
          "/",
          "//",
          "/.env",
          "/api/v1/endpoints/x/capabilities/extra",
        ]),
        keys: LIST_KEYS,
      };
    case 12:
      return { path: `/api/v1/${encode(value(g))}`, keys: LIST_KEYS };
    case 13:
      return { path: `/${encode(value(g))}/${encode(value(g))}`, keys: LIST_KEYS };
    default:
      return { path: "/api/v1/endpoints", keys: LIST_KEYS };
  }
}

/** Methods a client sends, standard and WebDAV. */
const COMMON_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH", "PROPFIND"];
/** What the random requests use: mostly GET. */
const METHODS = [...Array<string>(5).fill("GET"), ...COMMON_METHODS, "REPORT"];

function randomHeaders(g: Gen): Record<string, string> {
  const headers: Record<string, string> = {};
  const pool: [string, () => string][] = [
    ["if-none-match", () => "*"],
    ["if-none-match", () => g.pick(["*", 'W/"1-abc"', '"x"', "W/", ",,,", TEN_KB, `W/"1-${"a".repeat(500)}"`])],
    [
      "accept-encoding",
      () =>
        g.pick(["gzip", "br", "br;q=0, gzip", "*;q=0", "identity", "gzip;q=abc", "x".repeat(5_000), ",", "deflate"]),
    ],
    [
      "x-request-id",
      () => g.pick(["abc-123", "", "has space", "<script>", "a".repeat(129), "a".repeat(128), TEN_KB, "ü"]),
    ],
    [
      "authorization",
      () =>
        g.pick(["Bearer", "Bearer ", "Bearer edk_nope", "Basic dXNlcjpwYXNz", `bearer ${TEN_KB}`, "Token x", "\u00ff"]),
    ],
    ["x-api-key", () => g.pick(["", " ", "edk_nope", TEN_KB, "' OR 1=1 --"])],
    ["accept", () => g.pick(["text/html", "application/xml", "*/*", "application/fhir+json", "", TEN_KB])],
    [
      "content-type",
      () =>
        g.pick([
          "application/json",
          "text/plain",
          "multipart/form-data; boundary=x",
          "application/x-www-form-urlencoded",
          "\u00e9",
        ]),
    ],
    ["x-forwarded-for", () => g.pick(["1.2.3.4", "garbage", ", , ,", "::1", TEN_KB])],
    ["fly-client-ip", () => g.pick(["1.2.3.4", "", "999.999.999.999"])],
    ["range", () => g.pick(["bytes=0-10", "bytes=-1", "lines=1-2"])],
    ["cookie", () => TEN_KB],
    ["origin", () => g.pick(["https://evil.example", "null"])],
    ["access-control-request-method", () => g.pick(["GET", "DELETE"])],
  ];
  for (let i = g.int(4); i > 0; i--) {
    const [name, make] = g.pick(pool);
    // Header values are bytes; characters above U+00FF cannot be sent.
    headers[name] = make()
      .replace(/[^\u0000-\u00ff]/g, "?")
      .replace(/[\u0000\r\n]/g, "");
  }
  return headers;
}

function randomBody(g: Gen): string | undefined {
  return g.pick([undefined, "", "{}", '{"query":"x"}', "{not json", "a=1&b=2", TEN_KB, "\u0000\u0001"]);
}

interface Seen {
  status: number;
  headers: Headers | Map<string, string>;
  body: string;
}

const header = (h: Headers | Map<string, string>, name: string) =>
  h instanceof Headers ? h.get(name) : (h.get(name) ?? null);

/** Answers outside the envelope the contract allows: the docs and search pages, their assets, metrics text. */
function nonJsonAllowed(path: string, status: number): boolean {
  const asset = /^\/docs\/assets\/swagger-ui(-bundle)?\.(css|js)$/.test(path);
  if (asset) return status === 200 || status === 206 || status === 416; // static files honour Range
  if (/^\/assets\/main-[a-z0-9]+\.(css|js)$/.test(path)) return status === 200;
  return status === 200 && (path === "/" || path === "/docs" || path === "/metrics");
}

/** Every problem with one response, as readable lines (empty when it is fine). */
function problems(method: string, path: string, seen: Seen, onTheWire = false): string[] {
  const out: string[] = [];
  const { status, headers, body } = seen;
  if (status >= 500) out.push(`status ${status}`);
  const requestId = header(headers, "x-request-id");
  if (requestId === null || !REQUEST_ID.test(requestId))
    out.push(`X-Request-Id ${JSON.stringify(requestId?.slice(0, 40))}`);
  if (header(headers, "x-content-type-options") !== "nosniff") out.push("no X-Content-Type-Options: nosniff");
  if (header(headers, "x-powered-by") !== null) out.push(`X-Powered-By: ${header(headers, "x-powered-by")}`);
  const server = header(headers, "server");
  if (server !== null && /\d|bun|elysia|uws/i.test(server)) out.push(`Server: ${server}`);
  for (const [pattern, what] of LEAKS) if (pattern.test(body)) out.push(`${what} in the body: ${body.slice(0, 200)}`);
  const bodiless = method === "HEAD" || status === 204 || status === 304;
  if (bodiless) {
    // On the wire Bun drops the body of a HEAD answer; app.handle keeps the Response as built.
    if (body !== "" && !(method === "HEAD" && !onTheWire)) out.push(`a ${method} ${status} with a body`);
    return out;
  }
  if (nonJsonAllowed(path, status)) return out;
  if (path === "/docs/json" && status === 200) {
    // The OpenAPI document: JSON (the plugin writes the type without the space), not an envelope.
    if (!/^application\/json; ?charset=utf-8$/.test(header(headers, "content-type") ?? ""))
      out.push(`Content-Type ${header(headers, "content-type")}`);
    return out;
  }
  const type = header(headers, "content-type");
  if (type !== JSON_TYPE) out.push(`Content-Type ${type}`);
  let envelope: { success?: unknown; data?: unknown; error?: { code?: unknown; message?: unknown } };
  try {
    envelope = JSON.parse(body);
  } catch {
    out.push(`body is not JSON: ${body.slice(0, 120)}`);
    return out;
  }
  if (status < 400) {
    if (envelope.success !== true || !("data" in envelope)) out.push(`${status} without a success envelope`);
  } else {
    if (
      envelope.success !== false ||
      typeof envelope.error?.code !== "string" ||
      typeof envelope.error?.message !== "string"
    )
      out.push(`${status} without an error envelope`);
    else if (EXPECTED_CODES[status] && !EXPECTED_CODES[status]!.includes(envelope.error.code as string))
      out.push(`${status} with code ${envelope.error.code}`);
    if (status === 405 && !header(headers, "allow")) out.push("405 without Allow");
    if (status === 429 && !header(headers, "retry-after")) out.push("429 without Retry-After");
  }
  return out;
}

const shorten = (text: string) => (text.length > 160 ? `${text.slice(0, 160)}…(${text.length} chars)` : text);

function report(failures: string[]) {
  if (failures.length > 0) {
    throw new Error(
      `HARDENING_SEED=${SEED}: ${failures.length} bad responses; replay with HARDENING_SEED=${SEED}\n${failures.slice(0, 15).join("\n")}`,
    );
  }
}

async function viaApp(
  app: { handle(r: Request): Promise<Response> },
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Seen> {
  const init: RequestInit = { method, headers };
  if (body !== undefined && method !== "GET" && method !== "HEAD") init.body = body;
  const response = await app.handle(new Request(`http://localhost${target}`, init));
  let bytes = new Uint8Array(await response.arrayBuffer()) as Uint8Array<ArrayBuffer>;
  const encoding = response.headers.get("content-encoding");
  try {
    if (bytes.length > 0 && encoding === "gzip") bytes = Bun.gunzipSync(bytes) as Uint8Array<ArrayBuffer>;
    else if (bytes.length > 0 && encoding === "br") bytes = new Uint8Array(brotliDecompressSync(bytes));
  } catch (error) {
    return {
      status: response.status,
      headers: response.headers,
      body: `<${bytes.length} bytes that are not valid ${encoding}: ${error}>`,
    };
  }
  return { status: response.status, headers: response.headers, body: new TextDecoder().decode(bytes) };
}

const realIds: string[] = [];
/** The routes the forms and methods below are tried on (an id once realIds holds them). */
const apiRoutes = () => [
  "/api/v1/endpoints",
  `/api/v1/endpoints/${realIds[0]}`,
  `/api/v1/endpoints/${realIds[0]}/capabilities`,
  "/api/v1/vendors",
  "/api/v1/stats",
  "/health",
];

describe(`hostile input through app.handle (HARDENING_SEED=${SEED})`, () => {
  const { app } = fixtureApp({ LOG_LEVEL: "error" });
  const limited = fixtureApp({ LOG_LEVEL: "error", RATE_LIMIT_MAX: "40", TRUST_PROXY: "true" }).app;

  beforeAll(async () => {
    const list = await viaApp(app, "GET", "/api/v1/endpoints?limit=100", {});
    realIds.push(...(JSON.parse(list.body).data as { id: string }[]).map((e) => e.id));
    // The fixture's 12 entries but its removed one, which the list operation leaves out.
    expect(realIds.length).toBe(11);
  }, 30_000);

  test("3,000 random requests: methods, paths, query strings, headers and bodies", async () => {
    const g = generator("random requests");
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 3000; i++) {
      const { path, keys } = randomPath(g, realIds);
      const target = path + randomQuery(g, keys);
      const method = g.pick(METHODS);
      const headers = randomHeaders(g);
      const body = randomBody(g);
      let seen: Seen;
      try {
        seen = await viaApp(i % 5 === 0 ? limited : app, method, target, headers, body);
      } catch (error) {
        // A Request the fetch API itself refuses to build (forbidden method, bad header) is not a server answer.
        if (error instanceof TypeError && !String(error.message).includes("handle")) continue;
        throw error;
      }
      statuses.set(seen.status, (statuses.get(seen.status) ?? 0) + 1);
      const found = problems(method.toUpperCase(), new URL(`http://localhost${target}`).pathname, seen);
      if (found.length > 0)
        failures.push(
          `#${i} ${method} ${shorten(target)} ${JSON.stringify(headers).slice(0, 120)} → ${seen.status}: ${found.join("; ")}`,
        );
    }
    report(failures);
    // The generator reaches every kind of answer, or the test proves little.
    const missing = [200, 204, 304, 400, 401, 404, 405, 429].filter((status) => !statuses.has(status));
    if (missing.length > 0)
      throw new Error(`HARDENING_SEED=${SEED}: no ${missing.join(", ")} among ${JSON.stringify([...statuses])}`);
  });

  test("the forms the issue names, on every route", async () => {
    const failures: string[] = [];
    const routes = apiRoutes();
    const queries: [string, number | null][] = [
      ["limit=1&limit=2", 400],
      ["query=a&query=b", 400],
      ["page=1&page=1", 400],
      ["query=%zz", 400],
      ["query=%", 400],
      ["%zz=1", 400],
      ["query=%E0%A4%A", 400],
      ["query=%ED%A0%80", 400],
      ["query=%00", null],
      ["query=a%00b", null],
      [`query=${encodeURIComponent("Clínica 😀 \u202e")}`, null],
      [`query=${TEN_KB}`, 400],
      [`vendor=${TEN_KB}`, 400],
      [`hasResource=${TEN_KB}`, 400],
      [`state=${TEN_KB}`, 400],
      [`page=${"9".repeat(10_240)}`, 400],
      [`${TEN_KB}=1`, 400],
      ["__proto__=1", 400],
      ["constructor=1", 400],
      ["page[]=1", 400],
      ["limit=1e1", 400],
      ["limit=0x10", 400],
      ["limit=-1", 400],
      ["page=1.0", 400],
      ["limit= 5", 400],
    ];
    for (const route of routes) {
      for (const [query, listStatus] of queries) {
        const target = `${route}?${query}`;
        const seen = await viaApp(app, "GET", target, {});
        const found = problems("GET", route, seen);
        // Parameterless operations answer any parameter with 400; /health ignores them.
        const expected = route === "/health" ? 200 : route === "/api/v1/endpoints" ? listStatus : 400;
        if (expected !== null && seen.status !== expected) found.push(`expected ${expected}`);
        if (found.length > 0)
          failures.push(`GET ${shorten(target)} → ${seen.status}: ${found.join("; ")} ${seen.body.slice(0, 120)}`);
      }
    }
    report(failures);
    const repeated = await viaApp(app, "GET", "/api/v1/endpoints?limit=1&limit=2", {});
    expect(JSON.parse(repeated.body).error.message).toBe("limit: given more than once");
  });

  test("Object.prototype names as path segments: 404 in the envelope (an asset lookup once found them)", async () => {
    const failures: string[] = [];
    for (const name of PROTO_NAMES) {
      for (const path of [
        `/docs/assets/${name}`,
        `/api/v1/endpoints/${name}`,
        `/api/v1/endpoints/${name}/capabilities`,
        `/${name}`,
        `/api/v1/${name}`,
      ]) {
        let seen: Seen;
        try {
          seen = await viaApp(app, "GET", path, {});
        } catch (error) {
          failures.push(`GET ${path}: the response body failed: ${String(error).slice(0, 120)}`);
          continue;
        }
        const found = problems("GET", path, seen);
        if (seen.status !== 404) found.push("expected 404");
        if (found.length > 0) failures.push(`GET ${path} → ${seen.status}: ${found.join("; ")}`);
      }
    }
    report(failures);
  });

  test("every method on every route: 405 with Allow, or 404, or the answer of GET; never 5xx", async () => {
    const failures: string[] = [];
    const routes = [...apiRoutes(), "/docs", "/docs/json", "/metrics", "/nope"];
    for (const route of routes) {
      // Methods Bun's HTTP parser accepts (an unknown token never reaches the app; see the raw tests).
      for (const method of [...COMMON_METHODS, "MKCOL", "LOCK", "QUERY", "PURGE"]) {
        const seen = await viaApp(
          app,
          method,
          route,
          { "content-type": "application/json" },
          method === "GET" || method === "HEAD" ? undefined : '{"a":1}',
        );
        const found = problems(method, route, seen);
        if (!["GET", "HEAD", "OPTIONS"].includes(method) && route !== "/nope" && seen.status !== 405)
          found.push("expected 405");
        if (found.length > 0) failures.push(`${method} ${route} → ${seen.status}: ${found.join("; ")}`);
      }
    }
    report(failures);
  });
});

// ---------------------------------------------------------------------------------------------
// A real server, raw TCP.

interface RawAnswer {
  /** null: the connection closed without any response. */
  status: number | null;
  headers: Map<string, string>;
  body: string;
  raw: string;
}

async function rawRequest(port: number, bytes: string | Uint8Array, timeoutMs = 5000): Promise<RawAnswer> {
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(socket) {
          socket.write(bytes);
          socket.flush();
        },
        data(_socket, data) {
          chunks.push(Buffer.from(data));
        },
        close() {
          clearTimeout(timer);
          resolve();
        },
        error() {
          clearTimeout(timer);
          resolve();
        },
      },
    }).catch(reject);
  });
  const raw = Buffer.concat(chunks).toString("latin1");
  const end = raw.indexOf("\r\n\r\n");
  if (!raw.startsWith("HTTP/1.1 ") || end === -1) return { status: null, headers: new Map(), body: "", raw };
  const lines = raw.slice(0, end).split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = Buffer.from(raw.slice(end + 4), "latin1");
  if (headers.get("transfer-encoding") === "chunked") {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf("\r\n", at);
      const size = parseInt(body.subarray(at, lineEnd).toString(), 16);
      if (!size) break;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else if (headers.has("content-length")) {
    // Anything after it is a second answer (to bytes the server read as another request).
    body = body.subarray(0, Number(headers.get("content-length")));
  }
  const encoding = headers.get("content-encoding");
  if (body.length > 0 && encoding === "gzip") body = Buffer.from(Bun.gunzipSync(body));
  else if (body.length > 0 && encoding === "br") body = brotliDecompressSync(body);
  return { status: Number(lines[0]!.split(" ")[1]), headers, body: body.toString("utf8"), raw };
}

const request = (line: string, headers: string[] = [], body = "") =>
  `${line}\r\n${["Host: 127.0.0.1", ...headers, "Connection: close"].join("\r\n")}\r\n\r\n${body}`;

describe(`hostile input over raw TCP to a real server (HARDENING_SEED=${SEED})`, () => {
  let server: ServerProcess;
  let port: number;
  let ids: string[] = [];
  beforeAll(async () => {
    server = await startServer({ DATABASE_PATH: fixtureDb().path, RATE_LIMIT_MAX: "100000", TRUST_PROXY: "" });
    port = Number(new URL(server.baseUrl).port);
    const list = await fetch(`${server.baseUrl}/api/v1/endpoints?limit=100`);
    ids = ((await list.json()) as { data: { id: string }[] }).data.map((e) => e.id);
  }, 30_000);
  afterAll(() => server?.stop());

  /** Requests that are valid HTTP/1.x: they reach the API, and every answer is the API's own. */
  test("well-formed HTTP the URL parser would normalise reaches the API and gets the envelope", async () => {
    const id = ids[0]!;
    const cases: [string, string, number | null][] = [
      ["5 KB id", request(`GET /api/v1/endpoints/${"a".repeat(5_000)} HTTP/1.1`), 404],
      ["10 KB query value", request(`GET /api/v1/endpoints?query=${TEN_KB} HTTP/1.1`), 400],
      ["10 KB header value", request("GET /api/v1/stats HTTP/1.1", [`X-Long: ${TEN_KB}`]), 200],
      ["10 KB X-Request-Id", request("GET /api/v1/stats HTTP/1.1", [`X-Request-Id: ${TEN_KB}`]), 200],
      ["10 KB API key", request("GET /api/v1/stats HTTP/1.1", [`X-API-Key: ${TEN_KB}`]), 401],
      ["%00 in the id", request("GET /api/v1/endpoints/a%00b HTTP/1.1"), 404],
      ["%zz in the id", request("GET /api/v1/endpoints/%zz HTTP/1.1"), 404],
      ["lone % in the id", request("GET /api/v1/endpoints/% HTTP/1.1"), 404],
      ["%zz in the query", request("GET /api/v1/endpoints?query=%zz HTTP/1.1"), 400],
      ["lone % in the query", request("GET /api/v1/endpoints?query=% HTTP/1.1"), 400],
      ["%zz as a key", request("GET /api/v1/endpoints?%zz=1 HTTP/1.1"), 400],
      ["invalid UTF-8 percent-encoded", request("GET /api/v1/endpoints?query=%C0%AF HTTP/1.1"), 400],
      ["repeated limit", request("GET /api/v1/endpoints?limit=1&limit=2 HTTP/1.1"), 400],
      [
        "raw UTF-8 bytes",
        new Uint8Array([
          ...Buffer.from("GET /api/v1/endpoints?query="),
          ...Buffer.from("Clínica 😀".replace(" ", "+")),
          ...Buffer.from(" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        ]) as unknown as string,
        200,
      ],
      [
        "raw invalid UTF-8 bytes",
        new Uint8Array([
          ...Buffer.from("GET /api/v1/endpoints?query=a"),
          0xff,
          0xfe,
          0xc0,
          ...Buffer.from(" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        ]) as unknown as string,
        null,
      ],
      [
        "raw invalid UTF-8 in the id",
        new Uint8Array([
          ...Buffer.from("GET /api/v1/endpoints/"),
          0xff,
          0xc3,
          ...Buffer.from(" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        ]) as unknown as string,
        404,
      ],
      ["unencoded quote and brackets", request(`GET /api/v1/endpoints?query="<x>"{} HTTP/1.1`), 200],
      ["absolute-form target", request("GET http://evil.example/api/v1/stats HTTP/1.1"), 200],
      ["dot segments", request("GET /api/v1/../../../etc/passwd HTTP/1.1"), 404],
      ["encoded dot segments", request("GET /api/v1/endpoints/..%2F..%2Fstats HTTP/1.1"), 404],
      ["double slashes", request("GET //api//v1//stats HTTP/1.1"), 404],
      ["backslashes (the URL parser reads them as slashes)", request("GET /api\\v1\\stats HTTP/1.1"), null],
      ["TRACE", request("TRACE /api/v1/stats HTTP/1.1"), 405],
      ["PROPFIND", request("PROPFIND /api/v1/stats HTTP/1.1"), 405],
      [
        "POST with a JSON body",
        request("POST /api/v1/endpoints HTTP/1.1", ["Content-Type: application/json", "Content-Length: 7"], '{"a":1}'),
        405,
      ],
      [
        "GET with a body",
        request("GET /api/v1/endpoints HTTP/1.1", ["Content-Type: application/json", "Content-Length: 7"], '{"a":1}'),
        200,
      ],
      [
        "GET with a chunked body",
        request("GET /api/v1/endpoints HTTP/1.1", ["Transfer-Encoding: chunked"], "3\r\nabc\r\n0\r\n\r\n"),
        200,
      ],
      ["HTTP/1.0 without Host", "GET /api/v1/stats HTTP/1.0\r\n\r\n", 200],
      ["HEAD", request(`HEAD /api/v1/endpoints/${id} HTTP/1.1`), 200],
      ["duplicate X-API-Key headers", request("GET /api/v1/stats HTTP/1.1", ["X-API-Key: a", "X-API-Key: b"]), 401],
      [
        "duplicate Authorization",
        request("GET /api/v1/stats HTTP/1.1", ["Authorization: Bearer a", "Authorization: Bearer b"]),
        401,
      ],
      [
        "odd Host",
        request("GET /api/v1/stats HTTP/1.1", ["Host: [::1]:99999"]).replace("Host: 127.0.0.1\r\n", ""),
        200,
      ],
      ["If-None-Match junk", request("GET /api/v1/stats HTTP/1.1", [`If-None-Match: ${'W/"'.repeat(1000)}`]), 200],
      [
        "Accept-Encoding junk",
        request("GET /api/v1/endpoints HTTP/1.1", ["Accept-Encoding: br;q=0.5;q=x, , gzip;;;"]),
        200,
      ],
      ["obs-text in a header", request("GET /api/v1/stats HTTP/1.1", ["X-A: caf\u00e9"]), 200],
      ...PROTO_NAMES.map((name): [string, string, number] => [
        `asset named ${name}`,
        request(`GET /docs/assets/${name} HTTP/1.1`),
        404,
      ]),
    ];
    const failures: string[] = [];
    for (const [name, bytes, expected] of cases) {
      const answer = await rawRequest(port, bytes);
      if (answer.status === null) {
        failures.push(`${name}: no HTTP response (${JSON.stringify(answer.raw.slice(0, 80))})`);
        continue;
      }
      const method = (typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("latin1")).split(" ")[0]!;
      const found = problems(method, name.includes("id") ? "/api/v1/endpoints/x" : "/api/v1", answer as Seen, true);
      if (expected !== null && answer.status !== expected) found.push(`expected ${expected}`);
      if (found.length > 0)
        failures.push(`${name} → ${answer.status}: ${found.join("; ")} ${answer.body.slice(0, 120)}`);
    }
    report(failures);
  });

  /**
   * Bytes that are not valid HTTP never reach the API: Bun's HTTP parser answers them itself
   * (400, 431, or 505 for a request line it cannot split; an unknown method just closes the
   * connection). Those answers carry no body at all, so nothing can leak, and the server keeps
   * answering. (505 for a malformed request line is Bun's choice, not the API's.)
   */
  test("invalid HTTP is refused by the HTTP layer without a body, and the server keeps answering", async () => {
    const cases: [string, string | Uint8Array][] = [
      ["20 KB path", request(`GET /api/v1/endpoints/${"a".repeat(20_000)} HTTP/1.1`)],
      ["100 KB query", request(`GET /api/v1/endpoints?query=${"a".repeat(100_000)} HTTP/1.1`)],
      ["100 KB header", request("GET /api/v1/stats HTTP/1.1", [`X-A: ${"b".repeat(100_000)}`])],
      [
        "1,000 headers",
        request(
          "GET /api/v1/stats HTTP/1.1",
          Array.from({ length: 1000 }, (_, i) => `X-H${i}: v`),
        ),
      ],
      ["NUL in the path", request("GET /api/v1/endpoints/a\u0000b HTTP/1.1")],
      ["NUL in a header value", request("GET /api/v1/stats HTTP/1.1", ["X-A: a\u0000b"])],
      ["NUL in a header name", request("GET /api/v1/stats HTTP/1.1", ["X-\u0000A: b"])],
      ["space in the path", request("GET /api/v1/end points HTTP/1.1")],
      ["header without colon", request("GET /api/v1/stats HTTP/1.1", ["NoColonHere"])],
      ["space in a header name", request("GET /api/v1/stats HTTP/1.1", ["Bad Header: y"])],
      ["CR inside a header", request("GET /api/v1/stats HTTP/1.1", ["X-A: a\rb"])],
      ["non-numeric Content-Length", request("GET /api/v1/endpoints HTTP/1.1", ["Content-Length: abc"])],
      [
        "two different Content-Lengths",
        request("POST /api/v1/endpoints HTTP/1.1", ["Content-Length: 1", "Content-Length: 2"], "ab"),
      ],
      [
        "Content-Length and chunked",
        request("POST /api/v1/endpoints HTTP/1.1", ["Content-Length: 3", "Transfer-Encoding: chunked"], "0\r\n\r\n"),
      ],
      ["bad chunk size", request("GET /api/v1/endpoints HTTP/1.1", ["Transfer-Encoding: chunked"], "zz\r\n")],
      ["no HTTP version", "GET /api/v1/stats\r\n\r\n"],
      ["HTTP/2.0 in an HTTP/1 line", request("GET /api/v1/stats HTTP/2.0")],
      ["HTTP/1.1 without Host", "GET /api/v1/stats HTTP/1.1\r\nConnection: close\r\n\r\n"],
      ["bare LF line ends", "GET /api/v1/stats HTTP/1.1\nHost: x\nConnection: close\n\n"],
      ["asterisk target", request("OPTIONS * HTTP/1.1")],
      ["unknown method", request("FOO /api/v1/stats HTTP/1.1")],
      ["lower-case method", request("get /api/v1/stats HTTP/1.1")],
      [
        "TLS hello on the plain port",
        new Uint8Array([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, ...new Uint8Array(64)]),
      ],
      ["random binary", new Uint8Array(Array.from({ length: 512 }, (_, i) => (i * 7919 + SEED) & 0xff))],
    ];
    const failures: string[] = [];
    for (const [name, bytes] of cases) {
      const answer = await rawRequest(port, bytes);
      const reachedApi = answer.headers.has("x-request-id");
      if (answer.status === 500) failures.push(`${name}: 500`);
      if (answer.status !== null && !reachedApi && ![400, 413, 414, 431, 505].includes(answer.status))
        failures.push(`${name}: unexpected ${answer.status}`);
      if (!reachedApi && answer.body !== "")
        failures.push(`${name}: a body from the HTTP layer: ${answer.body.slice(0, 80)}`);
      if (reachedApi) {
        const found = problems("GET", "/api/v1", answer as Seen, true);
        if (found.length > 0) failures.push(`${name} → ${answer.status}: ${found.join("; ")}`);
      }
      for (const [pattern, what] of LEAKS) if (pattern.test(answer.raw)) failures.push(`${name}: ${what}`);
    }
    report(failures);
    const health = await fetch(`${server.baseUrl}/health`);
    expect(health.status).toBe(200);
  });

  test("300 random raw requests from the generator: never 5xx from the API, nothing logged as an unhandled error", async () => {
    const g = generator("raw random requests");
    const failures: string[] = [];
    let reached = 0;
    for (let i = 0; i < 300; i++) {
      const { path, keys } = randomPath(g, ids);
      // Raw: UTF-8 bytes as they are, only spaces, CR, LF and NUL escaped so the request line stays one line.
      const target = (path + randomQuery(g, keys)).replace(/[ \r\n\u0000]/g, (c) => encodeURIComponent(c));
      const method = g.pick(["GET", "GET", "GET", "HEAD", "OPTIONS", "POST", "DELETE", "PROPFIND"]);
      const headers = Object.entries(randomHeaders(g)).map(([k, v]) => `${k}: ${v}`);
      const bytes = new Uint8Array(Buffer.from(request(`${method} ${target} HTTP/1.1`, headers), "utf8"));
      const answer = await rawRequest(port, bytes);
      if (answer.status === null) continue;
      if (answer.status >= 500 && answer.headers.has("x-request-id"))
        failures.push(`#${i} ${method} ${shorten(target)} → ${answer.status}`);
      if (!answer.headers.has("x-request-id")) {
        if (answer.body !== "" || ![400, 431, 505].includes(answer.status))
          failures.push(
            `#${i} ${method} ${shorten(target)} → ${answer.status} from the HTTP layer with ${answer.body.slice(0, 60)}`,
          );
        continue;
      }
      reached++;
      const found = problems(
        method,
        new URL(`http://x${target.startsWith("/") ? target : `/${target}`}`).pathname,
        answer as Seen,
        true,
      );
      if (found.length > 0)
        failures.push(
          `#${i} ${method} ${shorten(target)} ${JSON.stringify(headers).slice(0, 100)} → ${answer.status}: ${found.join("; ")}`,
        );
    }
    report(failures);
    if (reached <= 250) throw new Error(`HARDENING_SEED=${SEED}: only ${reached} of 300 requests reached the API`);
    await Bun.sleep(150); // the server flushes its log every 100 ms
    const errors = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"level":"error"'));
    expect(errors).toEqual([]);
  });
});

describe("hostile items in a vendor list never reach the API", () => {
  const dir = mkdtempSync(join(tmpdir(), "hostile-list-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("malformed URLs are not stored; control characters are gone from what is served", async () => {
    const items = [
      { URL: "https://fhir.good.example.com/r4", OrganizationName: "Good\u0000 Clinic\u001b]0;pwned\u0007\u001b[2J" },
      { URL: "https://x.example.com/fhir\u0000\n<script>", OrganizationName: "NUL in the URL" },
      { URL: "https://user:pass@cred.example.com/fhir", OrganizationName: "Credentials" },
      { URL: `https://${"h".repeat(70_000)}.example.com/fhir`, OrganizationName: "Huge host" },
      { URL: "https://bad port.example.com:99999/", OrganizationName: "Bad port" },
      { URL: "javascript:alert(1)", OrganizationName: "Script" },
    ];
    const file = join(dir, "list.json");
    writeFileSync(file, JSON.stringify({ Endpoints: items }));
    const db = openDatabase(join(dir, "directory.sqlite"));
    const summary = await ingestFile(db, { vendorId: "meditech", file });
    expect(summary).toMatchObject({ ok: true, added: 1, skipped: 5 });

    const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
    const response = await app.handle(new Request("http://localhost/api/v1/endpoints?limit=100"));
    expect(response.status).toBe(200);
    const body = await response.text();
    // Not even as JSON escapes: a client that prints the name gets no terminal codes.
    expect(body).not.toMatch(/\\u00[01][0-9a-f]|\\u007f|[\u0000-\u001f\u007f-\u009f]/i);
    const served = JSON.parse(body).data as { url: string; organizationName: string }[];
    expect(served.map((e) => [e.url, e.organizationName])).toEqual([
      ["https://fhir.good.example.com/r4", "Good Clinic]0;pwned[2J"],
    ]);
    db.sqlite.close();
  });
});
