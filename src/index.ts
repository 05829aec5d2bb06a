import { existsSync } from "node:fs";
import { parseCli } from "./cli/args";

parseCli({
  command: "bun run start",
  synopsis: [""],
  description:
    "Serves the JSON API, /fhir and the search page from DATABASE_PATH; when that file does not exist, builds the national directory there first from the bundled lists (db/national/).",
  options: {},
  optionHelp: [],
  environment: "the variables of docs/api.md's Configuration (PORT, HOST, DATABASE_PATH, …).",
  exitStatus: [[1, "the database could not be built or the port is taken"]],
});

// The server's modules are loaded once the command line is read: `--help` answers without them.
const { loadConfig } = await import("./config");
const { buildDatabaseOnce, removeDeadBuilds } = await import("./db/build-file");
const { openDatabase } = await import("./db/client");
const { freshnessReader } = await import("./db/freshness");
const { openDirectory } = await import("./directory/directory");
const { createLogger } = await import("./logger");
const { startRefreshScheduler } = await import("./scheduler/refresh-scheduler");
const { createApp } = await import("./server/app");
const { MemoryRateLimitStore } = await import("./server/rate-limit/memory-store");
const { RedisRateLimitStore } = await import("./server/rate-limit/redis-store");

const startedAt = performance.now();
const startedAtMs = Date.now();
const config = loadConfig();
const log = createLogger(config.logLevel);

// Temporary files of builds killed mid-way (their process is gone) are removed.
removeDeadBuilds(config.databasePath);
if (!existsSync(config.databasePath)) {
  // The national directory: the real published lists bundled under db/national/, unprobed
  // (`bun run probe` fills in capabilities; `bun run data:sample` builds the demo dataset instead).
  // One process builds it; others starting on the same path wait for it and open its file.
  const { buildNationalDatabase } = await import("./pipeline/national/build");
  try {
    await buildDatabaseOnce(
      config.databasePath,
      () => {
        log.info("no database yet: building the national directory from the bundled lists", {
          path: config.databasePath,
        });
        return buildNationalDatabase(config.databasePath, { log: (line) => log.info(line) });
      },
      () => log.info("another process is building the database: waiting for it", { path: config.databasePath }),
    );
  } catch (error) {
    log.error("could not build the national directory", { error: (error as Error).message });
    log.flush();
    process.exit(1);
  }
}

const db = openDatabase(config.databasePath);
const redis = config.redisUrl ? new RedisRateLimitStore(config.redisUrl, log) : null;
const directory = openDirectory(db, config, (source, reason) =>
  log.warn("directory index damaged: ignored, built again from the tables", { source, reason }),
);
const freshness = freshnessReader(db.sqlite, config.refresh, startedAtMs);
const app = createApp({
  directory,
  db,
  config,
  log,
  freshness,
  rateLimitStore: redis ?? new MemoryRateLimitStore(),
});
directory.watch(config.datasetPollMs, (error) =>
  log.error("dataset reload failed; still serving the previous version", { error: String(error) }),
);
// Elysia asks for SO_REUSEPORT, which lets a second server bind the same port and take a share
// of its connections: this one refuses to start on a port another process holds.
try {
  app.listen({ port: config.port, hostname: config.host, reusePort: false, idleTimeout: config.idleTimeoutSeconds });
} catch (error) {
  const inUse = (error as NodeJS.ErrnoException).code === "EADDRINUSE";
  log.error(
    inUse
      ? `port ${config.port} on ${config.host} is already in use by another process: not starting`
      : `cannot listen on ${config.host}:${config.port}`,
    { port: config.port, host: config.host, error: (error as Error).message },
  );
  log.flush();
  process.exit(1);
}
log.info("listening", {
  url: `http://${config.host}:${app.server?.port}`,
  database: config.databasePath,
  entries: directory.current.stats.totalEndpoints,
  datasetVersion: directory.current.version,
  readyMs: Math.round(performance.now() - startedAt),
  rateLimitStore: redis ? "redis" : "memory",
});
log.flush();
// The directory keeps itself fresh: the refresh, run on a schedule as a child process.
const scheduler = startRefreshScheduler({ config, freshness, log });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info("shutting down: finishing requests in flight", { signal });
  await Promise.all([app.server?.stop(false), scheduler?.stop()]);
  directory.close();
  redis?.close();
  db.sqlite.close();
  log.info("stopped");
  log.flush();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
