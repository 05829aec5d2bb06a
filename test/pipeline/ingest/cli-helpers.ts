export { removeTempDirs, tempDir } from "../../support/temp-db";

import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeAcmeRegistry } from "../../support/acme";
import { runScript } from "../../support/run-script";

export interface Org {
  key: string;
  name: string;
  npi?: string;
  city?: string;
  state?: string;
}

/** An Oracle-style Bundle: one Endpoint at https://fhir.acme.test/r4/<key> and one Organization per org. */
export function bundle(orgs: Org[], next?: string): string {
  const entry = orgs.flatMap((org) => [
    {
      resource: {
        resourceType: "Endpoint",
        id: `ep-${org.key}`,
        connectionType: { code: "hl7-fhir-rest" },
        address: `https://fhir.acme.test/r4/${org.key}/`,
      },
    },
    {
      resource: {
        resourceType: "Organization",
        id: `org-${org.key}`,
        name: org.name,
        identifier: org.npi ? [{ system: "http://hl7.org/fhir/sid/us-npi", value: org.npi }] : [],
        address: org.city ? [{ city: org.city, state: org.state ?? "TX", postalCode: "75001" }] : [],
        endpoint: [{ reference: `Endpoint/ep-${org.key}` }],
      },
    },
  ]);
  return JSON.stringify({
    resourceType: "Bundle",
    type: "collection",
    ...(next ? { link: [{ relation: "next", url: next }] } : {}),
    entry,
  });
}

export const FOUR: Org[] = [
  { key: "a", name: "Alpha Clinic", npi: "1234567893", city: "Dallas" },
  { key: "b", name: "Beta Health" },
  { key: "c", name: "Gamma Care", city: "Austin", state: "Texas" },
  { key: "d", name: "Delta Medical" },
];

export function writeFile(dir: string, name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** A registry with vendor `acme` (a patient and a provider list) and any extra network lists. */
export function writeRegistry(dir: string, base: string, extraVendors: object[] = []): string {
  return writeAcmeRegistry(
    join(dir, "vendors.json"),
    [
      {
        id: "acme-patient",
        url: `${base}/lists/acme-patient`,
        format: "fhir-bundle",
        audience: "patient",
        fhirVersion: "R4",
      },
      { id: "acme-provider", url: `${base}/lists/acme-provider`, format: "fhir-bundle", audience: "provider" },
    ],
    extraVendors,
  );
}

export interface CliRun {
  code: number;
  output: string;
}

/** Runs `bun src/pipeline/ingest/cli.ts` as a real subprocess (asynchronously: test servers keep answering). */
export async function runCli(args: string[], env: { DATABASE_PATH: string } & Record<string, string>): Promise<CliRun> {
  const { code, stdout, stderr } = await runScript("src/pipeline/ingest/cli.ts", args, env);
  return { code, output: stdout + stderr };
}

export interface EntryState {
  id: string;
  url: string;
  organization_name: string | null;
  npi: string | null;
  tenant_id: string | null;
  city: string | null;
  state: string | null;
  status: string;
  fhir_version: string;
  access: string;
  last_updated: string;
}

export function readEntries(dbPath: string): Map<string, EntryState> {
  const db = new Database(dbPath, { readonly: true });
  try {
    const rows = db
      .query(
        "SELECT id, url, organization_name, npi, tenant_id, city, state, status, fhir_version, access, last_updated FROM entries",
      )
      .all() as EntryState[];
    return new Map(rows.map((r) => [r.organization_name ?? r.id, r]));
  } finally {
    db.close();
  }
}

/** Every table the ingest writes, for "nothing changed" comparisons. */
export function snapshot(dbPath: string): string {
  const db = new Database(dbPath, { readonly: true });
  try {
    const tables = ["entries", "entry_sources", "vendors", "vendor_lists", "dataset_meta"];
    return JSON.stringify(tables.map((t) => db.query(`SELECT * FROM ${t} ORDER BY 1, 2`).all()));
  } finally {
    db.close();
  }
}

export function query<T>(dbPath: string, sql: string): T[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.query(sql).all() as T[];
  } finally {
    db.close();
  }
}
