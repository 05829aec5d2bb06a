/**
 * `bun run derive`: every value kept from the stored documents derived again, without a request,
 * when the rules that read them change (simulated here by stale stored values).
 */
import { afterAll, expect, test } from "bun:test";
import { markDatasetChanged, readDatasetVersion } from "../../../src/db/dataset-meta";
import { probeDue } from "../../../src/pipeline/probe";
import { runScript } from "../../support/run-script";
import { entry, insertEntry, json, probeRow, serve, tempDb } from "./helpers";

const STATEMENT = JSON.stringify({
  resourceType: "CapabilityStatement",
  fhirVersion: "4.0.1",
  software: { name: "Server", version: "1" },
  rest: [{ mode: "server", resource: [{ type: "Patient" }] }],
});
const SMART = JSON.stringify({
  authorization_endpoint: "https://a.example/authorize",
  token_endpoint: "https://a.example/token",
  capabilities: ["launch-standalone", "permission-v2"],
  code_challenge_methods_supported: ["S256"],
});
const fhir = serve({
  "/fhir/metadata": () => json(STATEMENT),
  "/fhir/.well-known/smart-configuration": () => json(SMART),
});
const ctx = tempDb();
afterAll(() => {
  fhir.stop();
  ctx.cleanup();
});

test("stale stored values are derived again from the stored bodies; a second run writes nothing", async () => {
  const url = `${fhir.url}/fhir`;
  insertEntry(ctx.db, { url });
  await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 5000 });
  const fresh = probeRow(ctx.db, url)!;
  const requests = fhir.requests.length;
  // What rules of another day left: every derived value different.
  ctx.db.sqlite.exec(`UPDATE probes SET fhir_version = 'DSTU2', software_name = NULL, supported_resources = '[]',
    smart_capabilities = '[]', access = NULL, supports = '[]', verdict = '{"patientApps":"no","providerApps":"no","backendServices":"no"}'`);
  ctx.db.sqlite.exec(`UPDATE entries SET fhir_version = 'DSTU2', access = '[]',
    verdict = '{"patientApps":"no","providerApps":"no","backendServices":"no"}'`);
  markDatasetChanged(ctx.db.sqlite, new Date().toISOString());
  const before = readDatasetVersion(ctx.db.sqlite);

  const first = await runScript("src/pipeline/probe/rederive.ts", [], { DATABASE_PATH: ctx.path });
  expect([first.code, first.stderr]).toEqual([0, ""]);
  expect(first.stdout).toContain("derived 1 probes (1 distinct pairs of bodies)");
  expect(first.stdout).toContain(`1 probes changed (1 entries' fhirVersion or access), dataset version ${before + 1}`);
  const row = probeRow(ctx.db, url)!;
  for (const column of [
    "fhir_version",
    "software_name",
    "supported_resources",
    "smart_capabilities",
    "access",
    "supports",
    "verdict",
  ])
    expect([column, row[column]]).toEqual([column, fresh[column]]);
  expect(row.supports).toBe('["smart-v2","pkce","launch-standalone"]');
  expect(entry(ctx.db, insertEntryId(url))).toMatchObject({ fhirVersion: "R4", access: '["patient"]' });
  // The change feed has the verdict change of that version; no request was sent.
  const change = ctx.db.sqlite.prepare("SELECT fields FROM entry_changes WHERE version = ?").values(before + 1);
  expect(JSON.parse(change[0]![0] as string).verdict).toEqual({
    from: { patientApps: "no", providerApps: "no", backendServices: "no" },
    to: { patientApps: "partial", providerApps: "no", backendServices: "no" },
  });
  expect(fhir.requests.length).toBe(requests);

  const second = await runScript("src/pipeline/probe/rederive.ts", [], { DATABASE_PATH: ctx.path });
  expect(second.stdout).toContain("0 probes changed (0 entries' fhirVersion or access); nothing to write");
  expect(readDatasetVersion(ctx.db.sqlite)).toBe(before + 1);
});

function insertEntryId(url: string): string {
  return (ctx.db.sqlite.prepare("SELECT id FROM entries WHERE url = ?").values(url)[0] as [string])[0];
}
