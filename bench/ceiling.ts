import { parseCli } from "../src/cli/args";

parseCli({
  command: "bun run bench:ceiling",
  synopsis: [""],
  description: "The ceiling of bench:http: a bare Bun.serve answering every request with a fixed JSON until SIGTERM.",
  options: {},
  optionHelp: [],
  environment: "HOST (127.0.0.1), PORT (3999), CEILING_BODY_BYTES (pads the JSON to that many bytes).",
});

/**
 * The ceiling of `bun run bench:http`: a bare Bun.serve answering every request with a fixed JSON,
 * run under the same conditions as the API (same core, same load generator). What the API
 * reaches is reported as a share of this. By default the JSON is small (~80 bytes);
 * `CEILING_BODY_BYTES=<n>` pads it to n bytes, the same-size ceiling of a shape whose answers are
 * large (capabilities: the mean size of its answers), so body size is not counted against it.
 */
const SMALL = JSON.stringify({ success: true, data: { status: "ok", timestamp: "2026-11-20T06:00:00.000Z" } });

function padded(bytes: number): string {
  const empty = JSON.stringify({ success: true, data: { padding: "" } });
  if (bytes <= empty.length) return SMALL;
  return JSON.stringify({ success: true, data: { padding: "x".repeat(bytes - empty.length) } });
}

const size = Number(process.env.CEILING_BODY_BYTES || 0);
const BODY = Number.isFinite(size) && size > 0 ? padded(Math.round(size)) : SMALL;
const HEADERS = { "content-type": "application/json; charset=utf-8" };

const server = Bun.serve({
  hostname: process.env.HOST || "127.0.0.1",
  port: Number(process.env.PORT || 3999),
  fetch: () => new Response(BODY, { headers: HEADERS }),
});
console.log(`ceiling listening on http://${server.hostname}:${server.port} (${BODY.length}-byte body)`);

process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
