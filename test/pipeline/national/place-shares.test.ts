/**
 * How many listed entries each lookup filter can find in the national build, counted here from
 * the stored rows (the test's own SQL, and its own placing of an entry from the `zipcodes`
 * package), against what `data:audit` prints and what docs/api.md ("Finding one provider") says.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { formatPlaceShares, placeShares } from "../../../src/pipeline/national/audit-places";
import { createTestApp } from "../../support/app";
import { nationalDatabase } from "../../support/built-once";
import { get } from "../../support/fixture";
import { haversine, pointOf } from "../../support/places";

let dir: string;
let path: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "place-shares-"));
  path = join(dir, "national.sqlite");
  await nationalDatabase(path);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Row {
  kind: string;
  npi: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
}

describe("the share of listed entries each lookup filter can find", () => {
  test("data:audit's figures are the rows' own, and docs/api.md states them", () => {
    const sqlite = new Database(path, { readonly: true });
    const rows = sqlite
      .prepare(
        `SELECT v.kind, e.npi, e.city, e.state, e.zip_code AS zip FROM entries e JOIN vendors v ON v.id = e.vendor_id
         WHERE e.status != 'removed' AND e.unusable IS NULL`,
      )
      .all() as Row[];
    const counted = (kind: string) => {
      const of = rows.filter((r) => r.kind === kind);
      return {
        listed: of.length,
        npi: of.filter((r) => r.npi !== null).length,
        city: of.filter((r) => r.city !== null).length,
        zip: of.filter((r) => r.zip !== null).length,
        near: of.filter((r) => pointOf(r) !== null).length,
        state: of.filter((r) => r.state !== null).length,
      };
    };
    const shares = placeShares(sqlite);
    sqlite.close();
    for (const kind of ["ehr", "payer"]) {
      const audit = shares.find((s) => s.kind === kind)!;
      expect({ kind, ...counted(kind) }).toEqual({
        kind,
        listed: audit.listed,
        npi: audit.npi,
        city: audit.city,
        zip: audit.zip,
        near: audit.near,
        state: audit.state,
      });
    }
    const ehr = shares.find((s) => s.kind === "ehr")!;
    const payer = shares.find((s) => s.kind === "payer")!;
    const printed = formatPlaceShares(shares).join("\n");
    expect(printed).toContain(`ehr: ${ehr.listed} listed; npi ${ehr.npi} (`);
    const docs = readFileSync(join(import.meta.dir, "../../../docs/api.md"), "utf8").replace(/\s+/g, " ");
    const number = (text: string) => Number(text.replace(/,/g, ""));
    const stated =
      /of ([\d,]+) listed EHR entries an NPI is published for ([\d,]+) \([\d.]+ %\), a city is known for ([\d,]+) \([\d.]+ %\), a ZIP code for ([\d,]+) \([\d.]+ %; ([\d,]+) in the ZIP table\), `near` can place ([\d,]+) \([\d.]+ %: [^)]*\), and a state is known for ([\d,]+) \([\d.]+ %\); of the ([\d,]+) health plans' entries a state for ([\d,]+) /.exec(
        docs,
      )!;
    expect(stated.slice(1).map(number)).toEqual([
      ehr.listed,
      ehr.npi,
      ehr.city,
      ehr.zip,
      ehr.zipInTable,
      ehr.near,
      ehr.state,
      payer.listed,
      payer.state,
    ]);
    // Before names were read, and what they add, as docs/api.md says.
    const before =
      /a state was known for ([\d,]+) EHR entries \([\d.]+ %\), a city for ([\d,]+), a ZIP for ([\d,]+) and `near` placed ([\d,]+); the names add ([\d,]+) states, ([\d,]+) cities \(all placed by `near`\) and ([\d,]+) ZIP codes, and ([\d,]+) plans' states/.exec(
        docs,
      )!;
    const { fromNames } = ehr;
    expect(before.slice(1).map(number)).toEqual([
      ehr.state - fromNames.state,
      ehr.city - fromNames.city,
      ehr.zip - fromNames.zip,
      ehr.near - fromNames.near,
      fromNames.state,
      fromNames.city,
      fromNames.zip,
      payer.fromNames.state,
    ]);
    expect(fromNames.near).toBe(fromNames.city);
    // The rows agree: each name-placed entry has a state, and a city or ZIP only where the name wrote one.
    expect(printed).toContain(
      `read from organization names (name-place): state ${fromNames.state}, city ${fromNames.city}, ZIP ${fromNames.zip}, near ${fromNames.near}`,
    );
  }, 60_000);

  test("a place a name states is served and found: state, city, near, its source; its Organization keeps its id", async () => {
    const app = createTestApp({
      db: openDatabase(path),
      config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }),
    });
    try {
      const metro = (await get(app, "/api/v1/endpoints?vendor=epic&query=metrohealth&state=OH")).body;
      expect(metro.data.map((e: { organizationName: string }) => e.organizationName)).toContain("MetroHealth - OH");
      const sedalia = (await get(app, "/api/v1/endpoints?city=sedalia&state=MO")).body.data as {
        id: string;
        organizationName: string;
        city: string;
        zipCode: string | null;
      }[];
      const afc = sedalia.find((e) => e.organizationName === "AFC Sedalia MO")!;
      expect(afc).toMatchObject({ city: "Sedalia", zipCode: null });
      const source = (await get(app, `/api/v1/endpoints/${afc.id}/source`)).body.data;
      expect(source.fields.state).toBe("name-place");
      // Placed at Sedalia's ZIPs' mean point: near its ZIP, within the test's own haversine.
      const near = (await get(app, "/api/v1/endpoints?near=65301&radius=10&limit=100")).body;
      const at = near.data.findIndex((e: { id: string }) => e.id === afc.id);
      expect(at).toBeGreaterThanOrEqual(0);
      const point = pointOf({ zip: null, city: "Sedalia", state: "MO" })!;
      const zip = pointOf({ zip: "65301", city: null, state: null })!;
      expect(Math.abs(near.meta.distance[at] - haversine(zip, point))).toBeLessThan(0.1);
      // The FHIR Organization carries the address; its id hashes the name's place as null.
      const fhir = (await get(app, `/fhir/Organization?name=${encodeURIComponent("AFC Sedalia MO")}`)).body as {
        entry: { resource: { id: string; address?: { city?: string; state?: string }[] } }[];
      };
      expect(fhir.entry).toHaveLength(1);
      expect(fhir.entry[0]!.resource.address).toEqual([{ city: "Sedalia", state: "MO" }]);
      const vendorId = (await get(app, `/api/v1/endpoints/${afc.id}`)).body.data.vendorId as string;
      const key = [
        "Organization\n",
        vendorId,
        ...["AFC Sedalia MO", null, null, null, null].map((v) => `\0${v ?? "\u0001"}`),
      ];
      expect(fhir.entry[0]!.resource.id).toBe(new Bun.CryptoHasher("sha256").update(key.join("")).digest("hex"));
    } finally {
      app.directory.close();
    }
  }, 60_000);
});
