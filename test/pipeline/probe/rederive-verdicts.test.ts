/**
 * When the verdict's rules change, `bun run derive` derives every stored probe's verdict again
 * from its stored bodies, and the change feed reports each entry whose verdict changed, once,
 * and no other. The stored verdicts here are what the rules before capability sets and one rule
 * per kind made of the same documents (an empty capabilities list was `partial`, SMART named
 * without discovery `no`, a configuration without `scopes_supported` ready for backend services).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { markDatasetChanged, readDatasetVersion } from "../../../src/db/dataset-meta";
import { probeDue } from "../../../src/pipeline/probe";
import { createTestApp } from "../../support/app";
import { fetchPublished } from "../../support/fixture";
import { runScript } from "../../support/run-script";
import { fixture, insertEntry, json, type Route, serveTls, tempDb } from "./helpers";

type Statuses = [patientApps: string, providerApps: string, backendServices: string];
interface Site {
  metadata: string;
  smart?: string;
  /** The statuses the earlier rules stored. */
  before: Statuses;
  /** What the rules make of the same documents now. */
  after: Statuses;
}
const STATEMENT = fixture("r4-capability.json");
const SITES: Record<string, Site> = {
  "empty-capabilities": {
    metadata: STATEMENT,
    smart: fixture("capability-sets/smart-empty-capabilities.json"),
    before: ["partial", "partial", "partial"],
    after: ["no", "no", "partial"],
  },
  "no-scopes": {
    metadata: STATEMENT,
    smart: fixture("capability-sets/smart-no-scopes.json"),
    before: ["ready", "ready", "ready"],
    after: ["ready", "ready", "partial"],
  },
  "smart-named": {
    metadata: fixture("capability-sets/r4-smart-named-no-discovery.json"),
    before: ["no", "no", "no"],
    after: ["partial", "partial", "no"],
  },
  // The same statuses under both rules (only its sets and notes are new): not in the feed.
  "patient-ehr-launch-only": {
    metadata: STATEMENT,
    smart: fixture("capability-sets/smart-patient-ehr-launch-only.json"),
    before: ["ready", "ready", "partial"],
    after: ["ready", "ready", "partial"],
  },
};
const route: Route = (request) => {
  const [, site, ...rest] = new URL(request.url).pathname.split("/");
  const documents = SITES[site ?? ""];
  const path = rest.join("/");
  if (documents && path === "metadata") return json(documents.metadata);
  if (documents?.smart && path === ".well-known/smart-configuration") return json(documents.smart);
  return new Response("not found", { status: 404 });
};
const fhir = serveTls(route);
const ctx = tempDb();
const ids: Record<string, string> = {};
const asObject = ([patientApps, providerApps, backendServices]: Statuses) =>
  JSON.stringify({ patientApps, providerApps, backendServices });

beforeAll(async () => {
  for (const site of Object.keys(SITES)) ids[site] = insertEntry(ctx.db, { url: `${fhir.url}/${site}` });
  await probeDue(ctx.db, { ...fhir.probeOptions, timeoutMs: 5000 });
  // What the earlier rules left in the probes and their entries.
  const probe = ctx.db.sqlite.prepare("UPDATE probes SET verdict = ? WHERE url = ?");
  const entry = ctx.db.sqlite.prepare("UPDATE entries SET verdict = ? WHERE url = ?");
  for (const [site, { before }] of Object.entries(SITES)) {
    probe.run(asObject(before), `${fhir.url}/${site}`);
    entry.run(asObject(before), `${fhir.url}/${site}`);
  }
  markDatasetChanged(ctx.db.sqlite, new Date().toISOString());
});
afterAll(() => {
  fhir.stop();
  ctx.cleanup();
});

test("derive re-derives verdicts with the new rules; the change feed has each changed verdict once", async () => {
  const since = readDatasetVersion(ctx.db.sqlite);
  const first = await runScript("src/pipeline/probe/rederive.ts", [], { DATABASE_PATH: ctx.path });
  expect([first.code, first.stderr]).toEqual([0, ""]);
  expect(first.stdout).toContain("3 probes changed");
  // A second run finds nothing to change and writes nothing.
  const second = await runScript("src/pipeline/probe/rederive.ts", [], { DATABASE_PATH: ctx.path });
  expect(second.stdout).toContain("0 probes changed");

  const app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  try {
    const root = `http://127.0.0.1:${app.server!.port}`;
    const { body } = await fetchPublished(app, root, `/api/v1/changes?since=${since}`);
    const changed = Object.entries(SITES).filter(([, s]) => asObject(s.before) !== asObject(s.after));
    const verdict = (statuses: Statuses) => JSON.parse(asObject(statuses));
    expect((body.data as { id: string }[]).map((change) => change.id).sort()).toEqual(
      changed.map(([site]) => ids[site]!).sort(),
    );
    for (const [site, s] of changed)
      expect(body.data.find((change: { id: string }) => change.id === ids[site])).toEqual(
        expect.objectContaining({
          change: "changed",
          fields: { verdict: { from: verdict(s.before), to: verdict(s.after) } },
        }),
      );
    // What the capabilities answer says is what the feed reported.
    for (const [site, s] of Object.entries(SITES)) {
      const { body: capabilities } = await fetchPublished(app, root, `/api/v1/endpoints/${ids[site]}/capabilities`);
      const { patientApps, providerApps, backendServices } = capabilities.data.verdict;
      expect([site, patientApps.status, providerApps.status, backendServices.status]).toEqual([site, ...s.after]);
    }
  } finally {
    app.stop(true);
    app.directory.close();
  }
});
