import { type Directory, openDirectory } from "../../src/directory/directory";
import { createLogger } from "../../src/logger";
import { type AppDeps, createApp } from "../../src/server/app";

/**
 * createTestApp's answer, written out: left to inference, every `ReturnType<typeof createTestApp>`
 * of the tests made tsc resolve the intersection anew (~180,000 type instantiations).
 */
type TestApp = ReturnType<typeof createApp> & { directory: Directory };

/**
 * The app as src/index.ts builds it: the Directory of `deps.db` as `deps.config` says, handed to
 * createApp; `app.directory` is that Directory (the test refreshes or closes it).
 *
 * Without a logger of the test's own, the app logs warnings and errors only, so that `npm test`
 * shows failures rather than thousands of request lines; `TEST_LOGS=1` logs as the config says.
 */
export function createTestApp(deps: Omit<AppDeps, "directory">): TestApp {
  const directory = openDirectory(deps.db, deps.config);
  const level = deps.config.logLevel === "error" || process.env.TEST_LOGS === "1" ? deps.config.logLevel : "warn";
  const log = deps.log ?? createLogger(level);
  return Object.assign(createApp({ ...deps, directory, log }), { directory });
}
