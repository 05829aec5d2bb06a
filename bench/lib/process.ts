import { closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { RUNTIME_ENV } from "../../src/runtime-env";
import { fmt } from "./report";

export interface Started {
  proc: Subprocess;
  pid: number;
  startedAt: number;
  port: number;
}

/** What `generateDatabase` writes: `bun run data:generate-1m`'s options. */
export interface GenerateArgs {
  endpoints: number;
  seed?: number;
  historyDays?: number;
}

/**
 * Writes a generated dataset to `out` with `bun run data:generate-1m` (tools/generate/cli.ts) in a
 * child process, so that the bench's own memory stays its own; its log goes to ours unless
 * `quiet`. Throws when it fails.
 */
export function generateDatabase(out: string, args: GenerateArgs, quiet = false): void {
  const command = [process.execPath, join(import.meta.dir, "../../tools/generate/cli.ts"), "--out", out];
  command.push("--endpoints", String(args.endpoints), "--seed", String(args.seed ?? 1));
  if (args.historyDays !== undefined) command.push("--history-days", String(args.historyDays));
  const output = quiet ? "ignore" : "inherit";
  if (Bun.spawnSync(command, { stdout: output, stderr: "inherit" }).exitCode !== 0)
    throw new Error("dataset generation failed");
}

/** A free TCP port on 127.0.0.1 (bound once by the OS, then released). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/**
 * Starts `bun <script>` pinned to the given CPUs. `taskset` execs the command, so the pid is the
 * server's own and /proc/<pid>/status reports the server's memory.
 */
export function startPinned(
  script: string,
  cpus: string,
  env: Record<string, string>,
  logPath: string,
  port: number,
): Started {
  const log = openSync(logPath, "a");
  const startedAt = performance.now();
  const proc = Bun.spawn(["taskset", "-c", cpus, process.execPath, script], {
    // Run as `npm start` and the image run it (the ceiling too, so both get the same allocator).
    // No refresh of its own unless the bench asks for one: it measures serving.
    env: { ...process.env, ...RUNTIME_ENV, REFRESH: "off", ...env, PORT: String(port) },
    stdout: log,
    stderr: log,
  });
  closeSync(log);
  return { proc, pid: proc.pid, startedAt, port };
}

/** Polls `path` until it answers 200; returns milliseconds since the process was spawned. */
export async function waitUntilAnswers(started: Started, path: string, timeoutMs: number): Promise<number> {
  const url = `http://127.0.0.1:${started.port}${path}`;
  while (performance.now() - started.startedAt < timeoutMs) {
    if (started.proc.exitCode !== null)
      throw new Error(`server exited with code ${started.proc.exitCode} before answering`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now() - started.startedAt;
    } catch {
      // not listening yet
    }
    await Bun.sleep(10);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

/**
 * Waits until a started server answers `/health`, then until its first `/fhir` request (which
 * builds the version's FHIR index) is answered; both times in ms, and the RSS then.
 */
export async function waitUntilFhirReady(
  started: Started,
): Promise<{ readyMs: number; fhirMs: number; rssMb: number }> {
  const readyMs = await waitUntilAnswers(started, "/health", 300_000);
  const at = performance.now();
  await waitUntilAnswers(started, "/fhir/metadata", 300_000);
  return { readyMs, fhirMs: performance.now() - at, rssMb: memoryOf(started.pid)?.rssMb ?? Number.NaN };
}

/** Resident and peak resident memory of a process, in MB, from /proc/<pid>/status. */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
  } catch {
    return null;
  }
}

export async function stop(started: Started): Promise<void> {
  if (started.proc.exitCode !== null) return;
  started.proc.kill("SIGTERM");
  const exited = await Promise.race([started.proc.exited.then(() => true), Bun.sleep(5000).then(() => false)]);
  if (!exited) {
    started.proc.kill("SIGKILL");
    await started.proc.exited;
  }
}

/** CPU seconds (user + system, all threads) the process has used so far, from /proc/<pid>/stat. */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start at ") ".
    const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the full line, 12 and 13 after the name.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * Serves a copy of `source` from `script` pinned to `cpus`: the copy, its index files and the
 * server's log in a new temporary folder (`prepare` may fill it first), ready once /health
 * answers. `run` gets the server and the copy's path; afterwards the server is stopped and the
 * folder removed, whatever `run` did.
 */
export async function withServedCopy<T>(
  options: {
    source: string;
    script: string;
    cpus: string;
    env: Record<string, string>;
    readyTimeoutMs: number;
    prepare?: (dir: string) => void;
  },
  run: (server: Started, db: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "bench-served-"));
  try {
    const db = join(dir, "bench.sqlite");
    console.log(`copying ${options.source} to ${db}`);
    copyFileSync(options.source, db);
    options.prepare?.(dir);
    const server = startPinned(
      options.script,
      options.cpus,
      { DATABASE_PATH: db, HOST: "127.0.0.1", INDEX_DIR: join(dir, "index"), LOG_LEVEL: "warn", ...options.env },
      join(dir, "server.log"),
      freePort(),
    );
    try {
      console.log(
        `server (${options.script}) ready in ${fmt(await waitUntilAnswers(server, "/health", options.readyTimeoutMs))} ms`,
      );
      return await run(server, db);
    } finally {
      await stop(server);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
