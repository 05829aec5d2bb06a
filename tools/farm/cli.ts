/**
 * `bun tools/farm/cli.ts --out <dir> [--urls 23000] [--silent-percent 10] [--slow-percent 5]
 *   [--hostile-percent 5] [--https-percent 10] [--slow-ms 1000-8000] [--seed 1] [--first-octet 60]`
 *
 * Starts a national-like fault farm (tools/farm/plan.ts) on 127.<first-octet>.x.y and runs until
 * SIGTERM/SIGINT. Writes to `--out`: `list.json` (a FHIR Bundle of one Endpoint and Organization
 * per base URL, for `bun run ingest --vendor <id> --file`), `ca.pem` (the farm's test CA, for
 * NODE_EXTRA_CA_CERTS) and `hosts.json` (each host's origin, behaviour and URL count). Prints one
 * JSON line when ready: `{"control": "http://127.0.0.1:<port>", "urls", "hosts"}`; GET
 * `<control>/stats` answers the farm's counters: the most requests any host had in flight at
 * once, and how many base URLs had their /metadata asked for 0, 1, 2… times.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCli } from "../../src/cli/args";
import { farmDocuments } from "./documents";
import { startFarm } from "./farm";
import { nationalPlan } from "./plan";

const { values, fail } = parseCli({
  command: "bun run farm",
  synopsis: [
    "--out <dir> [--urls <n>] [--silent-percent <n>] [--slow-percent <n>] [--hostile-percent <n>] [--https-percent <n>] [--slow-ms <min-max>] [--seed <n>] [--first-octet <n>]",
  ],
  description:
    "Starts a national-like fault farm on 127.<first-octet>.x.y until SIGTERM/SIGINT; writes list.json, ca.pem and hosts.json to --out and prints one JSON line when ready.",
  optionHelp: [
    ["--out <dir>", "where list.json, ca.pem and hosts.json go (required)"],
    ["--urls <n>", "base URLs (default 23000)"],
    ["--silent-percent <n>", "hosts that accept and never answer (default 10)"],
    ["--slow-percent <n>", "slow hosts (default 5)"],
    ["--hostile-percent <n>", "hosts with every other farm behaviour (default 5)"],
    ["--https-percent <n>", "well-behaved hosts on https (default 10)"],
    ["--slow-ms <min-max>", "slow hosts' delay (default 1000-8000)"],
    ["--seed <n>", "the plan's seed (default 1)"],
    ["--first-octet <n>", "second octet of the farm's addresses (default 60)"],
  ],
  options: {
    out: { type: "string" },
    urls: { type: "string", default: "23000" },
    "silent-percent": { type: "string", default: "10" },
    "slow-percent": { type: "string", default: "5" },
    "hostile-percent": { type: "string", default: "5" },
    "https-percent": { type: "string", default: "10" },
    "slow-ms": { type: "string", default: "1000-8000" },
    seed: { type: "string", default: "1" },
    "first-octet": { type: "string", default: "60" },
  },
});
const out = values.out ?? fail("missing --out <dir>");

const [slowMin, slowMax] = (values["slow-ms"] ?? "").split("-").map(Number) as [number, number];
const plan = nationalPlan({
  urls: Number(values.urls),
  silentPercent: Number(values["silent-percent"]),
  slowPercent: Number(values["slow-percent"]),
  hostilePercent: Number(values["hostile-percent"]),
  httpsPercent: Number(values["https-percent"]),
  seed: Number(values.seed),
});
const farm = await startFarm(plan.behaviours, {
  documents: farmDocuments(),
  slowMs: [slowMin, slowMax],
  seed: Number(values.seed),
  firstOctet: Number(values["first-octet"]),
});

mkdirSync(out, { recursive: true });
const entry: object[] = [];
const baseUrls: string[] = [];
farm.hosts.forEach((host, h) => {
  for (let n = 0; n < plan.urlsPerHost[h]!; n++) {
    const address = farm.baseUrl(host, n);
    const i = baseUrls.push(address) - 1;
    entry.push(
      {
        resource: {
          resourceType: "Endpoint",
          id: `ep-${i}`,
          connectionType: { code: "hl7-fhir-rest" },
          address,
        },
      },
      {
        resource: {
          resourceType: "Organization",
          id: `org-${i}`,
          name: `Farm Clinic ${i}`,
          endpoint: [{ reference: `Endpoint/ep-${i}` }],
        },
      },
    );
  }
});
writeFileSync(join(out, "list.json"), JSON.stringify({ resourceType: "Bundle", type: "collection", entry }));
if (farm.certificates) writeFileSync(join(out, "ca.pem"), farm.certificates.ca);
writeFileSync(
  join(out, "hosts.json"),
  JSON.stringify(farm.hosts.map((h, i) => ({ origin: h.origin, behaviour: h.behaviour, urls: plan.urlsPerHost[i] }))),
);

const control = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    if (new URL(request.url).pathname !== "/stats") return new Response("not found", { status: 404 });
    const asked: Record<string, number> = {};
    for (const url of baseUrls) {
      const n = farm.metadataRequests.get(url) ?? 0;
      asked[n] = (asked[n] ?? 0) + 1;
    }
    const busiest = farm.hosts.reduce((a, b) => (b.maxInFlight > a.maxInFlight ? b : a));
    return Response.json({
      hosts: farm.hosts.length,
      urls: baseUrls.length,
      requests: farm.hosts.reduce((sum, h) => sum + h.requests, 0),
      maxInFlightPerHost: busiest.maxInFlight,
      busiestHost: { origin: busiest.origin, behaviour: busiest.behaviour },
      metadataAskedTimes: asked,
    });
  },
});

process.stdout.write(
  `${JSON.stringify({ control: `http://127.0.0.1:${control.port}`, urls: baseUrls.length, hosts: farm.hosts.length })}\n`,
);

const shutdown = async () => {
  control.stop(true);
  await farm.stop();
  process.exit(0);
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
