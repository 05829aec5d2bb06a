/**
 * The national directory's start-up and ingest figures, each a real process timed from outside:
 *
 *   node_modules/.bin/bun bench/national.ts [--keep]
 *
 * 1. first start: `bun src/index.ts` with no database builds the national directory from the
 *    bundled lists (db/national/) and its index file, then listens (its "readyMs" log field);
 * 2. ready on the existing national database (three starts; readyMs);
 * 3. RSS of the server serving it after a handful of list, vendors and stats requests
 *    (/proc/<pid>/status VmRSS, and VmHWM = its peak);
 * 4. `bun run ingest --bundled` of every bundled list into a fresh database, and again into the
 *    same one (nothing changes), wall time from outside.
 * Targets: first start ≤ 15 s, ready ≤ 2 s, RSS ≤ 250 MB, ingest of all bundled lists ≤ 30 s.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCli } from "../src/cli/args";

const { values: flags } = parseCli({
  command: "bun run bench:national",
  synopsis: ["[--keep]"],
  description:
    "The national directory's start-up and ingest figures, each a real process timed from outside: first start (building the directory), ready on the existing one, RSS while serving, ingest of every bundled list. Targets: first start ≤ 15 s, ready ≤ 2 s, RSS ≤ 250 MB, ingest ≤ 30 s.",
  options: { keep: { type: "boolean" } },
  optionHelp: [["--keep", "keep the temporary folder of databases (its path is printed)"]],
});

const ROOT = join(import.meta.dir, "..");
const keep = flags.keep === true;
const dir = mkdtempSync(join(tmpdir(), "bench-national-"));
const bun = process.execPath;

async function start(databasePath: string) {
  const child = Bun.spawn([bun, join(ROOT, "src/index.ts")], {
    cwd: ROOT,
    // It measures the first start and serving: no refresh of its own (its lists are live URLs).
    env: {
      ...process.env,
      DATABASE_PATH: databasePath,
      PORT: "0",
      HOST: "127.0.0.1",
      RATE_LIMIT_MAX: "0",
      REFRESH: "off",
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  let output = "";
  while (!/"message":"listening"/.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${output}`);
    output += new TextDecoder().decode(value);
  }
  const line = output.split("\n").find((l) => l.includes('"message":"listening"'))!;
  const { url, readyMs, entries } = JSON.parse(line) as { url: string; readyMs: number; entries: number };
  void (async () => {
    while (!(await reader.read()).done) {}
  })();
  return { child, url, readyMs, entries };
}

function memory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb("VmRSS") / 1024), peakMb: Math.round(kb("VmHWM") / 1024) };
}

async function stop(child: ReturnType<typeof Bun.spawn>) {
  child.kill("SIGTERM");
  await child.exited;
}

async function timed(command: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = Bun.spawn(command, { cwd: ROOT, env: { ...process.env, ...env }, stdout: "ignore", stderr: "inherit" });
  if ((await child.exited) !== 0) throw new Error(`${command.join(" ")} failed`);
  return (performance.now() - started) / 1000;
}

try {
  const path = join(dir, "national.sqlite");
  const first = await start(path);
  console.log(`first start (build + index + listen): ${(first.readyMs / 1000).toFixed(1)} s, ${first.entries} entries`);
  await stop(first.child);

  for (let run = 1; run <= 3; run++) {
    const server = await start(path);
    for (const query of ["", "?state=NC", "?query=pediatrics", "?vendor=epic&fhirVersion=R4", "?page=100&limit=100"])
      await (await fetch(`${server.url}/api/v1/endpoints${query}`)).arrayBuffer();
    await (await fetch(`${server.url}/api/v1/vendors`)).arrayBuffer();
    await (await fetch(`${server.url}/api/v1/stats`)).arrayBuffer();
    const { rssMb, peakMb } = memory(server.child.pid);
    console.log(
      `ready on the existing database, run ${run}: ${server.readyMs} ms; RSS ${rssMb} MB (peak ${peakMb} MB)`,
    );
    await stop(server.child);
  }

  const ingestPath = join(dir, "ingest.sqlite");
  const command = [bun, join(ROOT, "src/pipeline/ingest/cli.ts"), "--bundled"];
  console.log(
    `ingest --bundled into a new database: ${(await timed(command, { DATABASE_PATH: ingestPath })).toFixed(1)} s`,
  );
  console.log(
    `ingest --bundled again (unchanged): ${(await timed(command, { DATABASE_PATH: ingestPath })).toFixed(1)} s`,
  );
} finally {
  if (keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
