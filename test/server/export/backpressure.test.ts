/**
 * A compressed export whose client stops reading holds the server at the client's pace: once
 * the socket's buffers are full, nothing more is rendered, so the export stays in flight (and
 * counts against its client's cap) instead of being compressed to its end into memory. The
 * dataset is large enough (about 11 MB of brotli) to fill the buffers of a loopback socket.
 */
import { expect, test } from "bun:test";
import { STREAMED_EXPORT as EXPORT, serveGeneratedDataset, stalledExport } from "./helpers";

const live = serveGeneratedDataset(
  { endpoints: 150_000, seed: 5 },
  { RATE_LIMIT_MAX: "1000", TRUST_PROXY: "true" },
  180_000,
);

test("a stalled compressed export is not rendered ahead of its client: it stays in flight and counts", async () => {
  const client = "203.0.113.50";
  const stalled = [
    await stalledExport(live.server.baseUrl, EXPORT, client, "br"),
    await stalledExport(live.server.baseUrl, EXPORT, client, "br"),
  ];
  for (const running of stalled) expect(running.head).toStartWith("HTTP/1.1 200");
  // Another client reads the same compressed export to its end, then waits as long again: time
  // enough for a renderer that did not wait for its client to have finished both stalled exports
  // (it rendered one whole export in the first half, and had the server to itself in the second;
  // a second read, as this test once made, cost as much time and a CPU second more).
  const started = performance.now();
  const whole = await fetch(`${live.server.baseUrl}${EXPORT}`, {
    headers: { "x-forwarded-for": "198.51.100.60", "accept-encoding": "br" },
  });
  expect(whole.status).toBe(200);
  expect((await whole.arrayBuffer()).byteLength).toBeGreaterThan(10_000_000);
  await Bun.sleep(performance.now() - started);
  // Both stalled exports still hold their client's two places.
  const third = await fetch(`${live.server.baseUrl}${EXPORT}`, { headers: { "x-forwarded-for": client } });
  expect(third.status).toBe(429);
  await third.body?.cancel();
  for (const running of stalled) running.socket.destroy();
}, 120_000);
