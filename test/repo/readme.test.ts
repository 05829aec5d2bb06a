import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fixtureApp } from "../support/fixture";

const README = join(import.meta.dir, "..", "..", "README.md");

/** The rows of the README's route table: lines that start with a backticked method and path. */
function routeRows(text: string): string[] {
  return text.split("\n").filter((line) => /^\| `(GET|POST) \//.test(line));
}

describe("README, the front door", () => {
  test("is at most 200 lines", async () => {
    const lines = (await Bun.file(README).text()).trimEnd().split("\n").length;
    expect(lines).toBeLessThanOrEqual(200);
  });

  test("its route table names every route the app serves, with its method", async () => {
    const rows = routeRows(await Bun.file(README).text());
    const { app } = fixtureApp({ LOG_LEVEL: "error" });
    const missing = app.routes
      // The generic FHIR type routes answer every other type with an OperationOutcome; the
      // docs page's own assets are part of /docs.
      .filter((route) => !route.path.startsWith("/fhir/:type") && route.path !== "/docs/assets/:file")
      .filter((route) => !rows.some((row) => row.includes(`${route.method} ${route.path}`)))
      .map((route) => `${route.method} ${route.path}`);
    expect(missing).toEqual([]);
  });
});
