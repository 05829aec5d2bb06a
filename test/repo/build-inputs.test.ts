import { expect, test } from "bun:test";
import { buildModules } from "../support/built-once";

/**
 * The shared test builds (test/support/built-once.ts) are kept under a hash of what they run: a
 * module they run but the hash missed would let a test read a build of older code; a module they
 * do not run in the hash rebuilds them for nothing after every change to it.
 */
test("the shared builds' hash covers the modules they run, Workers and child scripts too, and not the server's", () => {
  const modules = buildModules();
  for (const file of [
    "src/pipeline/national/build.ts",
    "src/pipeline/national/audit.ts",
    "src/directory/build-cli.ts", // the index build, started as a child process
    "src/pipeline/probe/store-worker.ts", // a Worker the probe writer starts
    "src/model/zip-places.ts",
    "tools/generate/generator.ts",
    "tools/fhir/capability-documents.ts", // outside the folders hashed whole
    "tools/sample/build.ts",
  ])
    expect(modules).toContain(file);
  expect(modules.filter((file) => file.startsWith("src/server/") || file === "src/index.ts")).toEqual([]);
});
