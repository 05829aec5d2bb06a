/**
 * The ids of the national build (db/national/) hold: every entry id and FHIR Organization id is
 * pinned by a fingerprint committed beside this file (ids.fingerprint.json), so a change to
 * either fails here until it is made on purpose, documented (docs/api.md, "Identifiers") and
 * the fingerprint updated with it. An Organization's id is the SHA-256 of its key with the name
 * as its first entry spells it (the scheme of the releases before 2026-11-27); the id another
 * spelling had as an Organization of its own, and the id of the one release that hashed the name
 * lowercased (2026-11-27), answer 301 to it.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { createTestApp } from "../../support/app";
import { nationalDatabase } from "../../support/built-once";

const FINGERPRINT = join(import.meta.dir, "ids.fingerprint.json");

interface Fingerprint {
  /** Listed entries, and the SHA-256 of their ids sorted and joined with newlines. */
  entries: number;
  entryIds: string;
  /** The FHIR export's organizations (not developers), and the SHA-256 of their ids likewise. */
  organizations: number;
  organizationIds: string;
}

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");
/** An Organization's id as the releases before 2026-11-27 computed it, written out here independently. */
const organizationId = (o: {
  vendorId: string;
  name: string | null;
  npi: string | null;
  city: string | null;
  state: string | null;
  zipCode: string | null;
}) =>
  sha256(
    [
      "Organization\n",
      o.vendorId,
      ...[o.name, o.npi, o.city, o.state, o.zipCode].map((v) => `\0${v ?? "\u0001"}`),
    ].join(""),
  );

let dir: string;
let path: string;
let app: ReturnType<typeof createTestApp>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "national-ids-"));
  path = join(dir, "national.sqlite");
  await nationalDatabase(path);
  app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }) });
}, 120_000);
afterAll(() => {
  app?.directory.close();
  rmSync(dir, { recursive: true, force: true });
});

const fetchApp = (path: string) => app.handle(new Request(`http://localhost${path}`));

describe("the national build's ids", () => {
  test("entry and Organization ids equal the committed fingerprint, per kind of developer", async () => {
    const sqlite = new Database(path, { readonly: true });
    const fingerprint = async (kind: string): Promise<Fingerprint> => {
      const entryIds = (
        sqlite
          .prepare(
            // `+e.id`: the rows found sorted, rather than the id index walked with a row lookup per entry.
            "SELECT e.id FROM entries e JOIN vendors v ON v.id = e.vendor_id WHERE e.unusable IS NULL AND v.kind = ? ORDER BY +e.id",
          )
          .values(kind) as [string][]
      ).map(([id]) => id);
      const bundle = (await (await fetchApp(`/api/v1/export?format=fhir&kind=${kind}`)).json()) as {
        entry: { resource: { resourceType: string; id: string } }[];
      };
      const organizationIds = bundle.entry
        .filter((e) => e.resource.resourceType === "Organization" && !e.resource.id.startsWith("developer-"))
        .map((e) => e.resource.id)
        .sort();
      return {
        entries: entryIds.length,
        entryIds: sha256(entryIds.join("\n")),
        organizations: organizationIds.length,
        organizationIds: sha256(organizationIds.join("\n")),
      };
    };
    const now = { ehr: await fingerprint("ehr"), payer: await fingerprint("payer") };
    sqlite.close();
    expect(now).toEqual(JSON.parse(readFileSync(FINGERPRINT, "utf8")) as typeof now);
  }, 60_000);

  test("every Organization of three developers has the id of its key with its name as published", async () => {
    type Organization = {
      resourceType: string;
      id: string;
      name?: string;
      identifier?: { system: string; value: string }[];
      address?: { city?: string; state?: string; postalCode?: string }[];
    };
    // An organization whose place only its name states (state evidence name-place) has the id it
    // had before names were read: its key's city, state and ZIP are null.
    const sqlite = new Database(path, { readonly: true });
    const namePlaced = new Set(
      (
        sqlite
          .prepare(
            "SELECT DISTINCT vendor_id || ' ' || organization_name FROM entries WHERE state_evidence = 'name-place'",
          )
          .values() as [string][]
      ).map(([key]) => key),
    );
    sqlite.close();
    let checked = 0;
    let placedByName = 0;
    const formerIds: [former: string, id: string][] = [];
    for (const vendorId of ["epic", "athenahealth", "altera-digital-health"]) {
      const bundle = (await (await fetchApp(`/api/v1/export?format=fhir&vendor=${vendorId}`)).json()) as {
        entry: { resource: Organization }[];
      };
      for (const { resource: o } of bundle.entry) {
        if (o.resourceType !== "Organization" || o.id.startsWith("developer-") || o.name === undefined) continue;
        const npi = o.identifier?.find((i) => i.system === "http://hl7.org/fhir/sid/us-npi")?.value ?? null;
        const byName = namePlaced.has(`${vendorId} ${o.name}`);
        if (byName) placedByName++;
        const address = byName ? undefined : o.address?.[0];
        const key = {
          vendorId,
          name: o.name,
          npi,
          city: address?.city ?? null,
          state: address?.state ?? null,
          zipCode: address?.postalCode ?? null,
        };
        expect([o.name, o.id]).toEqual([o.name, organizationId(key)]);
        if (checked % 50 === 0 && key.name !== key.name.toLowerCase())
          formerIds.push([organizationId({ ...key, name: key.name.toLowerCase() }), o.id]);
        checked++;
      }
    }
    // The ids the 2026-11-27 release gave them (the name lowercased) are permanent redirects to these.
    expect(formerIds.length).toBeGreaterThan(50);
    for (const [former, id] of formerIds) {
      const answer = await fetchApp(`/fhir/Organization/${former}`);
      expect([former, answer.status, answer.headers.get("location")]).toEqual([
        former,
        301,
        `http://localhost/fhir/Organization/${id}`,
      ]);
    }
    expect(checked).toBeGreaterThan(5000);
    // "MetroHealth - OH", "Lakeland Regional Health (FL)", "Eleanor Health TX"…: served with the state, ids as before.
    expect(placedByName).toBeGreaterThan(40);
  }, 60_000);

  test("an Organization's id is its key's hash with the name as published; another spelling's id and the 2026-11-27 id are 301 to it", async () => {
    const sqlite = new Database(path, { readonly: true });
    const row = (name: string) =>
      sqlite
        .prepare(
          `SELECT vendor_id AS vendorId, organization_name AS name, npi, city, state, zip_code AS zipCode FROM entries
           WHERE organization_name = ? AND unusable IS NULL LIMIT 1`,
        )
        .get(name) as Parameters<typeof organizationId>[0];
    // A name with capitals: the id the releases before 2026-11-27 gave it (not of the name lowercased).
    const augusta = row("Augusta Gastrointestinal");
    const read = await fetchApp(`/fhir/Organization/${organizationId(augusta)}`);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { name: string }).name).toBe("Augusta Gastrointestinal");
    // The id the 2026-11-27 release gave it, of the name lowercased: a permanent redirect to it.
    const lowercased = await fetchApp(
      `/fhir/Organization/${organizationId({ ...augusta, name: augusta.name!.toLowerCase() })}`,
    );
    expect(lowercased.status).toBe(301);
    // The body says so as information, not as an error.
    expect(((await lowercased.json()) as { issue: { severity: string; code: string }[] }).issue).toMatchObject([
      { severity: "information", code: "informational" },
    ]);
    expect(lowercased.headers.get("location")).toBe(`http://localhost/fhir/Organization/${organizationId(augusta)}`);
    // A name already lowercase had one id in both schemes; an id of no scheme is 404.
    expect((await fetchApp(`/fhir/Organization/${sha256("no organization")}`)).status).toBe(404);

    // Two spellings of one name, once two Organizations: the second's id moved to the first's.
    const groups = sqlite
      .prepare(
        `SELECT vendor_id AS vendorId, lower(organization_name) AS folded, COUNT(DISTINCT organization_name) AS spellings
         FROM entries WHERE unusable IS NULL AND organization_name IS NOT NULL
         GROUP BY vendor_id, folded, npi, city, state, zip_code HAVING spellings > 1`,
      )
      .all() as { vendorId: string; folded: string }[];
    expect(groups.length).toBeGreaterThan(0);
    const group = groups[0]!;
    const spellings = sqlite
      .prepare(
        `SELECT DISTINCT vendor_id AS vendorId, organization_name AS name, npi, city, state, zip_code AS zipCode
         FROM entries WHERE unusable IS NULL AND vendor_id = ? AND lower(organization_name) = ?`,
      )
      .all(group.vendorId, group.folded) as Parameters<typeof organizationId>[0][];
    sqlite.close();
    const answers = await Promise.all(
      spellings.map(async (s) => {
        const response = await fetchApp(`/fhir/Organization/${organizationId(s)}`);
        return { status: response.status, location: response.headers.get("location"), id: organizationId(s) };
      }),
    );
    const current = answers.filter((a) => a.status === 200);
    expect(current).toHaveLength(1);
    for (const moved of answers.filter((a) => a.status !== 200))
      expect(moved).toMatchObject({ status: 301, location: `http://localhost/fhir/Organization/${current[0]!.id}` });
  });
});
