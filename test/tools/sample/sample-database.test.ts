/**
 * The bundled sample dataset, checked with plain SQL on the built file (not through the code
 * under test): every value the product promises to show appears in it, each sample server's
 * recorded answer produced the probe outcome the manifest says, and builds are deterministic (this
 * file's build and the one the tests share, test/support/built-once.ts).
 *
 * This file builds the sample twice, both with the CLI (`bun run data:sample`), in beforeAll:
 * once with --out (the build whose contents the tests read), once at DATABASE_PATH over an
 * existing file (the tests of the default target and of a file replaced whole). Each build costs
 * two CPU seconds; the tests read what these two left.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listHostRules } from "../../../src/pipeline/ingest/list-hosts";
import { buildSampleDatabase } from "../../../tools/sample/build";
import { sampleDatabase } from "../../support/built-once";
import { runScript } from "../../support/run-script";

const ROOT = join(import.meta.dir, "../..", "..");
const SAMPLE = join(ROOT, "db", "sample");
/** The probes table with each row's two bodies (stored once in probe_bodies) as metadata_body and smart_body. */
const PROBES = `(SELECT p.*, m.body AS metadata_body, s.body AS smart_body FROM probes p
  LEFT JOIN probe_bodies m ON m.id = p.metadata_body_id LEFT JOIN probe_bodies s ON s.id = p.smart_body_id)`;

interface Manifest {
  steps: (
    | { action: "ingest"; file: string; vendorId: string; listId: string; now: string }
    | { action: "probe"; now: string }
  )[];
  profiles: Record<
    string,
    {
      expect: string;
      unreachable?: true;
      metadata?: { status: number; file?: string };
      smart?: { status: number; file?: string };
    }
  >;
  servers: Record<string, string>;
}
const manifest = JSON.parse(readFileSync(join(SAMPLE, "manifest.json"), "utf8")) as Manifest;
const registry = JSON.parse(readFileSync(join(SAMPLE, "vendors.json"), "utf8")) as {
  vendors: { id: string; name: string }[];
};

let dir: string;
let db: Database;
let second: Database;
/** The CLI's run with --out: its exit code, output and wall time. */
let withOut: { exitCode: number; stdout: string; seconds: number };
/** The CLI's run with DATABASE_PATH over an existing file (marked, with a stale WAL beside it). */
let atDatabasePath: { exitCode: number; out: string };

const all = <T>(sql: string, ...params: (string | number)[]) => db.prepare(sql).all(...params) as T[];
const one = <T>(sql: string, ...params: (string | number)[]) => db.prepare(sql).get(...params) as T;
const column = (sql: string) => all<{ v: string }>(sql).map((r) => r.v);
/** `host/path` of a stored base URL, as the manifest names servers. */
const keyOf = (url: string) => url.replace(/^https?:\/\//, "").replace(/\/+$/, "");

/** `bun run data:sample` with these arguments and variables; its exit code, output and wall time. */
async function sampleCli(args: string[], env: Record<string, string> = {}) {
  const started = performance.now();
  const { code, stdout } = await runScript("tools/sample/cli.ts", args, env);
  return { exitCode: code, stdout, seconds: (performance.now() - started) / 1000 };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sample-db-"));
  // The other build: the one the tests share, made by another process when it is cached already.
  await sampleDatabase(join(dir, "b", "directory.sqlite"));
  // An existing database at DATABASE_PATH, marked so that the test sees it replaced, and a stale WAL.
  const existing = join(dir, "env", "directory.sqlite");
  mkdirSync(join(dir, "env"));
  copyFileSync(join(dir, "b", "directory.sqlite"), existing);
  const marked = new Database(existing);
  marked.run("INSERT INTO dataset_meta (key, value) VALUES ('left-by', 'the file replaced')");
  marked.close();
  writeFileSync(`${existing}-wal`, "stale");
  // One after the other: each probes a local replay of the recorded answers, with time-outs.
  withOut = await sampleCli(["--out", join(dir, "a", "directory.sqlite")]);
  atDatabasePath = { exitCode: (await sampleCli([], { DATABASE_PATH: existing })).exitCode, out: existing };
  db = new Database(join(dir, "a", "directory.sqlite"), { readonly: true });
  second = new Database(join(dir, "b", "directory.sqlite"), { readonly: true });
}, 60_000);

afterAll(() => {
  db?.close();
  second?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("sample database contents", () => {
  test("marked as generated, so that no server ever refreshes its invented hosts", () => {
    expect(one<{ value: string }>("SELECT value FROM dataset_meta WHERE key = 'generated_by'").value).toBe(
      "data:sample",
    );
  });

  test("at least 2,000 entries of at least 8 real vendors from the registry", () => {
    expect(one<{ n: number }>("SELECT COUNT(*) AS n FROM entries").n).toBeGreaterThanOrEqual(2000);
    const vendorIds = column("SELECT DISTINCT vendor_id AS v FROM entries");
    expect(vendorIds.length).toBeGreaterThanOrEqual(8);
    const registered = new Map(registry.vendors.map((v) => [v.id, v.name]));
    for (const id of vendorIds) expect(registered.has(id)).toBe(true);
    for (const row of all<{ id: string; name: string }>("SELECT id, name FROM vendors"))
      expect(row.name).toBe(registered.get(row.id)!);
  });

  test("every fhirVersion, status, probeStatus and access shape", () => {
    expect(column("SELECT DISTINCT fhir_version AS v FROM entries ORDER BY v")).toEqual([
      "DSTU2",
      "R4",
      "R4B",
      "R5",
      "STU3",
      "UNKNOWN",
    ]);
    expect(column("SELECT DISTINCT status AS v FROM entries ORDER BY v")).toEqual([
      "listed",
      "removed",
      "unresponsive",
      "verified",
    ]);
    expect(
      column(
        "SELECT DISTINCT COALESCE(p.probe_status, 'unchecked') AS v FROM entries e LEFT JOIN probes p ON p.url = e.url ORDER BY v",
      ),
    ).toEqual(["failed", "partial", "success", "unchecked"]);
    expect(column("SELECT DISTINCT access AS v FROM entries ORDER BY v")).toEqual([
      '["patient","provider"]',
      '["patient"]',
      '["provider"]',
      "[]",
    ]);
  });

  test("30+ states, NPIs on some entries, organization names with accents and punctuation", () => {
    const states = column("SELECT DISTINCT state AS v FROM entries WHERE state IS NOT NULL");
    expect(states.length).toBeGreaterThanOrEqual(30);
    for (const state of states) expect(state).toMatch(/^[A-Z]{2}$/);
    const npis = column("SELECT npi AS v FROM entries WHERE npi IS NOT NULL");
    expect(npis.length).toBeGreaterThan(100);
    expect(npis.length).toBeLessThan(one<{ n: number }>("SELECT COUNT(*) AS n FROM entries").n);
    for (const npi of npis) expect(npi).toMatch(/^\d{10}$/);
    const names = new Set(column("SELECT organization_name AS v FROM entries"));
    for (const name of [
      "Clínica Señor de los Milagros",
      "St. Mary's Regional Medical Center",
      "O'Brien & Sons Family Practice",
    ])
      expect(names.has(name)).toBe(true);
  });

  test("entries share URLs: a few hundred on one, and several other shared ones", () => {
    const shared = all<{ url: string; n: number }>(
      "SELECT url, COUNT(*) AS n FROM entries GROUP BY url HAVING n > 1 ORDER BY n DESC",
    );
    expect(shared.length).toBeGreaterThanOrEqual(3);
    expect(shared[0]!.n).toBeGreaterThanOrEqual(300);
  });

  test("removed entries are exactly those the later list version dropped", () => {
    const addresses = (file: string) =>
      new Set(
        (
          JSON.parse(readFileSync(join(SAMPLE, file), "utf8")) as {
            entry: { resource: { resourceType: string; address?: string } }[];
          }
        ).entry
          .filter((e) => e.resource.resourceType === "Endpoint")
          .map((e) => e.resource.address!.replace(/\/+$/, "")),
      );
    const ingests = manifest.steps.filter((s) => s.action === "ingest");
    const versions = ingests.filter((s) => s.file.includes(".v1.") || s.file.includes(".v2."));
    expect(versions.map((s) => s.file)).toEqual([
      "lists/oracle-health-patient-r4.v1.json",
      "lists/oracle-health-patient-r4.v2.json",
    ]);
    const v1 = addresses(versions[0]!.file);
    const v2 = addresses(versions[1]!.file);
    const dropped = [...v1].filter((url) => !v2.has(url)).sort();
    expect(dropped.length).toBeGreaterThan(0);
    expect(column("SELECT url AS v FROM entries WHERE status = 'removed' ORDER BY url")).toEqual(dropped);
  });

  test("the demo trips none of its own host rules: no entry is unusable, not even with every list as one", async () => {
    expect(column("SELECT DISTINCT unusable AS v FROM entries WHERE unusable IS NOT NULL")).toEqual([]);
    // Its own FHIR export, re-ingested, is one list holding every host of the sample.
    const { generateSample } = await import("../../../tools/sample/generate");
    const urls = [...generateSample()]
      .filter(([path]) => path.startsWith("lists/"))
      .flatMap(([, content]) => [...content.matchAll(/https?:\/\/[^\s",]+/g)].map((m) => m[0]));
    expect(urls.length).toBeGreaterThan(2_000);
    const rule = listHostRules(urls);
    expect(urls.flatMap((url) => (rule(url) === null ? [] : [`${url}: ${rule(url)!.reason}`]))).toEqual([]);
  });

  test("timestamps are the manifest's fixed times", () => {
    const times = new Set(manifest.steps.map((s) => s.now));
    for (const at of column("SELECT DISTINCT last_updated AS v FROM entries")) expect(times.has(at)).toBe(true);
    for (const at of column("SELECT DISTINCT probed_at AS v FROM probes")) expect(times.has(at)).toBe(true);
  });
});

describe("probe results follow the manifest", () => {
  test("each probed URL has the outcome of its profile; unlisted URLs were never probed", () => {
    const probes = all<{ url: string; probe_status: string }>("SELECT url, probe_status FROM probes");
    expect(probes.length).toBeGreaterThan(1000);
    for (const { url, probe_status } of probes) {
      const profile = manifest.profiles[manifest.servers[keyOf(url)]!];
      expect(profile ? `${url} ${profile.expect}` : `${url} not in manifest`).toBe(`${url} ${probe_status}`);
    }
    for (const url of column(
      "SELECT DISTINCT e.url AS v FROM entries e LEFT JOIN probes p ON p.url = e.url WHERE p.url IS NULL",
    )) {
      expect(manifest.servers[keyOf(url)]).toBeUndefined();
    }
  });

  test("unreachable → unresponsive; 401 on both → failed with status unchanged; metadata answered → verified", () => {
    const rows = all<{ url: string; status: string }>(
      "SELECT e.url, e.status FROM entries e JOIN probes p ON p.url = e.url WHERE e.status != 'removed'",
    );
    const seen = new Set<string>();
    for (const { url, status } of rows) {
      const name = manifest.servers[keyOf(url)]!;
      const profile = manifest.profiles[name]!;
      const expected = profile.unreachable ? "unresponsive" : profile.metadata!.status === 200 ? "verified" : "listed";
      expect(`${url} ${status}`).toBe(`${url} ${expected}`);
      seen.add(expected);
    }
    expect([...seen].sort()).toEqual(["listed", "unresponsive", "verified"]);
  });

  test("stored bodies are the recorded answers byte for byte", () => {
    const rows = all<{ url: string; metadata_body: string | null; smart_body: string | null }>(
      `SELECT url, metadata_body, smart_body FROM ${PROBES}`,
    );
    let compared = 0;
    for (const row of rows) {
      const profile = manifest.profiles[manifest.servers[keyOf(row.url)]!]!;
      if (profile.metadata?.status === 200) {
        expect(row.metadata_body).toBe(readFileSync(join(SAMPLE, profile.metadata.file!), "utf8"));
        compared++;
      }
      if (profile.smart?.status === 200)
        expect(row.smart_body).toBe(readFileSync(join(SAMPLE, profile.smart.file!), "utf8"));
    }
    expect(compared).toBeGreaterThan(1000);
  });

  test("capability statements differ in version and resources", () => {
    const rows = all<{ fhir_version: string; supported_resources: string }>(
      `SELECT DISTINCT fhir_version, supported_resources FROM ${PROBES} WHERE metadata_body IS NOT NULL`,
    );
    expect(new Set(rows.map((r) => r.fhir_version))).toEqual(new Set(["DSTU2", "STU3", "R4", "R4B", "R5", "UNKNOWN"]));
    expect(new Set(rows.map((r) => r.supported_resources)).size).toBeGreaterThanOrEqual(10);
    const versions = all<{ v: string; n: number }>(
      `SELECT json_extract(metadata_body, '$.fhirVersion') AS v, COUNT(*) AS n FROM ${PROBES} WHERE metadata_body IS NOT NULL GROUP BY v`,
    );
    expect(versions.map((r) => r.v).sort()).toEqual(["0.0.82", "1.0.2", "3.0.2", "4.0.1", "4.3.0", "5.0.0"]);
    const dstu2 = column(
      `SELECT DISTINCT json_extract(metadata_body, '$.resourceType') AS v FROM ${PROBES} WHERE json_extract(metadata_body, '$.fhirVersion') = '1.0.2'`,
    );
    expect(dstu2).toEqual(["Conformance"]);
  });

  test("every verdict shape appears: each app kind ready, partial, no and undeclared somewhere, and unknown while unprobed", () => {
    for (const kind of ["patientApps", "providerApps", "backendServices"]) {
      const statuses = column(
        `SELECT DISTINCT COALESCE(json_extract(e.verdict, '$.${kind}'), 'unknown') AS v FROM entries e WHERE e.status != 'removed' ORDER BY v`,
      );
      expect([kind, statuses]).toEqual([kind, ["no", "partial", "ready", "undeclared", "unknown"]]);
    }
    // The replayed real documents are among them, each stored as published: eClinicalWorks declares
    // the patient and clinician sets whole; Cerner's R4 sandbox lists private_key_jwt with RS384 and
    // ES384 but not client-confidential-asymmetric, how a server advertises it: partial.
    const real = (body: string, verdict: string) =>
      column(
        `SELECT DISTINCT p.url AS v FROM ${PROBES} p WHERE p.metadata_body LIKE '%${body}%' AND p.verdict LIKE '%${verdict}%'`,
      );
    expect(real("eclinicalworks", '"patientApps":"ready"').length).toBeGreaterThan(0);
    expect(real("cerner", '"backendServices":"partial"').length).toBeGreaterThan(0);
    expect(real("cerner", '"backendServices":"ready"')).toEqual([]);
  });
});

describe("determinism", () => {
  const entrySql =
    "SELECT id, vendor_id, url, organization_name, npi, tenant_id, city, state, zip_code, fhir_version, access, status, last_updated FROM entries ORDER BY id";
  const probeSql = `SELECT url, probed_at, probe_status, metadata_http_status, metadata_body, smart_http_status, smart_body, error_kind, fhir_version, software_name, software_version, supported_resources, smart_supported, access, smart_capabilities, grant_types FROM ${PROBES} ORDER BY url`;

  test("two builds give the same entries, probe results and vendors", () => {
    expect(second.prepare(entrySql).all()).toEqual(db.prepare(entrySql).all());
    expect(second.prepare(probeSql).all()).toEqual(db.prepare(probeSql).all());
    const vendorSql = "SELECT * FROM vendors ORDER BY id";
    expect(second.prepare(vendorSql).all()).toEqual(db.prepare(vendorSql).all());
  });

  test("the generator reproduces the committed sample files byte for byte", async () => {
    const { generateSample } = await import("../../../tools/sample/generate");
    const files = generateSample();
    const onDisk = (sub: string): string[] =>
      readdirSync(join(SAMPLE, sub), { withFileTypes: true }).flatMap((d) =>
        d.isDirectory() ? onDisk(join(sub, d.name)) : [join(sub, d.name)],
      );
    expect([...onDisk("lists"), ...onDisk("answers"), "manifest.json"].sort()).toEqual([...files.keys()].sort());
    let bytes = 0;
    for (const [path, content] of files) {
      expect(`${path}: ${readFileSync(join(SAMPLE, path), "utf8") === content}`).toBe(`${path}: true`);
      bytes += Buffer.byteLength(content);
    }
    expect(bytes).toBeLessThan(5 * 1024 * 1024);
    expect(generateSample()).toEqual(files);
  });
});

describe("building", () => {
  test("a failed build leaves nothing at the path and no temporary files", async () => {
    const broken = join(dir, "broken-sample");
    cpSync(SAMPLE, broken, { recursive: true });
    writeFileSync(join(broken, "lists", "medhost.json"), "<html>not a list</html>");
    const out = join(dir, "broken-out", "directory.sqlite");
    await expect(buildSampleDatabase(out, { sampleDir: broken })).rejects.toThrow(/medhost/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(join(dir, "broken-out"))).toEqual([]);
  });

  test("an existing file is replaced whole; no WAL or temporary file is left beside it", () => {
    const out = atDatabasePath.out;
    expect(atDatabasePath.exitCode).toBe(0);
    expect(readdirSync(join(dir, "env"))).toEqual(["directory.sqlite"]);
    const check = new Database(out, { readonly: true });
    expect((check.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
    expect((check.prepare("SELECT COUNT(*) AS n FROM entries").get() as { n: number }).n).toBeGreaterThanOrEqual(2000);
    // Nothing of the file it replaced: not the mark written into it.
    expect(check.prepare("SELECT value FROM dataset_meta WHERE key = 'left-by'").all()).toEqual([]);
    check.close();
  });

  test("`bun run data:sample --out` builds in under 20 s and prints a summary", () => {
    const out = join(dir, "a", "directory.sqlite");
    const { exitCode, stdout, seconds } = withOut;
    expect(exitCode).toBe(0);
    expect(seconds).toBeLessThan(20);
    expect(stdout).toContain("status: listed");
    expect(stdout).toMatch(/probeStatus: failed \d+, partial \d+, success \d+, unchecked \d+/);
    expect(stdout).toMatch(/fhirVersion: DSTU2 \d+, R4 \d+, R4B \d+, R5 \d+, STU3 \d+, UNKNOWN \d+/);
    expect(existsSync(out)).toBe(true);
  });

  test("DATABASE_PATH is the default target of the CLI", () => {
    // Built there: the file that was there is gone (the test above), a sample stands in its place.
    expect(atDatabasePath.exitCode).toBe(0);
    const built = new Database(atDatabasePath.out, { readonly: true });
    expect(built.prepare("SELECT value FROM dataset_meta WHERE key = 'generated_by'").get()).toEqual({
      value: "data:sample",
    });
    expect(built.prepare("SELECT value FROM dataset_meta WHERE key = 'left-by'").all()).toEqual([]);
    built.close();
  });
});
