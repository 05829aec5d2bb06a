/**
 * The list operation returns exactly what a brute-force filter over the same data
 * returns — ids, order and meta.total — for a broad set of filter combinations, on a generated
 * 10,000-entry dataset. The expectation is computed here from plain SQL rows with plain
 * TypeScript following docs/api.md, sharing no code with src/directory.
 */
import { beforeAll, expect, test } from "bun:test";
import { READY, SUPPORTS } from "../../../src/model/capability-rules";
import { type Combo, combinations } from "../../support/filter-combinations";
import { appOnGeneratedDataset } from "../../support/generated-app";

interface Row {
  id: string;
  vendorId: string;
  vendorName: string;
  organizationName: string | null;
  url: string;
  state: string | null;
  fhirVersion: string;
  access: string[];
  resources: Set<string>;
  smart: boolean;
  /** The probe's stored `supports=` values, and the app kinds its stored verdict says are ready. */
  supports: string[];
  ready: string[];
  /** Folded words of the organization name. */
  nameWords: string[];
}

const N = 10_000;
let sorted: Row[];

function fold(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}
function splitWords(text: string): string[] {
  return fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "");
}
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
/** The documented order (docs/api.md, "List order and search"): vendorName, organizationName (missing last), url, id; case-insensitive. */
function order(a: Row, b: Row): number {
  const byVendor = compare(a.vendorName.toLowerCase(), b.vendorName.toLowerCase());
  if (byVendor !== 0) return byVendor;
  if (a.organizationName === null || b.organizationName === null) {
    if (a.organizationName !== b.organizationName) return a.organizationName === null ? 1 : -1;
  } else {
    const byName = compare(a.organizationName.toLowerCase(), b.organizationName.toLowerCase());
    if (byName !== 0) return byName;
  }
  const byUrl = compare(a.url.toLowerCase(), b.url.toLowerCase());
  return byUrl !== 0 ? byUrl : compare(a.id, b.id);
}

function bruteForce(combo: Combo): Row[] {
  const queryWords = combo.query === undefined ? [] : splitWords(combo.query);
  const resources = combo.hasResource === undefined ? [] : combo.hasResource.split(",").map((r) => r.trim());
  return sorted.filter((row) => {
    if (combo.vendor !== undefined && row.vendorId !== combo.vendor) return false;
    if (combo.state !== undefined && row.state !== combo.state) return false;
    if (combo.fhirVersion !== undefined && row.fhirVersion !== combo.fhirVersion) return false;
    if (combo.access !== undefined && !row.access.includes(combo.access)) return false;
    for (const type of resources) if (!row.resources.has(type)) return false;
    if (combo.smartSupported !== undefined && row.smart !== (combo.smartSupported === "true")) return false;
    for (const word of queryWords) if (!row.nameWords.some((w) => w.startsWith(word))) return false;
    for (const value of combo.supports?.split(",") ?? []) if (!row.supports.includes(value.trim())) return false;
    for (const value of combo.ready?.split(",") ?? []) if (!row.ready.includes(value.trim())) return false;
    return true;
  });
}

/** `ready=` values per verdict key (docs/api.md, List filters). */
const READY_VALUES: Record<string, string> = {
  patientApps: "patient-apps",
  providerApps: "provider-apps",
  backendServices: "backend-services",
};
const readyKinds = (verdict: Record<string, string>) =>
  Object.entries(verdict).flatMap(([kind, status]) => (status === "ready" ? [READY_VALUES[kind]!] : []));

function queryString(combo: Combo): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(combo)) if (value !== undefined) params.set(key, String(value));
  return params.toString();
}

const live = appOnGeneratedDataset({ endpoints: N, seed: 11 });

beforeAll(() => {
  /** A row as stored: the fields Row parses (JSON arrays as text, the verdict as its JSON object). */
  type Stored = Omit<Row, "access" | "resources" | "smart" | "supports" | "ready" | "nameWords"> & {
    access: string;
    resources: string | null;
    smart: number;
    supports: string | null;
    verdict: string | null;
  };
  const raw = live.db.sqlite
    .prepare(
      `SELECT e.id, e.vendor_id AS vendorId, v.name AS vendorName, e.organization_name AS organizationName, e.url,
         e.state, e.fhir_version AS fhirVersion, e.access, p.supported_resources AS resources,
         p.smart_body_id IS NOT NULL AS smart, p.supports, p.verdict
       FROM entries e JOIN vendors v ON v.id = e.vendor_id LEFT JOIN probes p ON p.url = e.url
       WHERE e.status != 'removed'`,
    )
    .all() as Stored[];
  sorted = raw
    .map(({ access, resources, smart, supports, verdict, ...fields }) => ({
      ...fields,
      access: JSON.parse(access) as string[],
      resources: new Set(resources === null ? [] : (JSON.parse(resources) as string[])),
      smart: smart === 1,
      supports: supports === null ? [] : (JSON.parse(supports) as string[]),
      ready: verdict === null ? [] : readyKinds(JSON.parse(verdict) as Record<string, string>),
      nameWords: fields.organizationName === null ? [] : splitWords(fields.organizationName),
    }))
    .sort(order);
});

test("every filter combination: same ids, same order, same meta.total as brute force", {
  timeout: 60_000,
}, async () => {
  const combos = combinations();
  let nonEmpty = 0;
  const failures: string[] = [];
  for (const combo of combos) {
    const qs = queryString(combo);
    const response = await live.app.handle(new Request(`http://localhost/api/v1/endpoints${qs ? `?${qs}` : ""}`));
    const body = (await response.json()) as {
      success: boolean;
      data: { id: string }[];
      meta: { total: number; page: number; limit: number };
    };
    const page = combo.page ?? 1;
    const limit = combo.limit ?? 25;
    const expected = bruteForce(combo);
    const expectedIds = expected.slice((page - 1) * limit, page * limit).map((row) => row.id);
    if (response.status !== 200 || !body.success) {
      failures.push(`${qs}: status ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
      continue;
    }
    const ids = body.data.map((record) => record.id);
    if (
      body.meta.total !== expected.length ||
      body.meta.page !== page ||
      body.meta.limit !== limit ||
      JSON.stringify(ids) !== JSON.stringify(expectedIds)
    ) {
      failures.push(
        `${qs}: total ${body.meta.total} vs ${expected.length}; page ids ${ids.length} vs ${expectedIds.length}; first difference at ${ids.findIndex((id, i) => id !== expectedIds[i])}`,
      );
    }
    if (expected.length > 0) nonEmpty++;
  }
  expect(failures).toEqual([]);
  // The combinations are not vacuous: most of them match something.
  expect(nonEmpty).toBeGreaterThan(combos.length * 0.4);
  expect(combos.length).toBeGreaterThan(400);
});

test("the brute force itself sees the data the combinations rely on", () => {
  // Every generated entry but the removed ones, which leave the listings.
  const removed = (
    live.db.sqlite.prepare("SELECT COUNT(*) AS n FROM entries WHERE status = 'removed'").get() as { n: number }
  ).n;
  expect(removed).toBeGreaterThan(0);
  expect(sorted.length).toBe(N - removed);
  expect(sorted.some((row) => row.organizationName === null)).toBe(true);
  expect(bruteForce({ query: "clinica" }).length).toBe(bruteForce({ query: "CLÍNICA" }).length);
  expect(bruteForce({ query: "clinica" }).length).toBeGreaterThan(0);
  expect(bruteForce({ query: "   " }).length).toBe(sorted.length);
  expect(bruteForce({ hasResource: "NoSuchResource" }).length).toBe(0);
  expect(bruteForce({ smartSupported: "true" }).length + bruteForce({ smartSupported: "false" }).length).toBe(
    sorted.length,
  );
  // Every supports= and ready= value holds somewhere, and not everywhere; but the health plans'
  // guides, which the generated developers (EHRs all) never declare (payer-capabilities.test.ts).
  const PAYER_GUIDES = new Set(["carin-bb", "davinci-pdex", "plan-net"]);
  for (const value of SUPPORTS.filter((value) => !PAYER_GUIDES.has(value)))
    expect([
      value,
      bruteForce({ supports: value }).length > 0,
      bruteForce({ supports: value }).length < sorted.length,
    ]).toEqual([value, true, true]);
  for (const value of READY)
    expect([
      value,
      bruteForce({ ready: value }).length > 0,
      bruteForce({ ready: value }).length < sorted.length,
    ]).toEqual([value, true, true]);
});
