import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerProcess, startServer } from "../support/server-process";

const json = async (url: string): Promise<any> => (await fetch(url)).json();
const dir = mkdtempSync(join(tmpdir(), "national-start-"));
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("npm start with no database", () => {
  test("builds the national directory from the bundled lists, offline, then serves it", async () => {
    server = await startServer({ DATABASE_PATH: join(dir, "data", "directory.sqlite") }, 170_000);
    expect(server.output()).toContain("building the national directory from the bundled lists");
    const stats = (await json(`${server.baseUrl}/api/v1/stats`)).data;
    expect(stats.totalEndpoints).toBeGreaterThan(40_000);
    expect(stats.vendorCount).toBeGreaterThan(120);
    const page = (await json(`${server.baseUrl}/api/v1/endpoints?vendor=epic&limit=1`)).data;
    expect(page[0]).toMatchObject({ vendorName: "Epic Systems", status: "listed" });
    const capabilities = (await json(`${server.baseUrl}/api/v1/endpoints/${page[0].id}/capabilities`)).data;
    expect(capabilities.probeStatus).toBe("unchecked");
    // Built in a temporary file and renamed: only the database (and the server's own files) remain.
    expect(readdirSync(join(dir, "data")).filter((name) => name.includes("building"))).toEqual([]);
  }, 180_000);
});
