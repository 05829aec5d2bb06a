import { existsSync } from "node:fs";
import { createApp } from "./app";
import { loadConfig } from "./config";
import { openDatabase } from "./db/client";
import { createLogger } from "./logger";

const config = loadConfig();
const log = createLogger(config.logLevel);

if (!existsSync(config.databasePath)) {
  log.info("no database yet: building the bundled sample dataset", { path: config.databasePath });
  const { buildSampleDatabase } = await import("./sample/build");
  await buildSampleDatabase(config.databasePath, { log: (line) => log.info(line) });
}

const db = openDatabase(config.databasePath);
const app = createApp({ db, config, log });
app.decorator.directory.watch(config.datasetPollMs, (error) => log.error("dataset reload failed", { error: String(error) }));
app.listen({ port: config.port, hostname: config.host });
log.info("listening", { url: `http://${config.host}:${app.server?.port}`, database: config.databasePath });

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    log.info("shutting down", { signal });
    await app.stop();
    app.decorator.directory.close();
    db.sqlite.close();
    process.exit(0);
  });
}
