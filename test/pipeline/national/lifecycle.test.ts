import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { ingestFile } from "../../../src/pipeline/ingest";
import { readBundle } from "../../../src/pipeline/ingest/national-lists";
import { createTestApp } from "../../support/app";
import { get } from "../../support/fixture";

type Item = { URL: string; OrganizationName: string; NPIID: string; OrganizationZipCode: string };

const dir = mkdtempSync(join(tmpdir(), "national-lifecycle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a developer's real list, an older copy then the current one (same list id)", () => {
  // eClinicalWorks' list as bundled; the older copy lacks its first 30 practices and still has
  // 5 practices that have since left the list.
  const current = (
    JSON.parse(readBundle().files.get("eClinicalWorks_LLC_EndpointSources.json")!) as { Endpoints: Item[] }
  ).Endpoints;
  const newSince = current.slice(0, 30);
  const goneSince: Item[] = [1, 2, 3, 4, 5].map((n) => ({
    URL: `https://fhir4.eclinicalworks.com/fhir/r4/CLOSED${n}`,
    OrganizationName: `Closed Practice ${n}`,
    NPIID: "",
    OrganizationZipCode: "28304",
  }));
  const older = [...current.slice(30), ...goneSince];
  const write = (name: string, items: Item[]) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify({ Endpoints: items }));
    return file;
  };
  const db = openDatabase(join(dir, "directory.sqlite"));
  const ids = () =>
    new Map(
      (
        db.sqlite.prepare("SELECT id, organization_name AS name, status FROM entries").all() as {
          id: string;
          name: string;
          status: string;
        }[]
      ).map((r) => [r.id, r]),
    );

  test("marks exactly the entries gone as removed, adds the new ones, keeps every id present in both", async () => {
    const first = await ingestFile(db, {
      vendorId: "eclinicalworks",
      listId: "eclinicalworks-r4",
      file: write("older.json", older),
      now: "2024-01-01T00:00:00.000Z",
    });
    expect(first).toMatchObject({ ok: true, removed: 0 });
    const before = ids();
    expect(before.size).toBe(first.added);

    const second = await ingestFile(db, {
      vendorId: "eclinicalworks",
      listId: "eclinicalworks-r4",
      file: write("current.json", current),
      now: "2024-04-01T00:00:00.000Z",
    });
    const after = ids();
    const removed = [...after.values()].filter((r) => r.status === "removed");
    expect(removed.map((r) => r.name).sort()).toEqual(goneSince.map((i) => i.OrganizationName));
    expect(second).toMatchObject({ ok: true, removed: 5, added: after.size - before.size, updated: 0 });
    const added = [...after.keys()].filter((id) => !before.has(id));
    expect(added.length).toBe(second.added);
    expect(new Set(added.map((id) => after.get(id)!.name))).toEqual(
      new Set(newSince.map((i) => i.OrganizationName.replace(/\s+/g, " ").trim())),
    );
    for (const [id, row] of before) {
      expect(after.has(id)).toBe(true);
      if (!row.name.startsWith("Closed Practice")) expect(after.get(id)!.status).toBe("listed");
    }
  });

  test("the removed entries leave the listings and still answer by id", async () => {
    const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    const removed = db.sqlite.prepare("SELECT id FROM entries WHERE status = 'removed'").all() as { id: string }[];
    const listed = (
      db.sqlite.prepare("SELECT COUNT(*) AS n FROM entries WHERE status != 'removed'").get() as { n: number }
    ).n;
    expect((await get(app, "/api/v1/endpoints?vendor=eclinicalworks")).body.meta.total).toBe(listed);
    expect((await get(app, "/api/v1/endpoints?query=closed%20practice")).body.meta.total).toBe(0);
    const vendor = (await get(app, "/api/v1/vendors")).body.data.find((v: { id: string }) => v.id === "eclinicalworks");
    expect(vendor.endpointCount).toBe(listed);
    expect((await get(app, "/api/v1/stats")).body.data.totalEndpoints).toBe(listed);
    for (const { id } of removed)
      expect((await get(app, `/api/v1/endpoints/${id}`)).body.data).toMatchObject({ id, status: "removed" });
    app.directory.close();
  });
});
