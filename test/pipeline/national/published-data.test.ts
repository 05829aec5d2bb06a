/**
 * What the national directory serves of what the bundled lists publish: ZIP codes, URLs that need
 * a repair or cannot be used, and the versions URLs name. Each expectation is counted here from
 * the raw bundled lists (db/national/lists.json.zst and db/vendors.json), not through the ingest
 * code, and compared with what the built database serves.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { selectDueUrls } from "../../../src/db/due-urls";
import { formatUrlFindings } from "../../../src/pipeline/national/audit";
import { createTestApp } from "../../support/app";
import { nationalDatabase } from "../../support/built-once";
import { get } from "../../support/fixture";
import { removeTempDirs, tempDir } from "../../support/temp-db";
import { ROOT } from "./helpers";

interface RawItem {
  URL: string;
  OrganizationName: string;
  NPIID: string;
  OrganizationZipCode: string;
}
interface RawListItem extends RawItem {
  vendor: string;
  list: string;
}

/** Every item of every bundled developer's list, with the vendor and list the registry files it under. */
function rawItems(): RawListItem[] {
  const files = JSON.parse(
    Bun.zstdDecompressSync(readFileSync(join(ROOT, "db/national/lists.json.zst"))).toString("utf8"),
  ) as Record<string, string>;
  const { vendors } = JSON.parse(readFileSync(join(ROOT, "db/vendors.json"), "utf8")) as {
    vendors: { id: string; kind?: string; lists: { id: string; bundledFile?: string }[] }[];
  };
  // The certified developers' lists; the health plans' bundle has tests of its own (payers.test.ts).
  return vendors
    .filter((vendor) => vendor.kind !== "payer")
    .flatMap((vendor) =>
      vendor.lists.flatMap((list) =>
        list.bundledFile
          ? (JSON.parse(files[list.bundledFile]!) as { Endpoints: RawItem[] }).Endpoints.map((item) => ({
              ...item,
              vendor: vendor.id,
              list: list.id,
            }))
          : [],
      ),
    );
}

/** ZIP → state of the committed ZIP table, read here on its own. */
function zipStates(): Map<string, string> {
  const text = new TextDecoder().decode(Bun.gunzipSync(readFileSync(join(ROOT, "src/model/zip-places.tsv.gz"))));
  return new Map(text.split("\n").flatMap((line) => (line ? [line.split("\t").slice(0, 2) as [string, string]] : [])));
}

let db: Database;
let path: string;
let items: RawListItem[];
let findings: string;

beforeAll(async () => {
  path = join(tempDir("national-published-"), "directory.sqlite");
  findings = formatUrlFindings((await nationalDatabase(path)).summaries).join("\n");
  db = new Database(path, { readonly: true });
  items = rawItems();
}, 180_000);

afterAll(() => {
  db?.close();
  removeTempDirs();
});

interface Served {
  id: string;
  url: string;
  name: string | null;
  zip: string | null;
  state: string | null;
  city: string | null;
  stateEvidence: string | null;
  version: string;
  versionEvidence: string | null;
  urlEvidence: string;
  unusable: string | null;
  detail: string | null;
  lastUpdated: string;
}
const COLUMNS = `id, url, organization_name AS name, zip_code AS zip, state, city, state_evidence AS stateEvidence,
  fhir_version AS version, version_evidence AS versionEvidence, url_evidence AS urlEvidence, unusable,
  unusable_detail AS detail, last_updated AS lastUpdated`;
const served = (where: string, ...params: (string | null)[]) =>
  db.prepare(`SELECT ${COLUMNS} FROM entries WHERE ${where} ORDER BY id`).all(...params) as Served[];

/** The entries of a published item whose URL is plain (scheme and host lowercased, no trailing `/`). */
function entriesOf(item: RawListItem): Served[] {
  const match = /^(https?):\/\/([^/?#]+)(.*)$/i.exec(item.URL.trim())!;
  const url = `${match[1]!.toLowerCase()}://${match[2]!.toLowerCase()}${match[3]!.replace(/\/+$/, "")}`;
  const name = item.OrganizationName.replace(/\s+/g, " ").trim();
  const found = served(
    "vendor_id = ? AND url = ? AND organization_name IS ?",
    item.vendor,
    url,
    name === "" ? null : name,
  );
  expect([item.URL, item.OrganizationName, found.length]).toEqual([item.URL, item.OrganizationName, 1]);
  return found;
}

describe("ZIP codes, as published", () => {
  test("a ZIP+4 of nine bare digits is served as published, and places the entry by its first five", () => {
    const states = zipStates();
    const nine = items.filter((item) => /^\d{9}$/.test(item.OrganizationZipCode.trim()));
    expect(nine.length).toBe(20);
    for (const item of nine) {
      const zip = item.OrganizationZipCode.trim();
      for (const entry of entriesOf(item))
        expect([entry.zip, entry.state]).toEqual([zip, states.get(zip.slice(0, 5)) ?? expect.any(String)]);
    }
  });

  test("a stray character after a ZIP keeps the ZIP, its state and its city: Odessa, TX", () => {
    const odessa = items.filter((item) => item.OrganizationZipCode.trim() === "79761?");
    expect(odessa.map((item) => item.vendor)).toEqual(["oracle-health", "oracle-health"]);
    for (const item of odessa)
      expect(entriesOf(item).map((e) => [e.zip, e.state, e.city, e.stateEvidence])).toEqual([
        ["79761", "TX", "Odessa", "zip"],
      ]);
  });

  test("a five-digit ZIP the table does not know gets the state its first three digits settle, no city", () => {
    const states = zipStates();
    const prefixStates = new Map<string, Set<string>>();
    for (const [zip, state] of states) {
      const set = prefixStates.get(zip.slice(0, 3)) ?? new Set();
      set.add(state);
      prefixStates.set(zip.slice(0, 3), set);
    }
    const unknown = items.filter(
      (item) => /^\d{5}$/.test(item.OrganizationZipCode.trim()) && !states.has(item.OrganizationZipCode.trim()),
    );
    const settled = unknown.filter((item) => prefixStates.get(item.OrganizationZipCode.trim().slice(0, 3))?.size === 1);
    expect([unknown.length, settled.length]).toEqual([15, 13]);
    for (const item of settled) {
      const zip = item.OrganizationZipCode.trim();
      const [state] = prefixStates.get(zip.slice(0, 3))!;
      for (const entry of entriesOf(item))
        expect([zip, entry.state, entry.city, entry.stateEvidence]).toEqual([zip, state!, null, "zip"]);
    }
    for (const item of unknown.filter((i) => !settled.includes(i)))
      for (const entry of entriesOf(item))
        expect([item.OrganizationZipCode, entry.state]).toEqual([item.OrganizationZipCode, null]);
  });
});

describe("versions named by the URL", () => {
  test("/fhir/4.0 is R4; /fhir/chirp/4.0 on the same host names nothing, and is not given the certified R4", () => {
    const rows = served("url LIKE 'https://api.prod.1life.com/%'");
    expect(rows.map((r) => [r.url, r.version, r.versionEvidence])).toEqual(
      expect.arrayContaining([
        ["https://api.prod.1life.com/fhir/4.0", "R4", "url"],
        ["https://api.prod.1life.com/fhir/chirp/4.0", "UNKNOWN", null],
      ]),
    );
  });
});

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

describe("published URLs that need a repair, or cannot be used", () => {
  test("a loopback address left before First Insight's real host is dropped; the entry is served, reported repaired", () => {
    const published = items.filter((item) => /^https?:\/\/127\.0\.0\.1\s/.test(item.URL));
    expect(published.length).toBeGreaterThan(0);
    for (const item of published) {
      const url = item.URL.replace(/^https:\/\/127\.0\.0\.1\s+/, "https://").replace(/^(https:\/\/[^/]+)/, (h) =>
        h.toLowerCase(),
      );
      const name = item.OrganizationName.trim();
      expect(served("url = ?", url).map((e) => [e.id, e.name, e.urlEvidence, e.unusable])).toEqual([
        [sha256(`${item.vendor}\n${url}\n${name.toLowerCase()}`), name, "cleaned", null],
      ]);
      expect(findings).toContain(`${JSON.stringify(item.URL)} → ${url}`);
    }
  });

  test("First Insight's relative paths are served on fhir.maximeyes.com, the host of its other /api/<practice>/R4 URLs", () => {
    const relative = items.filter((item) => /^[a-z0-9_~%-]+\/\S*$/i.test(item.URL.trim()));
    expect([relative.length, new Set(relative.map((item) => item.vendor))]).toEqual([17, new Set(["first-insight"])]);
    for (const item of relative) {
      const url = `https://fhir.maximeyes.com/${item.URL.trim()}`;
      const name = item.OrganizationName.trim();
      expect(
        served("url = ? AND organization_name = ?", url, name).map((e) => [e.id, e.urlEvidence, e.unusable]),
      ).toEqual([[sha256(`first-insight\n${url}\n${name.toLowerCase()}`), "host-guessed", null]]);
      expect(findings).toContain(
        `${JSON.stringify(name)}  ${JSON.stringify(item.URL)} → ${url}  (host-guessed: relative path resolved against https://fhir.maximeyes.com`,
      );
    }
  });

  test("every item whose URL cannot be stored is reported by data:audit with why", () => {
    const unstorable = items.filter((item) => item.URL.includes("\\"));
    expect(unstorable.length).toBeGreaterThan(0);
    for (const item of unstorable) expect(findings).toContain(`${JSON.stringify(item.URL)}  (backslash in the URL)`);
    expect(findings).toContain(
      `published items dropped at ingest (not stored: their URL cannot be): ${unstorable.length}`,
    );
  });

  test("Veradigm's URLs with a query string keep their id, are not listed or probed, and say why by id", async () => {
    const withQuery = items.filter((item) => item.URL.includes("?"));
    expect(withQuery.map((item) => item.vendor)).toEqual(["veradigm", "veradigm"]);
    const directoryDb = openDatabase(path);
    const app = createTestApp({ db: directoryDb, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    try {
      for (const item of withQuery) {
        const url = item.URL.trim();
        const id = sha256(`veradigm\n${url}\n${item.OrganizationName.trim().toLowerCase()}`);
        const entry = await get(app, `/api/v1/endpoints/${id}`);
        expect([entry.status, entry.body.data.url, entry.body.meta.unusable.reason]).toEqual([
          200,
          url,
          "query-or-fragment",
        ]);
        expect(entry.body.meta.unusable.detail).toContain(`query string (${url.slice(url.indexOf("?"))})`);
      }
      const listed = await get(app, "/api/v1/endpoints?vendor=veradigm&query=orthopedic%20centers%20of%20colorado");
      expect(listed.body.data.filter((e: { url: string }) => e.url.includes("?"))).toEqual([]);
      const due = selectDueUrls(directoryDb, { now: new Date(), staleAfterMs: 0 });
      expect(due.length).toBeGreaterThan(20_000);
      expect(due.filter((url) => url.includes("?"))).toEqual([]);
    } finally {
      app.directory.close();
    }
  }, 60_000);
});

describe("dates", () => {
  test("an entry two bundled copies carry is dated by the newer, as its /source says (list.asOf, lastSeen)", async () => {
    const { files } = JSON.parse(readFileSync(join(ROOT, "db/national/provenance.json"), "utf8")) as {
      files: Record<string, { lastChangedAt: string }>;
    };
    const { vendors } = JSON.parse(readFileSync(join(ROOT, "db/vendors.json"), "utf8")) as {
      vendors: { lists: { id: string; bundledFile?: string }[] }[];
    };
    const fileOf = new Map(
      vendors.flatMap((v) => v.lists.flatMap((l) => (l.bundledFile ? [[l.id, l.bundledFile]] : []))),
    );
    // Per entry id (computed from the published item), the dates of the copies that carry it.
    const dates = new Map<string, Set<string>>();
    for (const item of items) {
      const match = /^(https?):\/\/([^/?#\s]+)([^\s]*)$/i.exec(item.URL.trim());
      if (!match) continue;
      const url = `${match[1]!.toLowerCase()}://${match[2]!.toLowerCase()}${match[3]!.replace(/\/+$/, "")}`;
      const npi = item.NPIID.trim();
      const orgKey = /^\d{10}$/.test(npi) ? npi : item.OrganizationName.replace(/\s+/g, " ").trim().toLowerCase();
      const id = sha256(`${item.vendor}\n${url}\n${orgKey}`);
      const set = dates.get(id) ?? new Set();
      set.add(new Date(files[fileOf.get(item.list)!]!.lastChangedAt).toISOString());
      dates.set(id, set);
    }
    const stored = new Map(
      (db.prepare("SELECT id, last_updated AS at FROM entries").all() as { id: string; at: string }[]).map((r) => [
        r.id,
        r.at,
      ]),
    );
    const twoDates = [...dates].filter(([id, set]) => set.size > 1 && stored.has(id));
    // 539 entries (MEDITECH's, Netsmart's, NextGen's two or three lists); 538 of them unchanged by
    // the newer copy, which only the newest-copy rule dates.
    expect(twoDates.length).toBe(539);
    const newest = (set: Set<string>) => [...set].sort().at(-1)!;
    expect(twoDates.filter(([id, set]) => stored.get(id) !== newest(set))).toEqual([]);
    const app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    try {
      for (const [id] of twoDates.slice(0, 3)) {
        const entry = await get(app, `/api/v1/endpoints/${id}`);
        const source = await get(app, `/api/v1/endpoints/${id}/source`);
        expect([source.body.data.list.asOf, source.body.data.lastSeen]).toEqual([
          entry.body.data.lastUpdated,
          entry.body.data.lastUpdated,
        ]);
      }
    } finally {
      app.directory.close();
    }
  }, 60_000);
});
