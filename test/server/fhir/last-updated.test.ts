/**
 * `_lastUpdated` on /fhir Endpoint and Organization search, against a real server on 127.0.0.1
 * over real SQLite files: entries seeded with known lastUpdated instants around a boundary, a
 * generated dataset checked against the JSON API's records, and scrapes and a probe written by
 * the ingest and probe code checked against the change feed. What each search should find is worked
 * out here from the resources' own `meta.lastUpdated`, as milliseconds, not from the server's
 * text comparison.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ValidateFunction } from "ajv";
import { Client } from "fhir-kit-client";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { markDatasetChanged } from "../../../src/db/dataset-meta";
import { recordProbes } from "../../../src/pipeline/probe";
import { generateDataset } from "../../../tools/generate/generator";
import { createTestApp } from "../../support/app";
import { type SeedEntry, seedDatabase } from "../../support/seed";
import { removeTempDirs, tempDbPath } from "../../support/temp-db";
import { ALPHA, answered, FIRST_AT, PROBE_AT, SECOND_AT, scrapeTwice } from "../../support/two-scrapes";
import { fhirValidator } from "../export/fhir-schema";
import { pageThroughList } from "../export/helpers";

interface Resource {
  resourceType: string;
  id: string;
  meta?: { lastUpdated: string };
  address?: unknown;
  status?: string;
  managingOrganization?: { reference: string };
}
interface Bundle {
  resourceType: string;
  total?: number;
  link: { relation: string; url: string }[];
  entry?: { resource: Resource; search: { mode: string } }[];
}
interface Outcome {
  resourceType: "OperationOutcome";
  issue: { severity: string; code: string; diagnostics: string }[];
}

/** The boundary instant most cases are around. */
const B = "2026-11-01T00:00:00.000Z";
const ms = Date.parse;

const ENTRIES: SeedEntry[] = [
  // One URL under two vendors: its first entry in list order (Alpha) is the older one.
  {
    vendorId: "alpha",
    url: "https://a.example.com/r4/one",
    organizationName: "Aardvark Clinic",
    state: "OH",
    lastUpdated: "2026-10-31T23:59:59.999Z",
  },
  {
    vendorId: "beta",
    url: "https://a.example.com/r4/one",
    organizationName: "Zebra Clinic",
    state: "OH",
    lastUpdated: "2026-11-20T08:00:00.000Z",
  },
  {
    vendorId: "alpha",
    url: "https://a.example.com/r4/two",
    organizationName: "Boundary Hospital",
    state: "OH",
    lastUpdated: B,
  },
  {
    vendorId: "alpha",
    url: "https://a.example.com/r4/nine",
    organizationName: "Boundary Hospital",
    state: "OH",
    lastUpdated: "2026-10-15T00:00:00.000Z",
  },
  {
    vendorId: "alpha",
    url: "https://a.example.com/r4/three",
    organizationName: "Later Clinic",
    state: "CA",
    status: "unresponsive",
    lastUpdated: "2026-11-01T00:00:00.001Z",
  },
  {
    vendorId: "beta",
    url: "https://b.example.com/r4/four",
    organizationName: "Fall Clinic",
    state: "OH",
    status: "unresponsive",
    lastUpdated: "2026-11-01T00:00:01.000Z",
  },
  {
    vendorId: "beta",
    url: "https://b.example.com/r4/five",
    organizationName: "Mid Clinic",
    state: "CA",
    lastUpdated: "2026-11-15T12:00:00.000Z",
  },
  {
    vendorId: "beta",
    url: "https://b.example.com/r4/six",
    organizationName: "December Clinic",
    state: "OH",
    lastUpdated: "2026-12-01T00:00:00.000Z",
  },
  {
    vendorId: "beta",
    url: "https://b.example.com/r4/seven",
    organizationName: "Old Clinic",
    state: "TX",
    lastUpdated: "2025-06-30T10:00:00.000Z",
  },
  {
    vendorId: "alpha",
    url: "https://b.example.com/r4/eight",
    organizationName: "Removed Clinic",
    state: "OH",
    status: "removed",
    lastUpdated: "2026-11-10T00:00:00.000Z",
  },
];
const VENDORS = [
  { id: "alpha", name: "Alpha Health" },
  { id: "beta", name: "Beta EHR" },
  // No entries: its developer Organization's lastUpdated is its last scrape, written without milliseconds.
  { id: "gamma", name: "Gamma Systems", lastScrapedAt: "2026-11-01T00:00:00Z" },
];

let app: ReturnType<typeof createTestApp>;
let base: string;
let validateBundle: ValidateFunction;
/** Every resource of each type, from an unfiltered search. */
const all: Record<"Endpoint" | "Organization", Resource[]> = { Endpoint: [], Organization: [] };

function serve(path: string) {
  const served = createTestApp({
    db: openDatabase(path),
    config: loadConfig({ DATABASE_PATH: path, RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }),
  });
  served.listen({ port: 0, hostname: "127.0.0.1" });
  return served;
}

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(path.startsWith("http") ? path : `${base}${path}`, { headers });
  const body = (await response.json()) as Bundle & Outcome;
  if (response.status === 200) {
    const valid = validateBundle(body);
    if (!valid) throw new Error(`not valid FHIR R4: ${JSON.stringify(validateBundle.errors?.slice(0, 3))}`);
  }
  return { status: response.status, body };
}

/** The ids of every match of a search, following `next` links to the end, and the first page's total. */
async function search(path: string): Promise<{ ids: string[]; total: number; pages: Bundle[] }> {
  const first = await get(path);
  expect(first.status).toBe(200);
  const pages = [first.body];
  for (let next = first.body.link.find((l) => l.relation === "next"); next !== undefined; ) {
    const page = await get(next.url);
    expect(page.status).toBe(200);
    pages.push(page.body);
    next = page.body.link.find((l) => l.relation === "next");
  }
  const ids = pages.flatMap((p) => (p.entry ?? []).filter((e) => e.search.mode === "match").map((e) => e.resource.id));
  return { ids, total: first.body.total!, pages };
}

/** Ids of the resources of `type` whose lastUpdated passes `test` (in ms), sorted. */
function expected(type: "Endpoint" | "Organization", test: (t: number) => boolean): string[] {
  return all[type]
    .filter((r) => r.meta !== undefined && test(ms(r.meta.lastUpdated)))
    .map((r) => r.id)
    .sort();
}

beforeAll(async () => {
  const path = tempDbPath("last-updated.sqlite");
  seedDatabase(path, { vendors: VENDORS, entries: ENTRIES }).sqlite.close();
  app = serve(path);
  base = `http://127.0.0.1:${app.server!.port}/fhir`;
  validateBundle = await fhirValidator("Bundle", ["Endpoint", "Organization"]);
  for (const type of ["Endpoint", "Organization"] as const) {
    const { pages } = await search(`/${type}?_count=500`);
    all[type] = (pages[0]!.entry ?? []).map((e) => e.resource);
  }
});

afterAll(async () => {
  await app?.stop(true);
  app?.directory.close();
  removeTempDirs();
});

describe("/fhir _lastUpdated", () => {
  test("an Endpoint's meta.lastUpdated is the newest of its entries, not its first entry's", () => {
    const shared = all.Endpoint.find((e) => e.address === "https://a.example.com/r4/one")!;
    // The first entry in list order (Alpha's) decides the developer; the newer one (Beta's) the date.
    expect(shared.managingOrganization!.reference).toBe("Organization/developer-alpha");
    const entries = ENTRIES.filter((e) => e.url === "https://a.example.com/r4/one");
    expect(shared.meta!.lastUpdated).toBe(entries.map((e) => e.lastUpdated!).sort()[1]!);
    for (const endpoint of all.Endpoint) {
      const newest = ENTRIES.filter((e) => e.url === endpoint.address && e.status !== "removed")
        .map((e) => ms(e.lastUpdated!))
        .reduce((a, b) => Math.max(a, b));
      expect(ms(endpoint.meta!.lastUpdated)).toBe(newest);
    }
  });

  const b = ms(B);
  const CASES: [string, (t: number) => boolean][] = [
    // On the boundary instant, at millisecond precision.
    [`gt${B}`, (t) => t > b],
    [`ge${B}`, (t) => t >= b],
    [`lt${B}`, (t) => t < b],
    [`le${B}`, (t) => t <= b],
    [B, (t) => t === b],
    [`eq${B}`, (t) => t === b],
    // Partial dates: the whole day, month or year.
    ["gt2026-11-01", (t) => t >= ms("2026-11-02T00:00:00Z")],
    ["ge2026-11-01", (t) => t >= b],
    ["lt2026-11", (t) => t < b],
    ["le2026-11", (t) => t < ms("2026-12-01T00:00:00Z")],
    ["2026-11", (t) => t >= b && t < ms("2026-12-01T00:00:00Z")],
    ["lt2026", (t) => t < ms("2026-01-01T00:00:00Z")],
    // Seconds precision with a zone (B written in UTC-5): after means from the next second.
    ["gt2026-10-31T19:00:00-05:00", (t) => t >= b + 1000],
    ["le2026-10-31T19:00:00-05:00", (t) => t < b + 1000],
    // Minutes precision, no zone: UTC.
    ["2026-11-01T00:00", (t) => t >= b && t < b + 60_000],
    // A comma separates alternatives.
    ["lt2026-11-01,ge2026-12-01", (t) => t < b || t >= ms("2026-12-01T00:00:00Z")],
  ];

  for (const [value, test_] of CASES)
    test(`_lastUpdated=${value} on Endpoint and Organization finds exactly the resources in range`, async () => {
      for (const type of ["Endpoint", "Organization"] as const) {
        const want = expected(type, test_);
        // Each case separates the seeded resources: it finds some and leaves some.
        expect(want.length).toBeGreaterThan(0);
        expect(want.length).toBeLessThan(all[type].length);
        const found = await search(`/${type}?_lastUpdated=${encodeURIComponent(value)}`);
        expect(found.ids.sort()).toEqual(want);
        expect(found.total).toBe(want.length);
      }
    });

  test("a zone's + sent unescaped (it arrives as a space) reads as +", async () => {
    const escaped = await search(`/Endpoint?_lastUpdated=${encodeURIComponent("gt2026-11-01T05:00:00+05:00")}`);
    const unescaped = await search("/Endpoint?_lastUpdated=gt2026-11-01T05:00:00+05:00");
    expect(unescaped.ids).toEqual(escaped.ids);
    expect(escaped.ids.sort()).toEqual(expected("Endpoint", (t) => t >= b + 1000));
  });

  test("a value written in another form than the stored one still compares as the same instant", () => {
    // Gamma's developer carries its last scrape as written (no milliseconds) and still matches eq B.
    const gamma = all.Organization.find((o) => o.id === "developer-gamma")!;
    expect(gamma.meta!.lastUpdated).toBe("2026-11-01T00:00:00Z");
    expect(expected("Organization", (t) => t === b)).toContain("developer-gamma");
  });

  test("two _lastUpdated parameters must both hold; with another parameter too", async () => {
    const window = (t: number) => t >= b && t < ms("2026-11-16T00:00:00Z");
    const both = await search("/Endpoint?_lastUpdated=ge2026-11-01&_lastUpdated=lt2026-11-16");
    expect(both.ids.sort()).toEqual(expected("Endpoint", window));
    expect(both.total).toBe(expected("Endpoint", window).length);
    expect(both.total).toBeLessThan(expected("Endpoint", (t) => t >= b).length);

    const errors = await search("/Endpoint?status=error&_lastUpdated=gt2026-11-01T00:00:00.000Z");
    const wantErrors = all.Endpoint.filter((e) => e.status === "error" && ms(e.meta!.lastUpdated) > b)
      .map((e) => e.id)
      .sort();
    expect(wantErrors.length).toBeGreaterThan(0);
    expect(wantErrors.length).toBeLessThan(expected("Endpoint", (t) => t > b).length);
    expect(errors.ids.sort()).toEqual(wantErrors);

    const ohio = await search("/Organization?address-state=OH&_lastUpdated=ge2026-11");
    const wantOhio = all.Organization.filter(
      (o) => (o.address as { state?: string }[] | undefined)?.[0]?.state === "OH" && ms(o.meta!.lastUpdated) >= b,
    )
      .map((o) => o.id)
      .sort();
    expect(wantOhio.length).toBeGreaterThan(0);
    expect(ohio.ids.sort()).toEqual(wantOhio);
    expect(ohio.total).toBe(wantOhio.length);
  });

  test("paging with _count=1 through next links keeps the filter; every page's total counts only matches", async () => {
    for (const type of ["Endpoint", "Organization"] as const) {
      const want = expected(type, (t) => t >= b);
      const paged = await search(`/${type}?_lastUpdated=ge2026-11-01&_count=1`);
      expect(paged.pages.length).toBe(want.length);
      for (const page of paged.pages) {
        expect(page.total).toBe(want.length);
        for (const link of page.link) expect(new URL(link.url).searchParams.get("_lastUpdated")).toBe("ge2026-11-01");
      }
      expect(paged.ids.sort()).toEqual(want);
    }
  });

  test("a FHIR client pages a _lastUpdated search to its end", async () => {
    const client = new Client({ baseUrl: base });
    const want = expected("Organization", (t) => t < ms("2026-11-16T00:00:00Z"));
    let bundle = (await client.search({
      resourceType: "Organization",
      searchParams: { _lastUpdated: "lt2026-11-16", _count: "2" },
    })) as unknown as Bundle;
    const ids: string[] = [];
    for (;;) {
      ids.push(...(bundle.entry ?? []).map((e) => e.resource.id));
      const next = client.nextPage({ bundle: bundle as never });
      if (next === undefined) break;
      bundle = (await next) as unknown as Bundle;
    }
    expect(ids.sort()).toEqual(want);
  });

  test("bad values and unsupported prefixes are 400 OperationOutcomes, strict or lenient", async () => {
    const BAD: [string, string][] = [
      ["gt2026-13", "invalid"],
      ["2026-02-30", "invalid"],
      ["yesterday", "invalid"],
      ["gtx", "invalid"],
      ["xx2026", "invalid"],
      ["2026-11-01T10", "invalid"],
      ["gt2026-11-01T25:00Z", "invalid"],
      ["2026-11-01T10:00:00+15:00", "invalid"],
      ["0000", "invalid"],
      ["GT2026", "invalid"],
      ["ge2026,soon", "invalid"],
      ["ne2026-11-01", "not-supported"],
      ["sa2026", "not-supported"],
      ["eb2026", "not-supported"],
      ["ap2026", "not-supported"],
    ];
    for (const type of ["Endpoint", "Organization"])
      for (const [value, code] of BAD)
        for (const prefer of <Record<string, string>[]>[
          {},
          { prefer: "handling=lenient" },
          { prefer: "handling=strict" },
        ]) {
          const { status, body } = await get(`/${type}?_lastUpdated=${encodeURIComponent(value)}`, prefer);
          expect([value, status]).toEqual([value, 400]);
          expect(body.resourceType).toBe("OperationOutcome");
          expect([value, body.issue[0]!.code]).toEqual([value, code]);
          expect(body.issue[0]!.diagnostics).toContain("_lastUpdated");
        }
    const modifier = await get("/Endpoint?_lastUpdated:missing=true");
    expect(modifier.status).toBe(400);
    expect(modifier.body.issue[0]!.code).toBe("not-supported");
  });

  test("the CapabilityStatement and the OpenAPI document declare _lastUpdated on both types", async () => {
    const origin = new URL(base).origin;
    const openapi = (await (await fetch(`${origin}/docs/json`)).json()) as {
      paths: Record<string, { get: { parameters: { name: string; in: string }[] } }>;
    };
    for (const type of ["Endpoint", "Organization"])
      expect(openapi.paths[`/fhir/${type}`]!.get.parameters).toContainEqual(
        expect.objectContaining({ name: "_lastUpdated", in: "query" }),
      );
    const response = await fetch(`${base}/metadata`);
    const statement = (await response.json()) as {
      rest: { resource: { type: string; searchParam: { name: string; type: string; definition: string }[] }[] }[];
    };
    for (const type of ["Endpoint", "Organization"]) {
      const resource = statement.rest[0]!.resource.find((r) => r.type === type)!;
      expect(resource.searchParam.find((p) => p.name === "_lastUpdated")).toMatchObject({
        type: "date",
        definition: "http://hl7.org/fhir/SearchParameter/Resource-lastUpdated",
      });
    }
  });
});

describe("/fhir _lastUpdated after a change", () => {
  test("a change to any entry of an Endpoint moves its lastUpdated, and _lastUpdated finds it", async () => {
    const path = tempDbPath("changed.sqlite");
    const changed = seedDatabase(path, { vendors: VENDORS, entries: ENTRIES });
    const served = serve(path);
    const at = `http://127.0.0.1:${served.server!.port}/fhir`;
    const find = async (query: string) =>
      ((await (await fetch(`${at}/Endpoint?${query}`)).json()) as Bundle).entry?.map((e) => e.resource) ?? [];
    try {
      const before = (await find("address:exact=https://b.example.com/r4/five"))[0]!;
      const newer = (await find(`_lastUpdated=gt${before.meta!.lastUpdated}`)).map((e) => e.id);
      expect(newer).not.toContain(before.id);
      // The entry changes (a new state), as ingest writes it: its lastUpdated moves with it.
      const now = "2026-11-26T09:30:00.000Z";
      changed.sqlite.transaction(() => {
        changed.sqlite
          .prepare("UPDATE entries SET state = 'PA', last_updated = ? WHERE url = 'https://b.example.com/r4/five'")
          .run(now);
        markDatasetChanged(changed.sqlite, now);
      })();
      expect(await served.directory.refreshIfChanged()).toBe(true);
      const after = await find(`_lastUpdated=gt${before.meta!.lastUpdated}`);
      const moved = after.find((e) => e.id === before.id)!;
      expect(moved.meta!.lastUpdated).toBe(now);
      expect(after.map((e) => e.id).sort()).toEqual([...newer, before.id].sort());
    } finally {
      await served.stop(true);
      served.directory.close();
      changed.sqlite.close();
    }
  });

  test("the non-first entry of a shared URL changing moves the Endpoint too", async () => {
    const path = tempDbPath("shared.sqlite");
    const changed = seedDatabase(path, {
      vendors: VENDORS,
      entries: ENTRIES.map((e) =>
        e.vendorId === "beta" && e.url === "https://a.example.com/r4/one"
          ? { ...e, lastUpdated: "2026-09-01T00:00:00.000Z" }
          : e,
      ),
    });
    const served = serve(path);
    const at = `http://127.0.0.1:${served.server!.port}/fhir`;
    const shared = async () =>
      ((await (await fetch(`${at}/Endpoint?address:exact=https://a.example.com/r4/one`)).json()) as Bundle).entry![0]!
        .resource;
    try {
      expect((await shared()).meta!.lastUpdated).toBe("2026-10-31T23:59:59.999Z");
      const now = "2026-11-26T10:00:00.000Z";
      changed.sqlite.transaction(() => {
        changed.sqlite
          .prepare("UPDATE entries SET state = 'PA', last_updated = ? WHERE vendor_id = 'beta' AND url = ?")
          .run(now, "https://a.example.com/r4/one");
        markDatasetChanged(changed.sqlite, now);
      })();
      expect(await served.directory.refreshIfChanged()).toBe(true);
      const endpoint = await shared();
      expect(endpoint.managingOrganization!.reference).toBe("Organization/developer-alpha");
      expect(endpoint.meta!.lastUpdated).toBe(now);
    } finally {
      await served.stop(true);
      served.directory.close();
      changed.sqlite.close();
    }
  });
});

describe("/fhir _lastUpdated on a generated dataset", () => {
  test("Endpoint totals agree with the JSON API's records: distinct URLs by their newest entry", async () => {
    const path = tempDbPath("generated.sqlite");
    generateDataset({ endpoints: 1_500, out: path, seed: 29 });
    const served = serve(path);
    const at = `http://127.0.0.1:${served.server!.port}/fhir`;
    try {
      const listed = await pageThroughList(served, "");
      const newestOfUrl = new Map<string, number>();
      for (const r of listed) newestOfUrl.set(r.url, Math.max(newestOfUrl.get(r.url) ?? 0, ms(r.lastUpdated)));
      const times = [...newestOfUrl.values()].sort((x, y) => x - y);
      // Thresholds at a quarter, the middle and three quarters of the Endpoints' instants.
      for (const q of [0.25, 0.5, 0.75]) {
        const t = times[Math.floor(times.length * q)]!;
        const iso = new Date(t).toISOString();
        for (const [prefix, test_] of [
          ["gt", (x: number) => x > t],
          ["ge", (x: number) => x >= t],
          ["lt", (x: number) => x < t],
          ["le", (x: number) => x <= t],
        ] as const) {
          const response = await fetch(`${at}/Endpoint?_lastUpdated=${prefix}${iso}&_summary=count`);
          const { total } = (await response.json()) as Bundle;
          expect([prefix, iso, total]).toEqual([prefix, iso, times.filter(test_).length]);
        }
      }
    } finally {
      await served.stop(true);
      served.directory.close();
    }
  });
});

describe("/fhir _lastUpdated and the change feed", () => {
  test("gt a time finds exactly the Endpoints the feed lists as added or changed after it", async () => {
    const db = openDatabase(tempDbPath("feed.sqlite"));
    // Gamma leaves, Beta moves, Epsilon arrives; then a probe verifies Alpha.
    const since = await scrapeTwice(db);
    const served = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
    served.listen({ port: 0, hostname: "127.0.0.1" });
    const root = `http://127.0.0.1:${served.server!.port}`;
    const json = async (path: string): Promise<unknown> => (await fetch(`${root}${path}`)).json();
    /** Endpoint ids of the listed entries the feed has added or changed after `after`. */
    const fromFeed = async (after: string) => {
      const feed = (await json(`/api/v1/changes?since=${since}&limit=1000`)) as {
        data: { id: string; at: string; change: string }[];
      };
      const ids = new Set<string>();
      for (const change of feed.data.filter((c) => c.change !== "removed" && ms(c.at) > ms(after))) {
        const record = (await json(`/api/v1/endpoints/${change.id}`)) as { data: { url: string; status: string } };
        if (record.data.status !== "removed") ids.add(Bun.SHA256.hash(record.data.url, "hex"));
      }
      return [...ids].sort();
    };
    const fromFhir = async (query: string) =>
      (((await json(`/fhir/Endpoint?${query}`)) as Bundle).entry ?? []).map((e) => e.resource.id).sort();
    try {
      const second = await fromFeed(FIRST_AT);
      expect(second.length).toBe(2); // Beta moved, Epsilon added
      expect(await fromFhir(`_lastUpdated=gt${FIRST_AT}`)).toEqual(second);

      recordProbes(db, [{ url: ALPHA.URL, result: answered(ALPHA.URL) }], PROBE_AT);
      expect(await served.directory.refreshIfChanged()).toBe(true);
      const probed = await fromFeed(SECOND_AT);
      expect(probed).toEqual([Bun.SHA256.hash(ALPHA.URL, "hex")]);
      expect(await fromFhir(`_lastUpdated=gt${SECOND_AT}`)).toEqual(probed);
      expect(await fromFhir(`_lastUpdated=gt${FIRST_AT}`)).toEqual(await fromFeed(FIRST_AT));
      expect(await fromFhir(`_lastUpdated=gt${FIRST_AT}`)).toHaveLength(3);
    } finally {
      await served.stop(true);
      served.directory.close();
      db.sqlite.close();
    }
  });
});
