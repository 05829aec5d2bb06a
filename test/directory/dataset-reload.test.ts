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

describe("the version a refresh replaces", () => {
  test("holds no read transaction once swapped out: a checkpoint folds each write into the file", async () => {
    const { app, db } = fixtureApp();
    /** PRAGMA wal_checkpoint's answer: a reader holding back, the log's frames, those folded into the file. */
    const checkpoint = () => {
      const [busy, frames, folded] = db.sqlite.prepare("PRAGMA wal_checkpoint(PASSIVE)").values()[0] as number[];
      return { busy: busy!, frames: frames!, folded: folded! };
    };
    for (const [name, at] of [
      ["Zephyr Clinic", "2026-11-22T00:00:00.000Z"],
      ["Yarrow Clinic", "2026-11-23T00:00:00.000Z"],
    ] as const) {
      // Served answers read through the version's connection (statements prepared on it).
      for (const path of ["/api/v1/endpoints?vendor=meditech", "/api/v1/stats", "/api/v1/vendors"])
        expect((await get(app, path)).status).toBe(200);
      addEntry(db, name, at);
      const written = checkpoint().frames;
      // Until the swap the served version's reader holds the write out of the file; once it is
      // swapped out, nothing does (the new version's reader sees the write).
      expect(checkpoint().folded).toBeLessThan(written);
      expect(await app.directory.refreshIfChanged()).toBe(true);
      const after = checkpoint();
      expect(after.busy).toBe(0);
      expect(after.folded).toBeGreaterThanOrEqual(written);
    }
    app.directory.close();
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
