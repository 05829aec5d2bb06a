import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  bundle,
  FOUR,
  query,
  readEntries,
  removeTempDirs,
  runCli,
  snapshot,
  tempDir,
  writeFile,
  writeRegistry,
} from "./cli-helpers";
import { expectedId } from "./helpers";

/** Lists the test server answers at /lists/<name>; /status/<code> answers with that status. */
const served = new Map<string, string>();
let server: ReturnType<typeof Bun.serve>;
let base: string;

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      const status = /^\/status\/(\d{3})$/.exec(path);
      if (status) return new Response("upstream trouble", { status: Number(status[1]) });
      const body = served.get(path.replace(/^\/lists\//, ""));
      return body === undefined
        ? new Response("not found", { status: 404 })
        : new Response(body, { headers: { "content-type": "application/fhir+json" } });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => {
  server.stop(true);
  removeTempDirs();
});

/** A fresh database path and registry; `ingest(file content)` runs the CLI on acme's patient list. */
function setup() {
  const dir = tempDir();
  // The test server is on 127.0.0.1, which the private-address guard refuses without the switch.
  const env = { DATABASE_PATH: join(dir, "db", "directory.sqlite"), ALLOW_PRIVATE_NETWORK: "true" };
  const registry = writeRegistry(dir, base, [
    {
      id: "broken",
      name: "Broken Vendor",
      endpointListUrl: "https://broken.test",
      lists: [{ id: "broken-r4", url: `${base}/status/503`, format: "fhir-bundle", audience: null, fhirVersion: "R4" }],
    },
    {
      id: "offline",
      name: "Offline Vendor",
      endpointListUrl: "https://offline.test",
      lists: [
        {
          id: "offline-r4",
          url: "http://127.0.0.1:1/list.json",
          format: "fhir-bundle",
          audience: null,
          fhirVersion: "R4",
        },
      ],
    },
  ]);
  let n = 0;
  const ingest = (content: string, list = "acme-patient", ...extra: string[]) =>
    runCli(
      [
        "--vendor",
        "acme",
        "--file",
        writeFile(dir, `list-${n++}.json`, content),
        "--list",
        list,
        "--registry",
        registry,
        ...extra,
      ],
      env,
    );
  return { dir, env, registry, ingest, db: env.DATABASE_PATH };
}

describe("ingest CLI on a real SQLite file", () => {
  test("first ingest: entries listed with list hints, ids per docs/api.md, vendor and list scrape times", async () => {
    const { ingest, db } = setup();
    const run = await ingest(bundle(FOUR));
    expect(run.code).toBe(0);
    expect(run.output).toMatch(/acme\s+acme-patient\s+ok\s+4\s+0\s+0\s+0\s+0/);

    const entries = readEntries(db);
    expect(entries.size).toBe(4);
    const alpha = entries.get("Alpha Clinic")!;
    expect(alpha.id).toBe(expectedId("acme", "https://fhir.acme.test/r4/a", "1234567893", "Alpha Clinic"));
    expect(alpha).toMatchObject({
      url: "https://fhir.acme.test/r4/a",
      npi: "1234567893",
      city: "Dallas",
      state: "TX",
      status: "listed",
      fhir_version: "R4",
      access: '["patient"]',
    });
    expect(entries.get("Gamma Care")).toMatchObject({ state: "TX", city: "Austin" });
    expect(entries.get("Beta Health")?.id).toBe(expectedId("acme", "https://fhir.acme.test/r4/b", null, "Beta Health"));

    const [vendor] = query<{ last_scraped_at: string | null }>(
      db,
      "SELECT last_scraped_at FROM vendors WHERE id = 'acme'",
    );
    expect(vendor?.last_scraped_at).toBe(alpha.last_updated);
    const [list] = query<{ last_entry_count: number; audience: string }>(
      db,
      "SELECT last_entry_count, audience FROM vendor_lists WHERE id = 'acme-patient'",
    );
    expect(list).toEqual({ last_entry_count: 4, audience: "patient" });
    const [version] = query<{ value: string }>(db, "SELECT value FROM dataset_meta WHERE key = 'dataset_version'");
    expect(Number(version?.value)).toBeGreaterThan(0);
  });

  test("an unchanged re-ingest changes no lastUpdated, but records the scrape", async () => {
    const { ingest, db } = setup();
    await ingest(bundle(FOUR));
    const before = readEntries(db);
    const [vendorBefore] = query<{ last_scraped_at: string }>(db, "SELECT last_scraped_at FROM vendors");
    await Bun.sleep(5);
    const run = await ingest(bundle(FOUR));
    expect(run.code).toBe(0);
    expect(run.output).toMatch(/acme-patient\s+ok\s+0\s+0\s+4\s+0\s+0/);
    expect(readEntries(db)).toEqual(before);
    const [vendorAfter] = query<{ last_scraped_at: string }>(db, "SELECT last_scraped_at FROM vendors");
    expect(vendorAfter!.last_scraped_at > vendorBefore!.last_scraped_at).toBe(true);
  });

  test("a changed entry is updated and only its lastUpdated moves", async () => {
    const { ingest, db } = setup();
    await ingest(bundle(FOUR));
    const before = readEntries(db);
    await Bun.sleep(5);
    const changed = FOUR.map((org) => (org.key === "b" ? { ...org, city: "Houston" } : org));
    const run = await ingest(bundle(changed));
    expect(run.output).toMatch(/acme-patient\s+ok\s+0\s+1\s+3\s+0\s+0/);
    const after = readEntries(db);
    expect(after.get("Beta Health")?.city).toBe("Houston");
    expect(after.get("Beta Health")!.last_updated > before.get("Beta Health")!.last_updated).toBe(true);
    for (const name of ["Alpha Clinic", "Gamma Care", "Delta Medical"])
      expect(after.get(name)).toEqual(before.get(name)!);
  });

  test("an entry gone from its list becomes removed, keeps answering, and is listed again when it reappears", async () => {
    const { ingest, db } = setup();
    await ingest(bundle(FOUR));
    const first = readEntries(db);
    await Bun.sleep(5);

    const removal = await ingest(bundle(FOUR.filter((o) => o.key !== "d")));
    expect(removal.code).toBe(0);
    expect(removal.output).toMatch(/acme-patient\s+ok\s+0\s+0\s+3\s+1\s+0/);
    const afterRemoval = readEntries(db);
    expect(afterRemoval.size).toBe(4);
    expect(afterRemoval.get("Delta Medical")?.status).toBe("removed");
    expect(afterRemoval.get("Delta Medical")?.id).toBe(first.get("Delta Medical")!.id);
    expect(afterRemoval.get("Delta Medical")!.last_updated > first.get("Delta Medical")!.last_updated).toBe(true);
    expect(afterRemoval.get("Alpha Clinic")).toEqual(first.get("Alpha Clinic")!);
    expect(
      query(
        db,
        "SELECT present FROM entry_sources es JOIN entries e ON e.row_id = es.entry_row_id WHERE e.organization_name = 'Delta Medical'",
      ),
    ).toEqual([{ present: 0 }]);

    await Bun.sleep(5);
    const reappearance = await ingest(bundle(FOUR));
    expect(reappearance.output).toMatch(/acme-patient\s+ok\s+1\s+0\s+3\s+0\s+0/);
    const back = readEntries(db).get("Delta Medical")!;
    expect(back.status).toBe("listed");
    expect(back.id).toBe(first.get("Delta Medical")!.id);
    expect(back.last_updated > afterRemoval.get("Delta Medical")!.last_updated).toBe(true);
  });

  test("an entry carried by two lists stays listed until both drop it; access follows the lists", async () => {
    const { ingest, db } = setup();
    await ingest(bundle(FOUR), "acme-patient");
    await ingest(bundle(FOUR), "acme-provider");
    expect(readEntries(db).get("Delta Medical")?.access).toBe('["patient","provider"]');

    await ingest(bundle(FOUR.filter((o) => o.key !== "d")), "acme-patient");
    expect(readEntries(db).get("Delta Medical")).toMatchObject({ status: "listed", access: '["provider"]' });

    await ingest(bundle(FOUR.filter((o) => o.key !== "d")), "acme-provider");
    expect(readEntries(db).get("Delta Medical")?.status).toBe("removed");
  });

  test("a list whose organizations are renamed keeps the old entries as removed", async () => {
    const { ingest, db } = setup();
    await ingest(bundle(FOUR));
    const renamed = FOUR.map((o) => (o.key === "c" ? { ...o, name: "Gamma Care Partners" } : o));
    await ingest(bundle(renamed));
    const entries = readEntries(db);
    expect(entries.get("Gamma Care")?.status).toBe("removed");
    expect(entries.get("Gamma Care Partners")?.status).toBe("listed");
  });
});

describe("a saved list of loopback URLs (--file)", () => {
  const loopback = () => bundle(FOUR).replaceAll("https://fhir.acme.test", "http://127.0.0.7:8080");
  const unusable = (db: string) =>
    query<{ unusable: string | null }>(db, "SELECT unusable FROM entries ORDER BY id").map((r) => r.unusable);

  test("with ALLOW_PRIVATE_NETWORK=true its entries are stored usable (not kept out as local)", async () => {
    const { ingest, db } = setup();
    expect((await ingest(loopback())).code).toBe(0);
    expect(unusable(db)).toEqual([null, null, null, null]);
  });

  test("without it they are stored as unusable", async () => {
    const { ingest, db, env } = setup();
    env.ALLOW_PRIVATE_NETWORK = "false";
    expect((await ingest(loopback())).code).toBe(0);
    const reasons = unusable(db);
    expect(reasons).toHaveLength(4);
    for (const reason of reasons) expect(reason).not.toBeNull();
  });
});

describe("a failed scrape changes nothing and exits non-zero", () => {
  async function expectRefused(run: { code: number; output: string }, db: string, before: string, reason: RegExp) {
    expect(run.code).toBe(1);
    expect(run.output).toMatch(reason);
    expect(run.output).toMatch(/FAILED/);
    expect(snapshot(db)).toBe(before);
  }

  test("an empty list", async () => {
    const { ingest, db } = setup();
    await ingest(bundle(FOUR));
    const before = snapshot(db);
    await expectRefused(await ingest(bundle([])), db, before, /empty/);
  });

  test("a list that lost more than half of its entries at once (3 of 4); losing exactly half is accepted", async () => {
    const { ingest, db } = setup();
    await ingest(bundle(FOUR));
    const before = snapshot(db);
    await expectRefused(await ingest(bundle(FOUR.slice(0, 1))), db, before, /lost 3 of its 4 entries/);
    const half = await ingest(bundle(FOUR.slice(0, 2)));
    expect(half.code).toBe(0);
    expect(half.output).toMatch(/acme-patient\s+ok\s+0\s+0\s+2\s+2\s+0/);
  });

  test("an unparseable body", async () => {
    const { ingest, db } = setup();
    await ingest(bundle(FOUR));
    const before = snapshot(db);
    await expectRefused(
      await ingest("<!DOCTYPE html><html><body>Our endpoints</body></html>"),
      db,
      before,
      /unparseable/,
    );
    await expectRefused(await ingest('{"resourceType":"Bundle","entry":['), db, before, /unparseable: invalid JSON/);
  });

  test("a non-2xx answer from the list's server", async () => {
    const { env, registry, ingest, db } = setup();
    await ingest(bundle(FOUR));
    const before = snapshot(db);
    const run = await runCli(["--vendor", "broken", "--registry", registry], env);
    await expectRefused(run, db, before, /HTTP 503/);
  });

  test("a network error", async () => {
    const { env, registry, ingest, db } = setup();
    await ingest(bundle(FOUR));
    const before = snapshot(db);
    const run = await runCli(["--vendor", "offline", "--registry", registry, "--timeout", "5000"], env);
    await expectRefused(run, db, before, /network error/);
  });

  test("a missing database file is created and migrated, and stays empty", async () => {
    const { ingest, db } = setup();
    expect(existsSync(db)).toBe(false);
    const run = await ingest(bundle([]));
    expect(run.code).toBe(1);
    expect(existsSync(db)).toBe(true);
    expect(query(db, "SELECT count(*) AS n FROM entries")).toEqual([{ n: 0 }]);
    expect(query(db, "SELECT count(*) AS n FROM vendors")).toEqual([{ n: 0 }]);
  });
});

describe("--force", () => {
  test("accepts a list that lost more than half of its entries", async () => {
    const { ingest, db } = setup();
    await ingest(bundle(FOUR));
    const run = await ingest(bundle(FOUR.slice(0, 1)), "acme-patient", "--force");
    expect(run.code).toBe(0);
    expect(run.output).toMatch(/acme-patient\s+ok\s+0\s+0\s+1\s+3\s+0/);
    expect([...readEntries(db).values()].filter((e) => e.status === "removed")).toHaveLength(3);
  });

  test("accepts an empty list: every entry of it is removed, none deleted", async () => {
    const { ingest, db } = setup();
    await ingest(bundle(FOUR));
    const run = await ingest(bundle([]), "acme-patient", "--force");
    expect(run.code).toBe(0);
    const entries = [...readEntries(db).values()];
    expect(entries).toHaveLength(4);
    expect(entries.every((e) => e.status === "removed")).toBe(true);
  });

  test("does not accept an unparseable body", async () => {
    const { ingest, db } = setup();
    await ingest(bundle(FOUR));
    const before = snapshot(db);
    const run = await ingest("<html></html>", "acme-patient", "--force");
    expect(run.code).toBe(1);
    expect(snapshot(db)).toBe(before);
  });
});

describe("network ingest", () => {
  test("fetches every list of a vendor, follows Bundle paging, prints a line per list and a summary", async () => {
    const { env, registry, db } = setup();
    served.set("acme-patient", bundle(FOUR.slice(0, 2), `${base}/lists/acme-patient-page-2`));
    served.set("acme-patient-page-2", bundle(FOUR.slice(2)));
    served.set("acme-provider", bundle(FOUR.slice(0, 1)));
    const run = await runCli(["--vendor", "acme", "--registry", registry], env);
    expect(run.code).toBe(0);
    expect(run.output).toMatch(/\[1\/2\] acme \/ acme-patient: ok, 4 added/);
    expect(run.output).toMatch(/\[2\/2\] acme \/ acme-provider: ok, 1 added/);
    expect(run.output).toMatch(/acme-provider\s+ok\s+1\s+0\s+0\s+0\s+0/);
    expect(readEntries(db).get("Alpha Clinic")?.access).toBe('["patient","provider"]');
  });

  test("one failing list fails the run but the others are stored", async () => {
    const { env, registry, db } = setup();
    served.set("acme-patient", bundle(FOUR));
    served.set("acme-provider", bundle(FOUR));
    const run = await runCli(["--registry", registry, "--timeout", "5000"], env);
    expect(run.code).toBe(1);
    expect(run.output).toMatch(/broken-r4: FAILED, HTTP 503/);
    expect(run.output).toMatch(/acme-patient\s+ok\s+4/);
    expect(readEntries(db).size).toBe(4);
  });

  test("usage errors exit with 2", async () => {
    const { env } = setup();
    expect((await runCli(["--file", "x.json"], env)).code).toBe(2);
    expect((await runCli(["--vendor", "acme", "--list", "acme-patient"], env)).code).toBe(2);
    expect((await runCli(["--bogus"], env)).code).toBe(2);
  });
});
