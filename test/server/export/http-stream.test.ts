/**
 * The export stream over real HTTP (Bun.serve on 127.0.0.1, the stream as the route returns
 * it): the server writes one reused buffer into the response, so what arrives must be exactly
 * the body rendered in process, in every format and compressed. A client that stops reading
 * holds the export at its pace (what is rendered stays far below the whole export), and gets
 * the rest once it reads again; a client that goes away stops the rendering and frees its slot.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Server } from "bun";
import { type Db, openDatabase } from "../../../src/db/client";
import { Directory } from "../../../src/directory/directory";
import type { ExportFormat } from "../../../src/server/export/schemas";
import { exportStream, FORMATS } from "../../../src/server/export/service";
import { generatedDatabase } from "../../support/built-once";

let dir: string;
let db: Db;
let directory: Directory;
let server: Server<unknown>;

/**
 * The last export the server started: entries rendered so far, of how many, whether its slot was
 * given back, and how often (by the cancellation and once more when the render loop ends).
 */
const last = { done: 0, total: 0, released: false, releases: 0 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "export-http-"));
  const path = join(dir, "directory.sqlite");
  await generatedDatabase({ endpoints: 40_000, out: path, seed: 8 });
  db = openDatabase(path);
  directory = new Directory(db.path, db.sqlite, { buildInProcessBelow: 1_000_000 });
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      const format = url.searchParams.get("format") as ExportFormat;
      last.done = 0;
      last.total = 0;
      last.released = false;
      last.releases = 0;
      const slot = {
        progress(done: number, total: number) {
          last.done = done;
          last.total = total;
        },
        release() {
          last.released = true;
          last.releases++;
        },
      };
      const snapshot = directory.current;
      const gzip = url.searchParams.get("gzip") === "1";
      const writer = FORMATS[format].writer(snapshot, "http://localhost");
      return new Response(exportStream(snapshot, { queryWords: [] }, writer, slot, gzip ? "gzip" : null), {
        headers: gzip ? { "content-encoding": "gzip" } : {},
      });
    },
  });
}, 120_000);

afterAll(() => {
  server?.stop(true);
  directory?.close();
  db?.sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The same export read in process (`Response.text()`: a consumer that keeps every chunk). */
async function inProcess(format: ExportFormat): Promise<string> {
  const snapshot = directory.current;
  const slot = { progress() {}, release() {} };
  return new Response(
    exportStream(snapshot, { queryWords: [] }, FORMATS[format].writer(snapshot, "http://localhost"), slot),
  ).text();
}

describe("over HTTP, the body is the export rendered in process", () => {
  for (const format of ["ndjson", "csv", "fhir"] as const) {
    test(`${format}, plain and gzip`, async () => {
      const expected = await inProcess(format);
      expect(expected.length).toBeGreaterThan(2_000_000);
      const plain = await fetch(`${server.url}export?format=${format}`);
      expect(await plain.text()).toBe(expected);
      expect(last.released).toBe(true);
      const gzip = await fetch(`${server.url}export?format=${format}&gzip=1`, { decompress: false } as RequestInit);
      expect(gunzipSync(Buffer.from(await gzip.arrayBuffer())).toString("utf8")).toBe(expected);
    }, 60_000);
  }
});

/** Requests an export over a raw socket; resolves once the headers are in, then stops reading. */
function stalledExport(format: ExportFormat): Promise<{ socket: Socket; received: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: server.port! }, () => {
      socket.write(`GET /export?format=${format} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    const received: Buffer[] = [];
    let headers = false;
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      if (!headers && Buffer.concat(received).includes("\r\n\r\n")) {
        headers = true;
        socket.pause();
        resolve({ socket, received });
      }
    });
    socket.on("error", reject);
  });
}

/** Waits until the export's progress stops moving (unchanged over several polls). */
async function settled(): Promise<number> {
  let previous = -1;
  let unchanged = 0;
  while (unchanged < 5) {
    await Bun.sleep(100);
    if (last.done === previous) unchanged++;
    else unchanged = 0;
    previous = last.done;
  }
  return previous;
}

/** The payload of a chunked HTTP/1.1 response. */
function dechunk(raw: Buffer): string {
  let at = raw.indexOf("\r\n\r\n") + 4;
  const parts: Buffer[] = [];
  for (;;) {
    const lineEnd = raw.indexOf("\r\n", at);
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString("latin1"), 16);
    if (size === 0) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts).toString("utf8");
}

test("a client that stops reading holds the export; once it reads again, the whole body arrives", async () => {
  const expected = await inProcess("ndjson");
  const { socket, received } = await stalledExport("ndjson");
  const rendered = await settled();
  expect(last.total).toBe(directory.current.stats.totalEndpoints);
  // Socket buffers hold a few MB; the server renders no further than they take.
  expect(rendered).toBeLessThan(last.total / 2);
  expect(last.released).toBe(false);

  // The last chunk of a chunked body is empty.
  let tail = "";
  const ended = new Promise<void>((resolve) =>
    socket.on("data", (chunk: Buffer) => {
      tail = (tail + chunk.toString("latin1")).slice(-7);
      if (tail === "\r\n0\r\n\r\n") resolve();
    }),
  );
  socket.resume();
  await ended;
  socket.destroy();
  expect(dechunk(Buffer.concat(received))).toBe(expected);
  expect(last.done).toBe(last.total);
  expect(last.released).toBe(true);
}, 60_000);

test("a client that goes away stops the rendering and frees its slot", async () => {
  const { socket } = await stalledExport("fhir");
  await settled();
  socket.destroy();
  for (let attempt = 0; attempt < 100 && last.releases < 2; attempt++) await Bun.sleep(50);
  expect(last.released).toBe(true);
  // Released by the cancellation, then by the render loop as it ended.
  expect(last.releases).toBe(2);
  expect(last.done).toBeLessThan(last.total);
}, 60_000);
