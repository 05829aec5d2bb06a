/**
 * Servers that declare a large body, send part of it quickly and then drip the rest: each is cut
 * once it falls behind the pace a large-body permit asks (src/pipeline/probe/body-budget.ts), well
 * before the time-out, so a handful of them cannot hold the run's two permits, and every worker
 * waiting for one, for their whole time-out. Loopback servers only (127.0.54.x and 127.0.55.x).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { probeDue } from "../../../src/pipeline/probe";
import { PROBE_DEFAULTS } from "../../../src/pipeline/probe/prober";
import { farmDocuments } from "../../../tools/farm/documents";
import { insertEntry, tempDb } from "./helpers";

const DECLARED = 4 * 1024 * 1024;
const SENT_FAST = 1.2 * 1024 * 1024;
const HOSTILE = 8;
const GOOD_HOSTS = 10;
const GOOD_PER_HOST = 10;
const TIMEOUT_MS = PROBE_DEFAULTS.timeoutMs;

const statement = farmDocuments().metadata[0]!;
const servers: ReturnType<typeof Bun.serve>[] = [];
let ctx: ReturnType<typeof tempDb>;
let runMs = 0;
let closedEarly = 0;

/** Declares 4 MB, sends 1.2 MB at once, then one byte every 200 ms. */
function drip(): Response {
  let sent = 0;
  return new Response(
    new ReadableStream({
      async pull(controller) {
        if (sent < SENT_FAST) {
          const chunk = new Uint8Array(64 * 1024).fill(0x20);
          sent += chunk.byteLength;
          controller.enqueue(chunk);
          return;
        }
        await Bun.sleep(200);
        controller.enqueue(new Uint8Array([0x20]));
      },
      cancel() {
        closedEarly++;
      },
    }),
    { headers: { "Content-Type": "application/fhir+json", "Content-Length": String(DECLARED) } },
  );
}

beforeAll(async () => {
  ctx = tempDb();
  for (let i = 0; i < HOSTILE; i++) {
    const server = Bun.serve({
      hostname: `127.0.54.${i + 1}`,
      port: 0,
      fetch: (request) =>
        new URL(request.url).pathname.endsWith("/metadata") ? drip() : new Response("not found", { status: 404 }),
    });
    servers.push(server);
    insertEntry(ctx.db, { url: `http://127.0.54.${i + 1}:${server.port}/fhir` });
  }
  for (let h = 0; h < GOOD_HOSTS; h++) {
    const server = Bun.serve({
      hostname: `127.0.55.${h + 1}`,
      port: 0,
      fetch: (request) =>
        new URL(request.url).pathname.endsWith("/metadata")
          ? new Response(statement, { headers: { "Content-Type": "application/fhir+json" } })
          : new Response("not found", { status: 404 }),
    });
    servers.push(server);
    for (let u = 0; u < GOOD_PER_HOST; u++)
      insertEntry(ctx.db, { url: `http://127.0.55.${h + 1}:${server.port}/fhir/t${u}` });
  }
  const started = performance.now();
  await probeDue(ctx.db, { allowPrivate: true, writeInWorker: false });
  runMs = performance.now() - started;
}, 120_000);

afterAll(() => {
  for (const server of servers) server.stop(true);
  ctx.cleanup();
});

const probes = (prefix: string) =>
  ctx.db.sqlite
    .prepare(
      "SELECT p.error_kind, p.duration_ms AS ms, e.status FROM probes p JOIN entries e ON e.url = p.url WHERE p.url LIKE ?",
    )
    .all(`${prefix}%`) as { error_kind: string | null; ms: number; status: string }[];

test("each dripping body is cut for its pace, before the time-out, waiting for a permit included", () => {
  const hostile = probes("http://127.0.54.");
  expect(hostile).toHaveLength(HOSTILE);
  for (const probe of hostile) {
    expect(probe.error_kind).toBe("body_timeout");
    expect(probe.ms).toBeLessThan(TIMEOUT_MS);
  }
  expect(closedEarly).toBeGreaterThanOrEqual(HOSTILE);
});

test("every good URL is read, and the run is not the hostile URLs' time-outs one permit after another", () => {
  const good = probes("http://127.0.55.");
  expect(good).toHaveLength(GOOD_HOSTS * GOOD_PER_HOST);
  for (const probe of good) expect(probe.status).toBe("verified");
  // Holding the two permits for the time-out, 8 of them took 4 time-outs (40 s) in a row.
  expect(runMs).toBeLessThan((HOSTILE / PROBE_DEFAULTS.largeBodies) * TIMEOUT_MS * 0.5);
});
