/**
 * The ceiling of `bun run bench`: a bare Bun.serve answering every request with a small fixed
 * JSON, run under the same conditions as the API (same core, same load generator). What the API
 * reaches is reported as a share of this.
 */
const BODY = JSON.stringify({ success: true, data: { status: "ok", timestamp: "2026-11-20T06:00:00.000Z" } });
const HEADERS = { "content-type": "application/json; charset=utf-8" };

const server = Bun.serve({
  hostname: process.env.HOST || "127.0.0.1",
  port: Number(process.env.PORT || 3999),
  fetch: () => new Response(BODY, { headers: HEADERS }),
});
console.log(`ceiling listening on http://${server.hostname}:${server.port}`);

process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
