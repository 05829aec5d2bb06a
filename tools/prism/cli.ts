/**
 * bun run contract:prism — a scripted session through Stoplight Prism's validating proxy: the
 * server on a copy of a database, Prism in front of it with the OpenAPI document the server
 * publishes (/docs/json), then several hundred requests across every operation (searches by
 * GET and by POST form, repeated parameters, HEAD, conditional requests, ranges and every error
 * status). Prism reports each request or answer the document does not allow (its
 * `sl-violations` header); the tool prints the counts and exits 1 on any violation.
 *
 * Prism runs through npx (`@stoplight/prism-cli`, fetched once into npx's cache), not as a
 * dependency: it is large and no test needs it.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { exitWhenDone, parseCli } from "../../src/cli/args";
import { requestsOf } from "./session";

const PRISM = "@stoplight/prism-cli@5.14.2";
const ROOT = join(import.meta.dir, "..", "..");

const { values, fail } = parseCli({
  command: "bun run contract:prism",
  synopsis: ["[--db <path>]"],
  description:
    "Runs a scripted session of requests through Prism's validating proxy and prints how many requests and answers break the published OpenAPI document. The database is copied first; nothing is written to it.",
  options: { db: { type: "string" } },
  optionHelp: [["--db <path>", "the database to serve (default: DATABASE_PATH, as the server reads it)"]],
  exitStatus: [[1, "a violation, or the server or Prism did not start"]],
});

// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { loadConfig } = await import("../../src/config");
const { createApiKey } = await import("../../src/db/api-keys");
const { openDatabase } = await import("../../src/db/client");
const source = values.db ?? loadConfig().databasePath;
if (!existsSync(source)) fail(`no database at ${source}; build the demo with \`npx bun run data:sample\``);

/** A free TCP port on 127.0.0.1. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Waits until `url` answers (any status), at most `seconds`. */
async function waitFor(url: string, seconds: number, proc: Subprocess) {
  for (let i = 0; i < seconds * 10; i++) {
    if (proc.exitCode !== null) throw new Error(`${url}: the process exited with ${proc.exitCode}`);
    try {
      await (await fetch(url)).arrayBuffer();
      return;
    } catch {
      await Bun.sleep(100);
    }
  }
  throw new Error(`${url} did not answer within ${seconds} s`);
}

interface Violation {
  location?: string[];
  code?: string;
  message?: string;
}

exitWhenDone("contract:prism", async () => {
  const dir = mkdtempSync(join(tmpdir(), "prism-session-"));
  const running: Subprocess[] = [];
  try {
    const path = join(dir, "directory.sqlite");
    copyFileSync(source, path);
    const db = openDatabase(path);
    const { key } = createApiKey(db, { name: "prism-session", now: new Date().toISOString() });
    db.sqlite.close();

    const upstreamPort = freePort();
    const upstream = `http://127.0.0.1:${upstreamPort}`;
    const server = Bun.spawn([process.execPath, join(ROOT, "src/index.ts")], {
      cwd: ROOT,
      // Only what the session sets: configuration comes from loadConfig(), nothing else of this shell.
      env: {
        DATABASE_PATH: path,
        HOST: "127.0.0.1",
        PORT: String(upstreamPort),
        // Anonymous clients reach the quota (the session's 429s); the key never does.
        RATE_LIMIT_MAX: "30",
        RATE_LIMIT_MAX_WITH_KEY: "1000000",
        LOG_LEVEL: "error",
        REFRESH: "off",
      },
      stdout: "ignore",
      stderr: "inherit",
    });
    running.push(server);
    await waitFor(`${upstream}/health`, 60, server);
    const documentPath = join(dir, "openapi.json");
    await Bun.write(documentPath, await (await fetch(`${upstream}/docs/json`)).text());

    const prismPort = freePort();
    const prismLog = join(dir, "prism.log");
    // Prism's own executable (npx's child would outlive npx when killed).
    const which = Bun.spawnSync(["npx", "--yes", "-p", PRISM, "-c", "command -v prism"], { cwd: dir });
    const executable = which.stdout.toString().trim();
    if (which.exitCode !== 0 || executable === "") throw new Error(`npx could not find ${PRISM}: ${which.stderr}`);
    const prism = Bun.spawn(
      [
        executable,
        "proxy",
        documentPath,
        upstream,
        "--host",
        "127.0.0.1",
        "--port",
        String(prismPort),
        "--errors",
        "false",
      ],
      { cwd: dir, stdout: Bun.file(prismLog), stderr: "inherit" },
    );
    running.push(prism);
    const proxy = `http://127.0.0.1:${prismPort}`;
    await waitFor(`${proxy}/health`, 180, prism);

    const requests = await requestsOf(upstream, key);
    const statuses = new Map<string, number>();
    const media = new Map<string, number>();
    const violations: string[] = [];
    let requestViolations = 0;
    let responseViolations = 0;
    const etags = new Map<string, string>();
    for (const request of requests) {
      const etag = request.conditional ? etags.get(request.path) : undefined;
      const response = await fetch(`${proxy}${request.path}`, {
        method: request.method,
        headers: { ...request.headers, ...(etag === undefined ? {} : { "if-none-match": etag }) },
        body: request.body,
      });
      await response.arrayBuffer();
      const sent = response.headers.get("etag");
      if (sent !== null && request.method === "GET") etags.set(request.path, sent);
      const status = `${request.method} ${response.status}`;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const type = (response.headers.get("content-type") ?? "(none)").split(";")[0]!;
      media.set(type, (media.get(type) ?? 0) + 1);
      if (request.expect !== undefined && response.status !== request.expect)
        violations.push(`${status} ${request.path}: expected ${request.expect}`);
      const header = response.headers.get("sl-violations");
      if (header === null) continue;
      for (const violation of JSON.parse(header) as Violation[]) {
        if (violation.location?.[0] === "request") requestViolations++;
        else responseViolations++;
        violations.push(
          `${status} ${request.path}: ${violation.location?.join(".")} ${violation.code ?? ""} ${violation.message ?? ""}`,
        );
      }
    }
    const log = await Bun.file(prismLog).text();
    const logged = log.split("\n").filter((line) => /violation/i.test(line)).length;
    // Prism's own failures (it answers them with a 500 problem+json of its own).
    const failures = log.split("\n").filter((line) => /Request terminated with error/.test(line));
    const sorted = (map: Map<string, number>) =>
      [...map]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, count]) => `${name}: ${count}`)
        .join(", ");
    console.log(`Prism ${PRISM} proxy, document ${documentPath.replace(dir, "<tmp>")} from ${upstream}/docs/json`);
    console.log(`requests: ${requests.length}`);
    console.log(`answers by method and status: ${sorted(statuses)}`);
    console.log(`answers by media type: ${sorted(media)}`);
    console.log(`request violations: ${requestViolations}`);
    console.log(`response violations: ${responseViolations}`);
    console.log(`violation lines in Prism's log: ${logged}`);
    for (const violation of violations) console.log(`  ${violation}`);
    console.log(`Prism failures (not forwarded or not read): ${failures.length}`);
    for (const failure of failures) console.log(`  ${failure.replace(/^.*?Request terminated/, "Request terminated")}`);
    return violations.length === 0 && logged === 0 && failures.length === 0 ? 0 : 1;
  } finally {
    for (const proc of running) proc.kill();
    await Promise.all(running.map((proc) => proc.exited));
    rmSync(dir, { recursive: true, force: true });
  }
});
