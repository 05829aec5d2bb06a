/**
 * Ingest benchmark: writes a ~100 MB FHIR Bundle of 100,000 organizations (one Endpoint each),
 * ingests it with the CLI as a subprocess into a fresh SQLite file, then ingests it again
 * (nothing changed), and reports wall time and peak RSS of each run.
 * Target: under 60 s and under 1.5 GB for the first run.
 *
 *   node_modules/.bin/bun bench/ingest.ts [--organizations 100000] [--keep]
 */

import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCli } from "../src/cli/args";

const { values } = parseCli({
  command: "bun run bench:ingest",
  synopsis: ["[--organizations <n>] [--keep]"],
  description:
    "Writes a FHIR Bundle of --organizations organizations (one Endpoint each), ingests it with the CLI into a fresh SQLite file, then again (nothing changed): wall time and peak RSS of each run. Target: under 60 s and 1.5 GB for the first run of 100,000.",
  options: { organizations: { type: "string", default: "100000" }, keep: { type: "boolean", default: false } },
  optionHelp: [
    ["--organizations <n>", "organizations in the Bundle (default 100000)"],
    ["--keep", "keep the temporary folder (its path is printed)"],
  ],
});
const COUNT = Number(values.organizations);
const TARGET_SECONDS = 60;
const TARGET_RSS_MB = 1536;
const REPO = join(import.meta.dir, "..");
const STATES = ["CA", "TX", "New York", "Florida", "IL", "PA", "OH", "GA", "NC", "MI"];

function guid(i: number): string {
  const hex = i.toString(16).padStart(12, "0");
  return `${((i * 2654435761) >>> 0).toString(16).padStart(8, "0")}-b7b8-4be5-ae27-${hex}`;
}

async function writeBundle(path: string) {
  const writer = Bun.file(path).writer();
  writer.write('{"resourceType":"Bundle","type":"collection","entry":[\n');
  for (let i = 0; i < COUNT; i++) {
    const id = guid(i);
    const endpoint = {
      fullUrl: `https://fhir-myrecord.example.com/Endpoint/${id}`,
      resource: {
        resourceType: "Endpoint",
        id,
        status: "active",
        connectionType: {
          system: "http://terminology.hl7.org/CodeSystem/endpoint-connection-type",
          code: "hl7-fhir-rest",
          display: "HL7 FHIR",
        },
        payloadType: [{ coding: [{ system: "urn:oid:1.3.6.1.4.1.19376.1.2.3", code: "urn:ihe:pcc:xphr:2007" }] }],
        address: `https://fhir-myrecord.example.com/r4/${id}/`,
      },
    };
    const organization = {
      fullUrl: `https://fhir-myrecord.example.com/Organization/O${id}`,
      resource: {
        resourceType: "Organization",
        id: `O${id}`,
        identifier: [
          { use: "official", system: "urn:ietf:rfc:3986", value: `urn:oid:2.16.840.1.113883.3.${i}` },
          ...(i % 3 === 0
            ? [{ use: "official", system: "http://hl7.org/fhir/sid/us-npi", value: String(1000000000 + i) }]
            : []),
          { use: "official", system: "urn:oid:2.16.840.1.113883.4.4", value: String(100000000 + i) },
        ],
        name: `Benchmark Medical Group ${i} of the Greater Metropolitan Area`,
        address: [
          {
            line: [`${i} Main Street`, `Suite ${i % 500}`],
            city: `City ${i % 2000}`,
            state: STATES[i % STATES.length],
            postalCode: String(10000 + (i % 89999)),
            country: "United States of America",
          },
        ],
        endpoint: [{ reference: `Endpoint/${id}` }],
      },
    };
    writer.write(`${JSON.stringify(endpoint)},\n${JSON.stringify(organization)}${i === COUNT - 1 ? "" : ","}\n`);
    if (i % 10000 === 0) await writer.flush();
  }
  writer.write("]}\n");
  await writer.end();
}

interface Measure {
  seconds: number;
  peakRssMb: number;
  code: number;
  output: string;
}

/** Runs the CLI under /usr/bin/time -v (peak RSS = "Maximum resident set size"). */
async function measure(file: string, dbPath: string): Promise<Measure> {
  const args = [
    process.execPath,
    "src/pipeline/ingest/cli.ts",
    "--vendor",
    "oracle-health",
    "--file",
    file,
    "--list",
    "oracle-health-millennium-patient-r4",
  ];
  const started = performance.now();
  const proc = Bun.spawn(["/usr/bin/time", "-v", ...args], {
    cwd: REPO,
    // The bundle (~116 MB) is larger than the CLI's default INGEST_MAX_BYTES (100 MB).
    env: { ...process.env, DATABASE_PATH: dbPath, INGEST_MAX_BYTES: "1000000000" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const seconds = (performance.now() - started) / 1000;
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? NaN);
  return { seconds, peakRssMb: kb / 1024, code, output: stdout };
}

const dir = mkdtempSync(join(tmpdir(), "ingest-bench-"));
const bundlePath = join(dir, "bundle.json");
const dbPath = join(dir, "directory.sqlite");
try {
  const generated = performance.now();
  await writeBundle(bundlePath);
  const mb = statSync(bundlePath).size / 1024 / 1024;
  console.log(
    `bundle: ${COUNT} organizations, ${mb.toFixed(1)} MB, written in ${((performance.now() - generated) / 1000).toFixed(1)} s`,
  );

  const first = await measure(bundlePath, dbPath);
  console.log(first.output.trim().split("\n").slice(-1)[0]);
  console.log(
    `first ingest:     ${first.seconds.toFixed(1)} s, peak RSS ${first.peakRssMb.toFixed(0)} MB, exit ${first.code}`,
  );
  const second = await measure(bundlePath, dbPath);
  console.log(second.output.trim().split("\n").slice(-1)[0]);
  console.log(
    `unchanged ingest: ${second.seconds.toFixed(1)} s, peak RSS ${second.peakRssMb.toFixed(0)} MB, exit ${second.code}`,
  );

  const ok = first.code === 0 && second.code === 0 && first.seconds < TARGET_SECONDS && first.peakRssMb < TARGET_RSS_MB;
  console.log(
    ok
      ? `within target (< ${TARGET_SECONDS} s, < ${TARGET_RSS_MB} MB)`
      : `MISSED target (< ${TARGET_SECONDS} s, < ${TARGET_RSS_MB} MB)`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
