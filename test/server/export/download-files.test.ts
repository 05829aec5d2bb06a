/**
 * The unfiltered export of each format is a download file per dataset version, served by a real
 * server (`bun src/index.ts`) with Content-Length, a strong ETag and byte ranges: a cut download
 * resumes, a slow reader gets it whole, stalled readers hold no export slot, and the files of an
 * older version go when a newer one's are written.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { markDatasetChanged } from "../../../src/db/dataset-meta";
import { generatedDatabase } from "../../support/built-once";
import { type ServerProcess, startServer } from "../../support/server-process";
import { tempDir } from "../../support/temp-db";
import { serveGeneratedDataset, stalledExport } from "./helpers";

const live = serveGeneratedDataset(
  { endpoints: 3000, seed: 7 },
  { RATE_LIMIT_MAX: "0", TRUST_PROXY: "true", DATASET_POLL_MS: "100", PUBLIC_ORIGIN: "https://directory.example.org" },
  60_000,
);

const get = (target: string, headers: Record<string, string> = {}) =>
  fetch(`${live.server.baseUrl}${target}`, { headers, decompress: false } as RequestInit);
const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());
const CSV = "/api/v1/export?format=csv";

describe("the unfiltered export, a download file", () => {
  test("200 with Content-Length, a strong ETag and Accept-Ranges; gzip when accepted, the same text", async () => {
    const plain = await get(CSV);
    expect(plain.status).toBe(200);
    const text = await bytesOf(plain);
    expect(plain.headers.get("content-length")).toBe(String(text.length));
    expect(plain.headers.get("accept-ranges")).toBe("bytes");
    expect(plain.headers.get("etag")).toMatch(/^"[^"]+"$/);
    expect(plain.headers.get("content-encoding")).toBeNull();
    const stats = (await (await get("/api/v1/stats")).json()) as { data: { totalEndpoints: number } };
    expect(new TextDecoder().decode(text).trimEnd().split("\r\n")).toHaveLength(stats.data.totalEndpoints + 1);

    const zipped = await get(CSV, { "accept-encoding": "br, gzip" });
    const compressed = await bytesOf(zipped);
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("content-length")).toBe(String(compressed.length));
    expect(zipped.headers.get("etag")).not.toBe(plain.headers.get("etag"));
    expect(gunzipSync(compressed)).toEqual(Buffer.from(text));
  });

  test("If-None-Match with its ETag → 304", async () => {
    const etag = (await get(CSV)).headers.get("etag")!;
    const again = await get(CSV, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
  });

  test("If-None-Match compares weakly: its ETag as W/ in a list → 304; another → 200", async () => {
    const etag = (await get(CSV)).headers.get("etag")!;
    const weak = await get(CSV, { "if-none-match": `"another-version", W/${etag}` });
    expect(weak.status).toBe(304);
    expect(weak.headers.get("etag")).toBe(etag);
    const other = await get(CSV, { "if-none-match": `W/"another-version"` });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
  });

  test("Range: 206 with Content-Range for a slice, a suffix, an open end; 416 past the end", async () => {
    const whole = await bytesOf(await get("/api/v1/export?format=ndjson"));
    const size = whole.length;
    for (const [range, first, last] of [
      ["bytes=100-199", 100, 199],
      ["bytes=-50", size - 50, size - 1],
      [`bytes=${size - 10}-`, size - 10, size - 1],
      [`bytes=10-${size + 1000}`, 10, size - 1],
    ] as const) {
      const response = await get("/api/v1/export?format=ndjson", { range });
      expect(response.status).toBe(206);
      expect(response.headers.get("content-range")).toBe(`bytes ${first}-${last}/${size}`);
      const body = await bytesOf(response);
      expect(response.headers.get("content-length")).toBe(String(body.length));
      expect(body).toEqual(whole.subarray(first, last + 1));
    }
    const past = await get("/api/v1/export?format=ndjson", { range: `bytes=${size}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${size}`);
    expect(((await past.json()) as { error: { code: string } }).error.code).toBe("RANGE_NOT_SATISFIABLE");
  });

  test("a download cut short resumes with Range and If-Range; If-Range of another file gives it whole", async () => {
    const full = await get("/api/v1/export?format=fhir", { "accept-encoding": "gzip" });
    const expected = await bytesOf(full);
    const etag = full.headers.get("etag")!;
    // A client that reads the first part, then loses the connection.
    const { hostname, port } = new URL(live.server.baseUrl);
    const part = await new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      const socket = connect({ host: hostname, port: Number(port) }, () =>
        // The Host fetch sends: the FHIR Bundle's URLs, and so its file, follow the origin.
        socket.write(
          `GET /api/v1/export?format=fhir HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept-Encoding: gzip\r\n\r\n`,
        ),
      );
      socket.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        const all = Buffer.concat(chunks);
        const end = all.indexOf("\r\n\r\n");
        if (end !== -1 && all.length - end - 4 >= 5000) {
          socket.destroy();
          resolve(all.subarray(end + 4, end + 4 + 5000));
        }
      });
    });
    const rest = await get("/api/v1/export?format=fhir", {
      "accept-encoding": "gzip",
      range: `bytes=${part.length}-`,
      "if-range": etag,
    });
    expect(rest.status).toBe(206);
    const resumed = Buffer.concat([part, await bytesOf(rest)]);
    expect(new Uint8Array(resumed)).toEqual(expected);
    expect(JSON.parse(gunzipSync(resumed).toString()).resourceType).toBe("Bundle");

    const other = await get("/api/v1/export?format=fhir", {
      "accept-encoding": "gzip",
      range: "bytes=5000-",
      "if-range": '"another-version"',
    });
    expect(other.status).toBe(200);
    expect(await bytesOf(other)).toEqual(expected);
  });
});

/** The head (and, for a GET, the body) of `method target` sent with `Host: host` over a raw socket. */
function withHost(host: string, method: "GET" | "HEAD", target: string): Promise<{ head: string; body: Buffer }> {
  const { hostname, port } = new URL(live.server.baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: hostname, port: Number(port) }, () =>
      socket.write(`${method} ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
    );
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf("\r\n\r\n");
      resolve({ head: all.subarray(0, end).toString("latin1"), body: all.subarray(end + 4) });
    });
  });
}

const headerOf = (head: string, name: string) => new RegExp(`\r\n${name}: ([^\r]*)`, "i").exec(head)?.[1] ?? null;
const exportFiles = () => readdirSync(join(`${live.path}.exports`, String(live.server.process.pid)));

test("made-up Host headers share one FHIR file, its URLs under PUBLIC_ORIGIN: no file per origin", async () => {
  const { hostname, port } = new URL(live.server.baseUrl);
  const hosts = ["a.example", "b.example", "c.example", "d.example", "e.example", `${hostname}:${port}`];
  const heads: string[] = [];
  for (const host of hosts) heads.push((await withHost(host, "HEAD", "/api/v1/export?format=fhir")).head);
  for (const head of heads) expect(head).toStartWith("HTTP/1.1 200");
  // The real origin, asked last, still gets the download file: length, ETag, ranges.
  expect(new Set(heads.map((head) => headerOf(head, "content-length")))).toEqual(
    new Set([headerOf(heads[0]!, "content-length")]),
  );
  expect(Number(headerOf(heads[5]!, "content-length"))).toBeGreaterThan(1000);
  expect(new Set(heads.map((head) => headerOf(head, "etag"))).size).toBe(1);
  expect(headerOf(heads[5]!, "accept-ranges")).toBe("bytes");
  // One file (and its gzip copy) for the format, whatever the Host.
  expect(exportFiles().filter((name) => name.includes("-fhir."))).toHaveLength(2);
  const { body } = await withHost("f.example", "GET", "/api/v1/export?format=fhir");
  const bundle = JSON.parse(body.toString()) as { entry: { fullUrl: string }[] };
  for (const { fullUrl } of bundle.entry) expect(fullUrl).toStartWith("https://directory.example.org/fhir/");
});

test("the brands bundle is a download file: Content-Length, a strong ETag, ranges, at both its URLs", async () => {
  const plain = await get("/api/v1/brands");
  const text = await bytesOf(plain);
  expect(plain.status).toBe(200);
  expect(plain.headers.get("content-type")).toBe("application/fhir+json");
  expect(plain.headers.get("access-control-allow-origin")).toBe("*");
  expect(plain.headers.get("content-length")).toBe(String(text.length));
  expect(plain.headers.get("accept-ranges")).toBe("bytes");
  // Shown, not saved: no attachment (nor the runtime's own file name).
  expect(plain.headers.get("content-disposition")).toBe("inline");
  const etag = plain.headers.get("etag")!;
  expect(etag).toMatch(/^"[^"]+"$/);
  expect(JSON.parse(new TextDecoder().decode(text)).type).toBe("collection");

  const download = await get("/api/v1/export?format=brands");
  expect(download.headers.get("content-disposition")).toMatch(/\.brands\.json"$/);
  expect(download.headers.get("etag")).toBe(etag);
  expect(await bytesOf(download)).toEqual(text);
  const head = await fetch(`${live.server.baseUrl}/api/v1/brands`, {
    method: "HEAD",
    headers: { "accept-encoding": "identity" },
  });
  expect(head.headers.get("content-length")).toBe(String(text.length));

  const part = await get("/api/v1/brands", { range: "bytes=100-", "if-range": etag });
  expect(part.status).toBe(206);
  expect(await bytesOf(part)).toEqual(text.subarray(100));
  expect((await get("/api/v1/brands", { "if-none-match": etag })).status).toBe(304);
  const zipped = await get("/api/v1/brands", { "accept-encoding": "gzip" });
  expect(gunzipSync(await bytesOf(zipped))).toEqual(Buffer.from(text));
  expect(exportFiles().filter((name) => name.includes("-brands."))).toHaveLength(2);
});

/**
 * GET `target` over a raw socket: `fast` bytes at full speed, then `rate` bytes a second for
 * `slowMs`, then the rest at full speed, until the server ends the connection. The head and the
 * body's bytes.
 */
function slowRead(
  baseUrl: string,
  target: string,
  fast: number,
  slowMs: number,
  rate: number,
): Promise<{ head: string; body: Buffer }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let slowUntil = Number.POSITIVE_INFINITY;
    const socket = connect({ host: hostname, port: Number(port) }, () =>
      socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`),
    );
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received < fast) return;
      if (slowUntil === Number.POSITIVE_INFINITY) slowUntil = performance.now() + slowMs;
      const now = performance.now();
      if (now < slowUntil) {
        socket.pause();
        setTimeout(() => socket.resume(), Math.min((chunk.length / rate) * 1000, slowUntil - now));
      }
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf("\r\n\r\n");
      resolve({ head: all.subarray(0, end).toString("latin1"), body: all.subarray(end + 4) });
    });
  });
}

describe("on 40,000 entries, EXPORT_MAX_RUNNING=3", () => {
  let big: ServerProcess;
  const bigPath = join(tempDir(), "directory.sqlite");
  beforeAll(async () => {
    await generatedDatabase({ endpoints: 40_000, out: bigPath, seed: 8 });
    big = await startServer({
      DATABASE_PATH: bigPath,
      RATE_LIMIT_MAX: "0",
      TRUST_PROXY: "true",
      EXPORT_MAX_RUNNING: "3",
    });
  }, 120_000);
  afterAll(() => big?.stop());

  test("read at 10 KB/s after a fast start (socket buffers grown to megabytes), a download arrives whole", async () => {
    // A server whose idle time-out (2 s) a writer waiting on such buffers outlasts many times.
    const slow = await startServer({ DATABASE_PATH: bigPath, RATE_LIMIT_MAX: "0", IDLE_TIMEOUT_SECONDS: "2" });
    try {
      const { head, body } = await slowRead(slow.baseUrl, "/api/v1/export?format=fhir", 4_000_000, 12_000, 10_000);
      expect(head).toStartWith("HTTP/1.1 200");
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
      expect(length).toBeGreaterThan(10_000_000);
      expect(body.length).toBe(length);
      expect(JSON.parse(body.toString()).resourceType).toBe("Bundle");
    } finally {
      await slow.stop();
    }
  }, 60_000);

  test("stalled downloads hold no export slot: other clients download, and a filtered export runs", async () => {
    // Four readers that read nothing, from two addresses: more than the server runs.
    const stalled = await Promise.all(
      ["198.51.100.1", "198.51.100.1", "198.51.100.2", "198.51.100.2"].map((client) =>
        stalledExport(big.baseUrl, "/api/v1/export?format=fhir", client),
      ),
    );
    try {
      for (const { head } of stalled) expect(head).toStartWith("HTTP/1.1 200");
      const other = await fetch(`${big.baseUrl}/api/v1/export?format=fhir`, {
        headers: { "x-forwarded-for": "198.51.100.3" },
        decompress: false,
      } as RequestInit);
      expect(other.status).toBe(200);
      expect((await other.arrayBuffer()).byteLength).toBe(Number(other.headers.get("content-length")));
      const filtered = await fetch(`${big.baseUrl}/api/v1/export?format=csv&state=CA`, {
        headers: { "x-forwarded-for": "198.51.100.4" },
      });
      expect(filtered.status).toBe(200);
      await filtered.arrayBuffer();
    } finally {
      for (const { socket } of stalled) socket.destroy();
    }
  }, 30_000);

  test("filtered exports: an IPv6 client is its /48, two /64s of one site share its two exports", async () => {
    const target = "/api/v1/export?format=fhir&fhirVersion=R4";
    const site = await Promise.all(
      ["2001:db8:aa:1::1", "2001:db8:aa:2::1"].map((client) => stalledExport(big.baseUrl, target, client)),
    );
    try {
      for (const { head } of site) expect(head).toStartWith("HTTP/1.1 200");
      const third = await fetch(`${big.baseUrl}${target}`, { headers: { "x-forwarded-for": "2001:db8:aa:3::1" } });
      expect(third.status).toBe(429);
      await third.arrayBuffer();
      const elsewhere = await fetch(`${big.baseUrl}${target}`, { headers: { "x-forwarded-for": "2001:db8:bb:1::1" } });
      expect(elsewhere.status).toBe(200);
      await elsewhere.arrayBuffer();
    } finally {
      for (const { socket } of site) socket.destroy();
    }
  }, 30_000);
});

test("a new dataset version: new files, the old version's removed, an old If-Range gives the new file whole", async () => {
  const before = await get(CSV);
  const oldEtag = before.headers.get("etag")!;
  await before.arrayBuffer();
  const exportsDir = join(`${live.path}.exports`, String(live.server.process.pid));
  const oldFiles = readdirSync(exportsDir);
  expect(oldFiles.some((name) => name.endsWith(".csv"))).toBe(true);

  const writer = new Database(live.path);
  writer.exec("PRAGMA busy_timeout = 5000");
  writer.transaction(() => {
    writer.run("UPDATE entries SET organization_name = 'Zyzzyva Download Clinic' WHERE row_id = 1");
    markDatasetChanged(writer, "2026-11-25T00:00:00.000Z");
  })();
  writer.close();
  let text = "";
  for (let i = 0; i < 100 && !text.includes("Zyzzyva"); i++) {
    await Bun.sleep(100);
    const response = await get(CSV, { range: "bytes=10-", "if-range": oldEtag });
    expect(response.status).toBe(200);
    text = await response.text();
  }
  expect(text).toContain("Zyzzyva Download Clinic");
  const newFiles = readdirSync(exportsDir);
  expect(newFiles.filter((name) => oldFiles.includes(name))).toEqual([]);
});

/** The shell lines of docs/api.md's resume example (the `sh` block that sends If-Range), URL given. */
function documentedResume(url: string): string {
  const docs = readFileSync(join(import.meta.dir, "../../../docs/api.md"), "utf8");
  const block = [...docs.matchAll(/```sh\n([\s\S]*?) *```/g)].map((m) => m[1]!).find((b) => b.includes("If-Range: $("));
  expect(block).toBeDefined();
  // The block sits in a list item: its lines are indented alike.
  const indent = /^ */.exec(block!)![0].length;
  const lines = block!.split("\n").map((line) => line.slice(indent));
  expect(lines[0]).toStartWith("url=");
  // Line 1 is the first download; the rest is the resume.
  return [`url='${url}'`, ...lines.slice(2)].join("\n");
}

test("the documented resume (curl, If-Range) never splices two versions: it completes or starts again", async () => {
  const url = `${live.server.baseUrl}${CSV}`;
  const dir = tempDir();
  const shell = (script: string) => {
    const run = Bun.spawnSync(["bash", "-c", script], { cwd: dir, stderr: "pipe" });
    return { code: run.exitCode, stderr: run.stderr.toString() };
  };
  const file = () => new Uint8Array(readFileSync(join(dir, "directory.csv")));
  // A download cut after 5,000 bytes, its headers kept as `curl -D` keeps them.
  const cut = `curl -sS -D headers.txt -r 0-4999 -o directory.csv '${url}'`;

  expect(shell(cut).code).toBe(0);
  expect(file().length).toBe(5000);
  expect(shell(documentedResume(url)).code).toBe(0);
  expect(file()).toEqual(await bytesOf(await get(CSV)));

  expect(shell(cut).code).toBe(0);
  const writer = new Database(live.path);
  writer.exec("PRAGMA busy_timeout = 5000");
  writer.transaction(() => {
    writer.run("UPDATE entries SET organization_name = 'Aaron Resumed Clinic' WHERE row_id = 2");
    markDatasetChanged(writer, "2026-11-26T00:00:00.000Z");
  })();
  writer.close();
  let current = "";
  for (let i = 0; i < 100 && !current.includes("Aaron Resumed Clinic"); i++) {
    await Bun.sleep(100);
    current = await (await get(CSV)).text();
  }
  expect(current).toContain("Aaron Resumed Clinic");
  const resumed = shell(documentedResume(url));
  expect(resumed.code).toBe(0);
  // The new version whole, not the old version's first 5,000 bytes followed by the new one's rest.
  expect(new TextDecoder().decode(file())).toBe(current);
}, 30_000);
