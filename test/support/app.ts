import { openDirectory } from "../../src/directory/directory";
import { type AppDeps, createApp } from "../../src/server/app";

/**
 * The app as src/index.ts builds it: the Directory of `deps.db` as `deps.config` says, handed to
 * createApp; `app.directory` is that Directory (the test refreshes or closes it).
 */
export function createTestApp(deps: Omit<AppDeps, "directory">) {
  const directory = openDirectory(deps.db, deps.config);
  return Object.assign(createApp({ ...deps, directory }), { directory });
}
