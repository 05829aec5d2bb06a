/**
 * A real server (`bun src/index.ts`) with EXPORT_MAX_RUNNING=3 on a generated dataset: three
 * stalled compressed exports of three clients fill the server; a fourth client's export gets
 * 503 EXPORTS_BUSY with Retry-After while other requests are answered; a client going away
 * gives its place back.
 */
import { expect, test } from "bun:test";
import { STREAMED_EXPORT as EXPORT, serveGeneratedDataset, stalledExport } from "./helpers";

const live = serveGeneratedDataset(
  { endpoints: 40_000, seed: 8 },
  { RATE_LIMIT_MAX: "1000", TRUST_PROXY: "true", EXPORT_MAX_RUNNING: "3" },
);

const get = (path: string, client: string) =>
  fetch(`${live.server.baseUrl}${path}`, { headers: { "x-forwarded-for": client } });

test("beyond EXPORT_MAX_RUNNING exports, any client's export → 503 EXPORTS_BUSY with Retry-After", async () => {
  const stalled = [];
  for (const client of ["203.0.113.1", "203.0.113.2", "203.0.113.3"]) {
    const running = await stalledExport(live.server.baseUrl, EXPORT, client, "br");
    expect(running.head).toStartWith("HTTP/1.1 200");
    stalled.push(running);
  }
  const refused = await get(EXPORT, "198.51.100.9");
  expect(refused.status).toBe(503);
  const retryAfter = Number(refused.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  expect(await refused.json()).toEqual({
    success: false,
    error: { code: "EXPORTS_BUSY", message: expect.stringContaining("most exports (3)") },
  });
  expect((await get("/health", "198.51.100.9")).status).toBe(200);

  // One client goes away: its place comes back once the server has noticed.
  stalled[0]!.socket.destroy();
  let status = 0;
  for (let attempt = 0; attempt < 200 && status !== 200; attempt++) {
    const retry = await get(EXPORT, "198.51.100.9");
    status = retry.status;
    await retry.body?.cancel();
    if (status !== 200) await Bun.sleep(50);
  }
  expect(status).toBe(200);
  for (const running of stalled.slice(1)) running.socket.destroy();
}, 60_000);
