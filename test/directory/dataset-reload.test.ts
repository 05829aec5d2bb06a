import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { markDatasetChanged } from "../../src/db/dataset-meta";
import { canonicalUrl, entryId } from "../../src/model/identity";
import { createTestApp } from "../support/app";
import { fixtureApp, get } from "../support/fixture";

function addEntry(db: ReturnType<typeof fixtureApp>["db"], name: string, at: string) {
  const url = canonicalUrl("https://fhir.new.example/r4");
  const id = entryId("meditech", url, null, name);
  db.sqlite.transaction(() => {
    db.sqlite
      .prepare(
        "INSERT INTO entries (id, vendor_id, url, organization_name, fhir_version, access, status, last_updated) VALUES (?, 'meditech', ?, ?, 'R4', '[]', 'listed', ?)",
      )
      .run(id, url, name, at);
    markDatasetChanged(db.sqlite, at);
  })();
}

describe("a refresh switches the served dataset without a restart", () => {
  test("until the switch, every response comes from the old version; after it, from the new one", async () => {
    const { app, db } = fixtureApp();
    const before = await get(app, "/api/v1/endpoints?vendor=meditech");
    addEntry(db, "Zephyr Clinic", "2026-11-22T00:00:00.000Z");
    const stillOld = await get(app, "/api/v1/endpoints?vendor=meditech");
    expect(stillOld.body.meta.total).toBe(2);
    // The fixture's 12 entries but its removed one.
    expect((await get(app, "/api/v1/stats")).body.data.totalEndpoints).toBe(11);

    expect(await app.directory.refreshIfChanged()).toBe(true);
    const after = await get(app, "/api/v1/endpoints?vendor=meditech");
    expect(after.body.data.map((e: { organizationName: string }) => e.organizationName)).toEqual([
      "Lake Medical",
      "Valley Regional",
      "Zephyr Clinic",
    ]);
    expect(after.response.headers.get("etag")).not.toBe(before.response.headers.get("etag"));
    expect((await get(app, "/api/v1/stats")).body.data).toMatchObject({
      totalEndpoints: 12,
      lastUpdated: "2026-11-22T00:00:00.000Z",
    });
    expect(
      (await get(app, "/api/v1/vendors")).body.data.find((v: { id: string }) => v.id === "meditech").endpointCount,
    ).toBe(3);
    expect(await app.directory.refreshIfChanged()).toBe(false);
  });

  test("the ETag stays the same while the dataset does", async () => {
    const { app } = fixtureApp();
    const a = await get(app, "/api/v1/vendors");
    await app.directory.refreshIfChanged();
    const b = await get(app, "/api/v1/vendors");
    expect(b.response.headers.get("etag")).toBe(a.response.headers.get("etag"));
  });
});

describe("two datasets at the same version number", () => {
  test("never share cached bodies or ETags", async () => {
    const a = fixtureApp().app;
    const { app: b, db } = fixtureApp();
    addEntry(db, "Zephyr Clinic", "2026-11-23T00:00:00.000Z");
    db.sqlite.prepare("UPDATE dataset_meta SET value = '1' WHERE key = 'dataset_version'").run();
    const bFresh = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    const first = await get(a, "/api/v1/stats");
    const second = await get(bFresh, "/api/v1/stats");
    expect(bFresh.directory.current.version).toBe(a.directory.current.version);
    expect(first.body.data.totalEndpoints).toBe(11);
    expect(second.body.data.totalEndpoints).toBe(12);
    expect(second.response.headers.get("etag")).not.toBe(first.response.headers.get("etag"));
    expect((await get(b, "/api/v1/endpoints?vendor=meditech")).body.meta.total).toBe(2);
  });
});
