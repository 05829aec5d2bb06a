/**
 * The published URLs ingest repairs on the bundled national lists (db/national/), each labelled
 * by kind: `/source` says the kind and the text as published; the record, the CSV and NDJSON
 * exports, the FHIR Endpoint (export and /fhir) mark it; a guessed URL stays out of the brands
 * bundle until a probe has verified it.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { markDatasetChanged } from "../../../src/db/dataset-meta";
import { repairName } from "../../../src/pipeline/ingest/enrich/name-repair";
import type { ListSummary } from "../../../src/pipeline/ingest/types";
import { formatUrlFindings, nameRepairCounts } from "../../../src/pipeline/national/audit";
import { createTestApp } from "../../support/app";
import { nationalAudit, nationalDatabase } from "../../support/built-once";

const EXTENSION = "https://endpoint-directory.fly.dev/fhir/StructureDefinition/endpoint-address-repair";

interface Repaired {
  id: string;
  url: string;
  kind: string;
  published: string;
}

let dir: string;
let path: string;
let app: ReturnType<typeof createTestApp>;
let repaired: Repaired[];
let summaries: ListSummary[];
/** URLs of the list's items published in full: a relative path that resolves to one is no guess. */
let publishedUrls: Set<string>;

const get = async (route: string) => {
  const response = await app.handle(new Request(`http://localhost${route}`));
  expect([route, response.status]).toEqual([route, 200]);
  return response;
};
const json = async <T>(route: string) => (await (await get(route)).json()) as T;
const endpointId = (url: string) => new Bun.CryptoHasher("sha256").update(url).digest("hex");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "national-repairs-"));
  path = join(dir, "national.sqlite");
  summaries = (await nationalDatabase(path)).summaries;
  const sqlite = new Database(path, { readonly: true });
  // `+id`: the rows found sorted, rather than the id index walked with a row lookup per entry.
  repaired = sqlite
    .prepare(
      `SELECT id, url, url_evidence AS kind, url_published AS published FROM entries
       WHERE url_evidence != 'published' AND unusable IS NULL ORDER BY +id`,
    )
    .all() as Repaired[];
  publishedUrls = new Set(
    (
      sqlite.prepare("SELECT url FROM entries WHERE url_evidence = 'published' AND unusable IS NULL").values() as [
        string,
      ][]
    ).map(([url]) => url),
  );
  sqlite.close();
  app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
}, 120_000);
afterAll(() => {
  app?.directory.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("repaired URLs of the bundled lists, by kind", () => {
  test("data:audit counts them: 4 cleaned, 3 with the scheme assumed, 17 with a guessed host", async () => {
    const report = await nationalAudit();
    const byKind = Object.fromEntries(report.urls.map((u) => [u.evidence, u.entries]));
    expect(byKind).toEqual({
      published: report.listed - 24,
      cleaned: 4,
      "scheme-assumed": 3,
      "host-guessed": 17,
    });
    // The 17 guesses are First Insight's relative paths, given fhir.maximeyes.com.
    const guessed = repaired.filter((r) => r.kind === "host-guessed");
    expect(guessed.every((r) => r.url.startsWith("https://fhir.maximeyes.com/") && /^api\//.test(r.published))).toBe(
      true,
    );
  });

  test("/source says the kind and the text as published; the record carries urlRepair", async () => {
    expect(repaired).toHaveLength(24);
    for (const entry of repaired) {
      const source = await json<{ data: { fields: { url: string; urlAsPublished: string | null } } }>(
        `/api/v1/endpoints/${entry.id}/source`,
      );
      expect(source.data.fields).toMatchObject({ url: entry.kind, urlAsPublished: entry.published });
      const record = await json<{ data: { url: string; urlRepair?: string } }>(`/api/v1/endpoints/${entry.id}`);
      expect(record.data).toMatchObject({ url: entry.url, urlRepair: entry.kind });
    }
    const foothold = repaired.find((r) => r.url === "https://fhir.footholdtechnology.com/cgc")!;
    expect([foothold.kind, foothold.published]).toEqual(["scheme-assumed", "fhir.footholdtechnology.com/cgc"]);
    // A URL as published has no urlRepair member: the spec's record, unchanged.
    const plain = await json<{ data: Record<string, unknown>[] }>("/api/v1/endpoints?vendor=epic&limit=5");
    for (const record of plain.data) expect(record).not.toHaveProperty("urlRepair");
  });

  test("the CSV and NDJSON exports mark each repaired URL; the FHIR Endpoint's address carries the kind", async () => {
    const csv = await (await get("/api/v1/export?format=csv&vendor=first-insight")).text();
    const [header, ...rows] = csv.trimEnd().split("\r\n");
    const column = header!.split(",").indexOf("urlRepair");
    expect(column).toBeGreaterThan(0);
    const csvKinds = new Map(rows.map((row) => [row.slice(0, 64), row.split(",").at(-2)!]));
    const ndjson = (await (await get("/api/v1/export?format=ndjson&vendor=first-insight")).text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string; urlRepair?: string });
    const ndjsonKinds = new Map(ndjson.map((r) => [r.id, r.urlRepair ?? ""]));
    const firstInsight = repaired.filter((r) => csvKinds.has(r.id));
    expect(firstInsight.length).toBeGreaterThanOrEqual(17);
    for (const entry of firstInsight) {
      expect([entry.id, csvKinds.get(entry.id)]).toEqual([entry.id, entry.kind]);
      expect([entry.id, ndjsonKinds.get(entry.id)]).toEqual([entry.id, entry.kind]);
    }
    expect([...csvKinds.values()].filter((kind) => kind === "").length).toBe(rows.length - firstInsight.length);

    type Endpoint = { resourceType: string; id: string; address: string; _address?: { extension: object[] } };
    const bundle = await json<{ entry: { resource: Endpoint }[] }>("/api/v1/export?format=fhir&vendor=first-insight");
    const endpoints = new Map(
      bundle.entry.filter((e) => e.resource.resourceType === "Endpoint").map((e) => [e.resource.address, e.resource]),
    );
    // An Endpoint's address is marked unless another item of the list publishes it in full.
    const marked = firstInsight.filter((r) => !publishedUrls.has(r.url));
    expect(firstInsight.length - marked.length).toBe(2);
    for (const entry of marked) {
      const mark = { extension: [{ url: EXTENSION, valueCode: entry.kind }] };
      expect(endpoints.get(entry.url)?._address).toEqual(mark);
      const resource = await json<Endpoint>(`/fhir/Endpoint/${endpointId(entry.url)}`);
      expect(resource._address).toEqual(mark);
    }
    for (const entry of firstInsight.filter((r) => publishedUrls.has(r.url)))
      expect(endpoints.get(entry.url)).not.toHaveProperty("_address");
    const plain = [...endpoints.values()].filter((e) => !marked.some((r) => r.url === e.address));
    expect(plain.length).toBeGreaterThan(100);
    for (const endpoint of plain) expect(endpoint).not.toHaveProperty("_address");
  }, 60_000);

  test("a guessed URL stays out of the brands bundle until a probe has verified it; cleaned ones are in it", async () => {
    type Brands = { entry: { resource: { resourceType: string; address?: string } }[] };
    const addresses = (bundle: Brands) =>
      new Set(bundle.entry.filter((e) => e.resource.resourceType === "Endpoint").map((e) => e.resource.address!));
    const inBundle = addresses(await json<Brands>("/api/v1/brands"));
    // 15 guesses no item of the list confirms: none in the bundle; the 2 it publishes in full are.
    const guessed = repaired.filter((r) => r.kind === "host-guessed" && !publishedUrls.has(r.url));
    const guessedUrls = new Set(guessed.map((r) => r.url));
    expect(guessedUrls.size).toBe(14);
    expect(guessed.length).toBe(15);
    for (const url of guessedUrls) expect([url, inBundle.has(url)]).toEqual([url, false]);
    for (const entry of repaired.filter((r) => r.kind === "host-guessed" && publishedUrls.has(r.url)))
      expect(inBundle.has(entry.url)).toBe(true);
    const cleaned = repaired.filter((r) => r.kind === "cleaned");
    expect(cleaned.some((r) => inBundle.has(r.url))).toBe(true);

    // A probe that verified one guessed URL (its status, as the probe writes it, a new dataset
    // version with it): then it is a fact.
    const copy = join(dir, "verified.sqlite");
    copyFileSync(path, copy);
    const verified = guessed[0]!.url;
    const db = openDatabase(copy);
    db.sqlite.transaction(() => {
      db.sqlite.prepare("UPDATE entries SET status = 'verified' WHERE url = ?").run(verified);
      markDatasetChanged(db.sqlite, new Date().toISOString());
    })();
    const probed = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
    const response = await probed.handle(new Request("http://localhost/api/v1/brands"));
    const after = addresses((await response.json()) as Brands);
    probed.directory.close();
    expect(after.has(verified)).toBe(true);
    for (const url of guessedUrls) if (url !== verified) expect(after.has(url)).toBe(false);
  }, 60_000);
});

describe("damaged organization names of the bundled lists", () => {
  test.each([
    ['"Northwell', { name: "Northwell", kind: "quote-cut" }],
    ['"Syracuse', { name: "Syracuse", kind: "quote-cut" }],
    ['"Columbia', { name: "Columbia", kind: "quote-cut" }],
    ["Glacial Ridge Hospital MaaS Pod XXX XX", { name: "Glacial Ridge Hospital", kind: "template" }],
    ["Bradley County Med Ctr MaaS Pod XXX XX", { name: "Bradley County Med Ctr", kind: "template" }],
    ["https://CT2FSH1.CT1ADCV1.ECLPTSC.ECLIPSNET.COM", { name: null, kind: "url" }],
    // Names that stand as published.
    ['"GIFT OF LIFE" PROGRAM', null],
    ["CopilotIQ www.CopilotIQ.com", null],
    ["Pod Health Partners", null],
    ["Super Bowl XXX Clinic", null],
    ["Northwell", null],
  ] as const)("%p → %p", (published, expected) => {
    expect(repairName(published)).toEqual(expected);
  });

  test("are served repaired under the id of the name as published; data:audit counts each kind", async () => {
    expect(nameRepairCounts(summaries)).toEqual({ "quote-cut": 9, template: 4, url: 1 });
    expect(formatUrlFindings(summaries)).toContain(
      "organization names repaired at ingest (served repaired; the entry's id stays the published name's): 14 entries, quote-cut 9, template 4, url 1",
    );
    const entryId = (vendor: string, url: string, name: string | null) =>
      new Bun.CryptoHasher("sha256").update(`${vendor}\n${url}\n${name?.toLowerCase() ?? ""}`).digest("hex");
    const served = async (vendor: string, url: string, published: string) =>
      (
        await json<{ data: { organizationName: string | null } }>(
          `/api/v1/endpoints/${entryId(vendor, url, published)}`,
        )
      ).data.organizationName;
    expect(
      await served(
        "meditech",
        "https://bcmedapi.meditech.cloud:443/v1/uscore/R4",
        "Bradley County Med Ctr MaaS Pod XXX XX",
      ),
    ).toBe("Bradley County Med Ctr");
    expect(await served("altera-digital-health", "https://sykqehrwb05v.nslijhs.net/fhir", '"Northwell')).toBe(
      "Northwell",
    );
    expect(
      await served(
        "altera-digital-health",
        "https://ct2fsh1.ct1adcv1.eclptsc.eclipsnet.com/FHIR",
        "https://CT2FSH1.CT1ADCV1.ECLPTSC.ECLIPSNET.COM",
      ),
    ).toBeNull();
    // No listed entry is served with a quote-cut, template or URL-only name.
    const sqlite = new Database(path, { readonly: true });
    const damaged = sqlite
      .prepare(
        `SELECT organization_name FROM entries WHERE organization_name LIKE '"%' AND organization_name NOT LIKE '"%"%'
           OR organization_name LIKE '%MaaS Pod XXX%' OR organization_name LIKE 'http%://%'`,
      )
      .all();
    sqlite.close();
    expect(damaged).toEqual([]);
  });
});
