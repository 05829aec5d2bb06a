/**
 * The change feed records verdict changes: a local FHIR server is probed for real twice, its SMART
 * configuration gaining PKCE in between; and a database migrated to verdicts records nothing.
 */
import { afterAll, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { readDatasetVersion } from "../../../src/db/dataset-meta";
import { probeDue } from "../../../src/pipeline/probe";
import { insertEntry, json, serveTls, tempDb } from "../../pipeline/probe/helpers";
import { createTestApp } from "../../support/app";
import { fetchPublished } from "../../support/fixture";

const STATEMENT = JSON.stringify({ resourceType: "CapabilityStatement", fhirVersion: "4.0.1", kind: "instance" });
let smart = JSON.stringify({
  authorization_endpoint: "https://auth.example/authorize",
  token_endpoint: "https://auth.example/token",
  // Patient Access for Standalone Apps; PKCE is what it lacks at first.
  capabilities: ["launch-standalone", "client-public", "context-standalone-patient", "permission-patient"],
  grant_types_supported: ["authorization_code"],
});
const fhir = serveTls((request) => {
  const path = new URL(request.url).pathname;
  if (path === "/fhir/metadata") return json(STATEMENT);
  if (path === "/fhir/.well-known/smart-configuration") return json(smart);
  return new Response("not found", { status: 404 });
});
const ctx = tempDb();
afterAll(() => {
  fhir.stop();
  ctx.cleanup();
});

test("a SMART configuration gaining PKCE: the entry's verdict change, and nothing else, is in the feed", async () => {
  const id = insertEntry(ctx.db, { url: `${fhir.url}/fhir` });
  await probeDue(ctx.db, { ...fhir.probeOptions, timeoutMs: 5000, now: () => new Date("2026-11-01T00:00:00Z") });
  const since = readDatasetVersion(ctx.db.sqlite);
  smart = JSON.stringify({ ...JSON.parse(smart), code_challenge_methods_supported: ["S256"] });
  await probeDue(ctx.db, { ...fhir.probeOptions, timeoutMs: 5000, now: () => new Date("2026-11-03T00:00:00Z") });

  const app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  try {
    const root = `http://127.0.0.1:${app.server!.port}`;
    const { body } = await fetchPublished(app, root, `/api/v1/changes?since=${since}`);
    expect(body.data).toEqual([
      expect.objectContaining({
        id,
        change: "changed",
        fields: {
          verdict: {
            from: { patientApps: "partial", providerApps: "no", backendServices: "no" },
            to: { patientApps: "ready", providerApps: "no", backendServices: "no" },
          },
        },
      }),
    ]);
    // Not a field of the record: its lastUpdated stays at the first probe's change.
    const record = await fetchPublished(app, root, `/api/v1/endpoints/${id}`);
    expect(record.body.data.lastUpdated).toBe("2026-11-01T00:00:00.000Z");
  } finally {
    app.stop(true);
    app.directory.close();
  }
});

test("opening a database whose verdicts were never derived fills them and records no change", () => {
  const path = ctx.path;
  // As a database migrated to verdicts is: derived columns empty.
  ctx.db.sqlite.exec("UPDATE probes SET supports = NULL, verdict = NULL");
  ctx.db.sqlite.exec("UPDATE entries SET verdict = NULL");
  const changes = () => ctx.db.sqlite.prepare("SELECT COUNT(*) FROM entry_changes").values()[0]![0];
  const before = [changes(), readDatasetVersion(ctx.db.sqlite)];
  const reopened = openDatabase(path);
  try {
    expect(reopened.sqlite.prepare("SELECT verdict FROM entries").values()).toEqual([
      ['{"patientApps":"ready","providerApps":"no","backendServices":"no"}'],
    ]);
    expect([changes(), readDatasetVersion(reopened.sqlite)]).toEqual(before);
    expect(reopened.sqlite.prepare("SELECT COUNT(*) FROM entry_changes_pending").values()).toEqual([[0]]);
  } finally {
    reopened.sqlite.close();
  }
});
