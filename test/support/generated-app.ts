import { afterAll, beforeAll } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { type Db, openDatabase } from "../../src/db/client";
import type { GenerateOptions } from "../../tools/generate/generator";
import { createTestApp } from "./app";
import { generatedDatabase } from "./built-once";
import { tempDir } from "./temp-db";

export interface GeneratedApp {
  app: ReturnType<typeof createTestApp>;
  db: Db;
  /** The directory the database is in (for a test's own files too) and the database file. */
  dir: string;
  path: string;
  /** `http://127.0.0.1:<port>` when the app listens. */
  origin: string;
}

/**
 * The app as createTestApp builds it, with no rate limit and error-level logs, on a dataset the
 * generator writes (`dataset`) into a temporary directory: opened in this file's beforeAll (after
 * `prepare(path)` changed the file, when given; listening on 127.0.0.1 with `listen`), stopped and
 * closed in its afterAll. The fields are set once beforeAll has run.
 */
export function appOnGeneratedDataset(
  dataset: Omit<GenerateOptions, "out">,
  options: { listen?: boolean; prepare?: (path: string) => void } = {},
): GeneratedApp {
  const live = { origin: "" } as GeneratedApp;
  beforeAll(async () => {
    live.dir = tempDir("generated-app-");
    live.path = join(live.dir, "generated.sqlite");
    await generatedDatabase({ ...dataset, out: live.path });
    options.prepare?.(live.path);
    live.db = openDatabase(live.path);
    live.app = createTestApp({
      db: live.db,
      config: loadConfig({ DATABASE_PATH: live.path, RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }),
    });
    if (options.listen) {
      live.app.listen({ port: 0, hostname: "127.0.0.1" });
      live.origin = `http://127.0.0.1:${live.app.server!.port}`;
    }
  }, 60_000);
  afterAll(async () => {
    if (options.listen) await live.app?.stop(true);
    live.app?.directory.close();
    live.db?.sqlite.close();
    if (live.dir) rmSync(live.dir, { recursive: true, force: true });
  });
  return live;
}
