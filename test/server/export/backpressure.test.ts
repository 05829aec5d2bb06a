/**
 * A compressed export whose client stops reading holds the server at the client's pace: once
 * the socket's buffers are full, nothing more is rendered, so the export stays in flight (and
 * counts against its client's cap) instead of being compressed to its end into memory. The
 * dataset is large enough (about 11 MB of brotli) to fill the buffers of a loopback socket.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateDataset } from "../../../tools/generate/generator";
import { type ServerProcess, startServer } from "../../support/server-process";
import { stalledExport } from "./helpers";

let dir: string;
let server: ServerProcess;
/** A filtered export: streamed, holding a slot (the unfiltered one is a download file and holds none). */
const EXPORT = "/api/v1/export?format=fhir&fhirVersion=R4";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "export-backpressure-"));
  const path = join(dir, "directory.sqlite");
  generateDataset({ endpoints: 150_000, out: path, seed: 5 });
  server = await startServer({ DATABASE_PATH: path, RATE_LIMIT_MAX: "1000", TRUST_PROXY: "true" }, 120_000);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a stalled compressed export is not rendered ahead of its client: it stays in flight and counts", async () => {
  const client = "203.0.113.50";
  const stalled = [
    await stalledExport(server.baseUrl, EXPORT, client, "br"),
    await stalledExport(server.baseUrl, EXPORT, client, "br"),
  ];
  for (const running of stalled) expect(running.head).toStartWith("HTTP/1.1 200");
  // Another client reads the same compressed export to its end twice: time enough for a
  // renderer that did not wait for its client to have finished both stalled exports.
  for (let i = 0; i < 2; i++) {
    const whole = await fetch(`${server.baseUrl}${EXPORT}`, {
      headers: { "x-forwarded-for": "198.51.100.60", "accept-encoding": "br" },
    });
    expect(whole.status).toBe(200);
    expect((await whole.arrayBuffer()).byteLength).toBeGreaterThan(10_000_000);
  }
  // Both stalled exports still hold their client's two places.
  const third = await fetch(`${server.baseUrl}${EXPORT}`, { headers: { "x-forwarded-for": client } });
  expect(third.status).toBe(429);
  await third.body?.cancel();
  for (const running of stalled) running.socket.destroy();
}, 120_000);
