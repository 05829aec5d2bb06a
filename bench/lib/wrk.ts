import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** What one wrk run measured; latencies in milliseconds. */
export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  bytes: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Responses with a status ≥ 400 (wrk's "Non-2xx or 3xx responses"). */
  non2xx: number;
  socketErrors: { connect: number; read: number; write: number; timeout: number };
}

/** wrk `done` hook printing the summary as one JSON line (WRKJSON …). */
export const REPORT_LUA = `
done = function(summary, latency, requests)
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d}\\n',
    summary.requests, summary.duration, summary.bytes, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.status, summary.errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
`;

/**
 * Each request is a random id from the file passed after `--`. The requests are formatted once
 * in init: formatting one per call made wrk itself the bottleneck (~10k requests/s on one core).
 */
const RANDOM_ID_LUA = `
local requests = {}
init = function(args)
  local suffix = args[2] or ""
  for line in io.lines(args[1]) do requests[#requests + 1] = wrk.format("GET", "/api/v1/endpoints/" .. line .. suffix) end
  math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)
end
request = function()
  return requests[math.random(#requests)]
end
`;

/** Each request is a random line (a whole path and query) of the file passed after `--`. */
const RANDOM_PATH_LUA = `
local requests = {}
init = function(args)
  for line in io.lines(args[1]) do requests[#requests + 1] = wrk.format("GET", line) end
  math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)
end
request = function()
  return requests[math.random(#requests)]
end
`;

export function writeLuaScripts(dir: string): { report: string; randomId: string; randomPath: string } {
  const report = join(dir, "report.lua");
  const randomId = join(dir, "random-id.lua");
  const randomPath = join(dir, "random-path.lua");
  writeFileSync(report, REPORT_LUA);
  writeFileSync(randomId, RANDOM_ID_LUA + REPORT_LUA);
  writeFileSync(randomPath, RANDOM_PATH_LUA + REPORT_LUA);
  return { report, randomId, randomPath };
}

export function wrkInstalled(): boolean {
  return Bun.which("wrk") !== null;
}

export interface WrkRun {
  url: string;
  seconds: number;
  connections: number;
  threads: number;
  /** CPU list for taskset, e.g. "1". */
  cpus: string;
  script: string;
  scriptArgs?: string[];
}

export async function runWrk(run: WrkRun): Promise<WrkResult> {
  const args = [
    "taskset",
    "-c",
    run.cpus,
    "wrk",
    `-t${run.threads}`,
    `-c${run.connections}`,
    `-d${run.seconds}s`,
    "--timeout",
    "5s",
    "-s",
    run.script,
    run.url,
  ];
  if (run.scriptArgs?.length) args.push("--", ...run.scriptArgs);
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const line = out.split("\n").find((l) => l.startsWith("WRKJSON "));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}): ${err || out}`);
  const raw = JSON.parse(line.slice("WRKJSON ".length)) as Record<string, number>;
  const seconds = raw.duration_us! / 1e6;
  return {
    requests: raw.requests!,
    seconds,
    rps: raw.requests! / seconds,
    bytes: raw.bytes!,
    p50: raw.p50! / 1000,
    p90: raw.p90! / 1000,
    p99: raw.p99! / 1000,
    max: raw.max! / 1000,
    non2xx: raw.status!,
    socketErrors: { connect: raw.connect!, read: raw.read!, write: raw.write!, timeout: raw.timeout! },
  };
}
