/**
 * Probe memory against hostile JSON: `bun bench/probe-hostile.ts [--hosts 40] [--concurrency 32]`
 *
 * Starts a fault farm (tools/farm) of `--hosts` hosts answering both documents with JSON just
 * under the 5 MB body cap, the kinds taken in turn: arrays nested millions deep, an array of
 * about 1.2M `{}`, an object of hundreds of thousands of distinct keys, one string of nearly
 * 5 MB, a real statement padded with whitespace. `bun run probe` then probes them into a fresh
 * SQLite file (a child process, with its store worker); its peak RSS is read from
 * /proc/<pid>/status (VmHWM, sampled every 50 ms). Then the same hostile bodies are written into
 * the database as stored bodies (as a probe from before the bounds kept them) and `bun run derive`
 * reads them back: its peak RSS too. Target: both under 300 MB (the Fly machine has 1 GB for the
 * server and the refresh).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openDatabase } from "../src/db/client";
import { recordProbes } from "../src/pipeline/probe";
import { farmDocuments } from "../tools/farm/documents";
import { type Behaviour, HOSTILE_JSON_BEHAVIOURS, hostileJson, startFarm } from "../tools/farm/farm";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    hosts: { type: "string", default: "40" },
    concurrency: { type: "string", default: "32" },
    /** The probe's per-request time-out: longer than the default 10 s, so that a busy host still reads every body. */
    timeout: { type: "string", default: "60s" },
  },
});

const CAP = 5 * 1024 * 1024;
const TARGET_MB = 300;
const root = join(import.meta.dir, "..");

/** Runs `bun <script> <args>` and samples its peak RSS (VmHWM) until it exits. */
async function peakRssOf(script: string, args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, join(root, script), ...args], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let peakKb = 0;
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // exited
    }
  };
  const timer = setInterval(sample, 50);
  const started = performance.now();
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  clearInterval(timer);
  return {
    exitCode: proc.exitCode,
    peakMB: Math.round(peakKb / 1024),
    seconds: Math.round((performance.now() - started) / 100) / 10,
    stdout,
    stderr,
  };
}

const hostCount = Number(values.hosts);
const behaviours = Array.from(
  { length: hostCount },
  (_, i) => HOSTILE_JSON_BEHAVIOURS[i % HOSTILE_JSON_BEHAVIOURS.length]!,
);
const documents = farmDocuments();
const farm = await startFarm(behaviours, { documents, firstOctet: 70, maxBodyBytes: CAP });
const dir = mkdtempSync(join(tmpdir(), "probe-hostile-"));
const path = join(dir, "hostile.sqlite");
try {
  const db = openDatabase(path);
  db.sqlite
    .prepare("INSERT INTO vendors (id, name, endpoint_list_url) VALUES ('bench', 'Bench', 'https://bench.test')")
    .run();
  const insert = db.sqlite.prepare(
    "INSERT INTO entries (id, vendor_id, url, last_updated) VALUES (?1, 'bench', ?2, '2026-01-01T00:00:00.000Z')",
  );
  for (const [i, host] of farm.hosts.entries()) insert.run(i.toString(16).padStart(64, "0"), farm.baseUrl(host));
  db.sqlite.close();

  const env = { DATABASE_PATH: path, ALLOW_PRIVATE_NETWORK: "true", LOG_LEVEL: "warn" };
  const probe = await peakRssOf(
    "src/pipeline/probe/cli.ts",
    ["--json", "--concurrency", values.concurrency, "--timeout", values.timeout],
    env,
  );
  if (probe.exitCode !== 0) throw new Error(`probe exited ${probe.exitCode}: ${probe.stderr.slice(-2000)}`);
  const summary = JSON.parse(probe.stdout) as { probed: number; errorKinds?: Record<string, number> };

  // The same bodies as a probe without bounds stored them: every URL with both documents kept.
  // Built once per behaviour and document (each about the size of the cap), shared by its hosts.
  const bodies = new Map<string, string>();
  const hostileBody = (behaviour: Behaviour, doc: "metadata" | "smart") => {
    const key = `${behaviour}/${doc}`;
    let text = bodies.get(key);
    if (text === undefined) {
      text = hostileJson(behaviour, doc, CAP, doc === "metadata" ? documents.metadata[0]! : documents.smart[0]!);
      bodies.set(key, text);
    }
    return text;
  };
  const stored = openDatabase(path);
  const records = farm.hosts.map((host) => {
    const body = (doc: "metadata" | "smart") => hostileBody(host.behaviour, doc);
    const doc = (text: string) => ({ ok: true, httpStatus: 200, body: text, errorKind: null });
    return {
      url: farm.baseUrl(host),
      result: {
        probeStatus: "success" as const,
        entryStatus: "verified" as const,
        errorKind: null,
        durationMs: 1,
        access: null,
        summary: {
          fhirVersion: "R4" as const,
          softwareName: null,
          softwareVersion: null,
          supportedResourceCount: 0,
          supportedResources: [],
          smartSupported: true,
          smartCapabilities: [],
          grantTypes: [],
        },
        metadata: doc(body("metadata")),
        smart: doc(body("smart")),
      },
    };
  });
  for (let i = 0; i < records.length; i += HOSTILE_JSON_BEHAVIOURS.length)
    recordProbes(stored, records.slice(i, i + HOSTILE_JSON_BEHAVIOURS.length), new Date());
  stored.sqlite.close();
  const derive = await peakRssOf("src/pipeline/probe/rederive.ts", [], env);
  if (derive.exitCode !== 0) throw new Error(`derive exited ${derive.exitCode}: ${derive.stderr.slice(-2000)}`);

  const result = {
    hosts: hostCount,
    kinds: HOSTILE_JSON_BEHAVIOURS,
    concurrency: Number(values.concurrency),
    probe: { peakRssMB: probe.peakMB, seconds: probe.seconds, probed: summary.probed, errorKinds: summary.errorKinds },
    derive: { peakRssMB: derive.peakMB, seconds: derive.seconds, output: derive.stdout.trim() },
    loadAverage: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
  };
  console.log(JSON.stringify(result, null, 2));
  const ok = probe.peakMB < TARGET_MB && derive.peakMB < TARGET_MB;
  console.log(ok ? `PASS: probe and derive under ${TARGET_MB} MB` : `FAIL: over ${TARGET_MB} MB`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await farm.stop();
  rmSync(dir, { recursive: true, force: true });
}
