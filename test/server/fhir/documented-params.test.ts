/**
 * /fhir over the national directory (the real published lists, db/national/): every search
 * parameter the README or the CapabilityStatement names is understood (never ignored), and the
 * Organization searches by place (`address-city`, `address-postalcode`, `near`) find what this
 * test computes from the raw rows.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { codes } from "zipcodes";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { createTestApp } from "../../support/app";
import { nationalDatabase } from "../../support/built-once";
import type { FhirResource as Resource } from "../../support/fhir-resource";
import { foldCity, haversine, type Place, pointOf } from "../../support/places";
import { tempDbPath } from "../../support/temp-db";

const ROOT = join(import.meta.dir, "../../..");
let app: ReturnType<typeof createTestApp>;
let sql: Database;
let origin: string;

interface Row extends Place {
  vendor: string;
  name: string | null;
  npi: string | null;
}
let rows: Row[];

beforeAll(async () => {
  const path = tempDbPath("national.sqlite");
  await nationalDatabase(path);
  sql = new Database(path, { readonly: true });
  rows = sql
    .query(
      "SELECT vendor_id AS vendor, organization_name AS name, npi, city, state, zip_code AS zip FROM entries WHERE status != 'removed' AND unusable IS NULL",
    )
    .all() as Row[];
  app = createTestApp({
    db: openDatabase(path),
    config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error" }),
  });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  origin = `http://127.0.0.1:${app.server!.port}`;
}, 120_000);

afterAll(async () => {
  await app?.stop(true);
  app?.directory.close();
  sql?.close();
});

async function fhir(path: string, strict = false): Promise<{ status: number; body: Resource }> {
  const response = await fetch(`${origin}/fhir${path}`, strict ? { headers: { prefer: "handling=strict" } } : {});
  return { status: response.status, body: (await response.json()) as Resource };
}

/** The parameters the README's route table names for a /fhir search of `type`. */
function readmeParameters(type: string): string[] {
  const line = readFileSync(join(ROOT, "README.md"), "utf8")
    .split("\n")
    .find((l) => l.startsWith(`| \`GET /fhir/${type}\``));
  const searched = /search \((.*)\) and read/.exec(line ?? "")?.[1] ?? "";
  return [...searched.matchAll(/`([_a-z-]+)`/g)].map((m) => m[1]!).filter((name) => !/^(mi|km)$/.test(name));
}

/** A value each kind of parameter takes, for asking whether the parameter is understood. */
const SAMPLE: Record<string, string> = {
  _id: "x",
  _lastUpdated: "ge2020-01-01",
  address: "https://",
  organization: "Organization/developer-epic",
  status: "active",
  "connection-type": "hl7-fhir-rest",
  "fhir-version": "4.0.1",
  supports: "pkce",
  ready: "patient-apps",
  "developer-kind": "payer",
  _include: "Endpoint:organization",
  name: "clinic",
  identifier: "1234567893",
  "address-state": "OH",
  "address-city": "cleveland",
  "address-postalcode": "44195",
  near: "41.5|-81.7|10|mi",
  endpoint: "Endpoint/x",
  _revinclude: "Endpoint:organization",
};

describe("every documented /fhir search parameter works", () => {
  for (const type of ["Endpoint", "Organization"]) {
    test(`${type}: the README's and the CapabilityStatement's parameters are each understood`, async () => {
      const metadata = (await fhir("/metadata")).body as unknown as {
        rest: { resource: { type: string; searchParam: { name: string }[]; searchInclude?: string[] }[] }[];
      };
      const resource = metadata.rest[0]!.resource.find((r) => r.type === type)!;
      const named = new Set([...readmeParameters(type), ...resource.searchParam.map((p) => p.name)]);
      expect(readmeParameters(type).length).toBeGreaterThan(5);
      for (const name of named) {
        if (name === "_revinclude" && type === "Endpoint") continue;
        const value = name === "_include" && type === "Organization" ? "Organization:endpoint" : SAMPLE[name];
        expect({ name, value: value !== undefined }).toEqual({ name, value: true });
        // Strict handling refuses an unknown parameter: a documented one is never refused so.
        // (An include beside `_id`: a developer's whole list is more than one page may include.)
        const also = name.endsWith("include") ? "&_id=x" : "";
        const { status, body } = await fhir(`/${type}?${name}=${encodeURIComponent(value!)}${also}`, true);
        expect({ name, status }).toEqual({ name, status: 200 });
        // The self link keeps what was understood.
        const self = (body.link as { relation: string; url: string }[]).find((l) => l.relation === "self")!.url;
        expect({ name, kept: new URL(self).searchParams.has(name) }).toEqual({ name, kept: true });
      }
    });
  }

  test("Endpoint?name= is documented nowhere, so it is an unknown parameter (refused under strict handling)", async () => {
    expect(readmeParameters("Endpoint")).not.toContain("name");
    expect((await fhir("/Endpoint?name=cleveland", true)).status).toBe(400);
  });
});

/** The organizations of the raw rows: one per vendor, lowercased name, NPI, city, state and ZIP. */
function organizations(): Row[] {
  const byKey = new Map<string, Row>();
  for (const row of rows)
    byKey.set([row.vendor, row.name?.toLowerCase(), row.npi, row.city, row.state, row.zip].join("\u0000"), row);
  return [...byKey.values()];
}

describe("Organization searches by place", () => {
  test("address-city and address-postalcode find the organizations of that city and ZIP", async () => {
    const orgs = organizations();
    const inCity = orgs.filter((o) => o.city !== null && foldCity(o.city).split(" ").includes("cleveland")).length;
    expect(inCity).toBeGreaterThan(0);
    expect((await fhir("/Organization?address-city=cleveland&_summary=count")).body.total).toBe(inCity);
    const zip = orgs.find((o) => o.zip !== null)!.zip!.slice(0, 5);
    const withZip = orgs.filter((o) => o.zip?.startsWith(zip)).length;
    expect((await fhir(`/Organization?address-postalcode=${zip}&_summary=count`)).body.total).toBe(withZip);
  });

  test("near=lat|lon|25|mi: the organizations placed within 25 miles, by the test's own haversine", async () => {
    const center: [number, number] = [codes["44195"]!.latitude, codes["44195"]!.longitude];
    const within = organizations().filter((o) => {
      const point = pointOf(o);
      return point !== null && haversine(center, point) <= 25;
    });
    expect(within.length).toBeGreaterThan(0);
    const { status, body } = await fhir(`/Organization?near=${center[0]}|${center[1]}|25|mi&_count=500`);
    expect(status).toBe(200);
    expect(body.total).toBe(within.length);
    const names = (body.entry ?? []).map((e) => (e.resource as { name?: string }).name ?? null).sort();
    expect(names).toEqual(within.map((o) => o.name).sort());
    // Kilometres are FHIR's default unit: 25 miles is 40.2336 km.
    expect((await fhir(`/Organization?near=${center[0]}|${center[1]}|40.2336&_summary=count`)).body.total).toBe(
      within.length,
    );
  });

  test("a malformed near is a 400 OperationOutcome saying how to write it", async () => {
    for (const value of ["41.5|-81.7", "91|0|1|mi", "41.5|-81.7|500|mi", "41.5|-81.7|1|ft", "a|b|c"]) {
      const { status, body } = await fhir(`/Organization?near=${encodeURIComponent(value)}`);
      expect({ value, status }).toEqual({ value, status: 400 });
      expect(JSON.stringify(body)).toContain("latitude|longitude|distance|units");
    }
  });
});
