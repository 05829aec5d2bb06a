/**
 * The health plans' lists as `refresh` reads them: from where they are published (here a local
 * server on 127.0.0.1 serving the bundled files' bytes in place of Lantern's repository), with
 * the registry's CSV columns and names, giving the same entries as the offline build of the bundle.
 */
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ingestAll, ingestContent, syncVendorRegistry } from "../../../src/pipeline/ingest";
import { PAYERS_DIR, readBundle } from "../../../src/pipeline/ingest/national-lists";
import { DEFAULT_REGISTRY_PATH, loadRegistry } from "../../../src/pipeline/ingest/registry";
import { removeTempDirs, tempDatabase } from "../../support/temp-db";
import { serve } from "../probe/helpers";

afterAll(removeTempDirs);

const { files } = readBundle(PAYERS_DIR);
const payers = loadRegistry(DEFAULT_REGISTRY_PATH).filter((vendor) => vendor.kind === "payer");
const server = serve(
  Object.fromEntries(
    [...files].map(([name, text]) => [
      `/lantern/${encodeURIComponent(name)}`,
      () =>
        new Response(text, { headers: { "content-type": name.endsWith(".csv") ? "text/csv" : "application/json" } }),
    ]),
  ),
);
afterAll(() => server.stop());

const entriesOf = (db: ReturnType<typeof tempDatabase>["db"]) =>
  db.sqlite
    .prepare(
      "SELECT e.id, e.vendor_id AS vendor, e.organization_name AS name, e.url, e.state, e.list_access AS access, v.kind FROM entries e JOIN vendors v ON v.id = e.vendor_id ORDER BY e.id",
    )
    .all();

test("refresh reads each payer list where it is published, as the bundle was read offline", async () => {
  const offline = tempDatabase();
  const online = tempDatabase();
  try {
    // The registry's payers, their lists published on the local server instead of GitHub.
    const registry = payers.map((vendor) => ({
      ...vendor,
      lists: vendor.lists.map((list) => ({
        ...list,
        url: `${server.url}/lantern/${encodeURIComponent(list.bundledFile!)}`,
      })),
    }));
    const registryPath = join(dirname(online.path), "vendors.json");
    writeFileSync(registryPath, JSON.stringify({ vendors: registry }));

    syncVendorRegistry(offline.db, registry);
    for (const vendor of registry)
      for (const list of vendor.lists) {
        const summary = await ingestContent(
          offline.db,
          { vendorId: vendor.id, listId: list.id, content: files.get(list.bundledFile!)!, force: true },
          registry,
        );
        expect([list.id, summary.ok]).toEqual([list.id, true]);
      }

    syncVendorRegistry(online.db, loadRegistry(registryPath));
    const summaries = await ingestAll(online.db, { registryPath, allowPrivateNetwork: true, timeoutMs: 5000 });
    expect(summaries.map((s) => [s.listId, s.ok, s.error])).toEqual(
      registry.flatMap((v) => v.lists.map((l) => [l.id, true, undefined])),
    );

    const read = entriesOf(online.db) as { kind: string; name: string | null; vendor: string; state: string | null }[];
    expect(read).toEqual(entriesOf(offline.db) as typeof read);
    expect(read.length).toBeGreaterThan(100);
    expect(read.every((e) => e.kind === "payer")).toBe(true);
    // The CSVs' columns: a plan without a brand is named by its parent; a state program has its state.
    expect(read.some((e) => e.vendor === "1uphealth-health-plans" && e.name === "Priority Health")).toBe(true);
    expect(read.find((e) => e.vendor === "state-medicaid" && e.name === "Alabama")?.state).toBe("AL");
    // A plan's one unnamed server is the plan's own.
    expect(read.filter((e) => e.vendor === "aetna").map((e) => e.name)).toEqual(["Aetna"]);
  } finally {
    offline.cleanup();
    online.cleanup();
  }
});
