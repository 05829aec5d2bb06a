import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config";
import type { FreshnessReader } from "../db/freshness";
import type { Logger } from "../logger";
import { REFRESH_LOCK_HELD_EXIT_CODE, retryDelayMs } from "../model/freshness";

/**
 * The server's own refresh schedule (docs/deploy.md, "The refresh schedule"). The run itself is
 * `bun src/pipeline/refresh/cli.ts`, started as a child process at low priority (`nice`, and the
 * first the kernel's OOM killer picks), so that a crash or a memory spike in it never takes the
 * API down: the server never imports the pipeline. When a run is due is read from the database
 * (src/db/freshness.ts), so every server on one database, and every machine of a LiteFS cluster,
 * agrees; the run's own lock (src/db/refresh-runs.ts) makes sure only one runs.
 */

const REFRESH_CLI = join(import.meta.dir, "..", "pipeline", "refresh", "cli.ts");
const ROOT = join(import.meta.dir, "..", "..");
/** Exists on a LiteFS replica (it holds the primary's address): only the primary writes. */
const LITEFS_REPLICA_MARKER = "/litefs/.primary";
/** Seconds a stopping server gives its run to record what it did before killing it. */
const STOP_GRACE_MS = 10_000;

/** Exit statuses after which the run recorded its own end (or never started): no crash. */
const RECORDED_EXITS = new Set([0, 1, 3, REFRESH_LOCK_HELD_EXIT_CODE, 130]);

interface RefreshScheduler {
  /** Stops the schedule and the run in progress (which keeps what it did, for the next to resume). */
  stop(): Promise<void>;
}

export function startRefreshScheduler(deps: {
  config: Config;
  freshness: FreshnessReader;
  log: Logger;
}): RefreshScheduler | null {
  const { config, freshness, log } = deps;
  const mode = freshness.mode();
  if (mode !== "on") {
    log.info(
      mode === "off"
        ? "refresh schedule off (REFRESH=off)"
        : "refresh schedule off: a generated dataset, whose hosts are invented",
    );
    return null;
  }
  const timings = config.refresh;
  const checkMs = Math.max(200, Math.min(60_000, Math.floor(timings.lockMs / 2)));
  let child: ReturnType<typeof Bun.spawn> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  let crashes = 0;
  let crashWaitUntil = 0;

  function start() {
    const staleAfterSeconds = Math.floor(timings.everyMs / 2000);
    const nice = Bun.which("nice");
    const command = [
      ...(nice ? [nice, "-n", "10"] : []),
      process.execPath,
      REFRESH_CLI,
      "--stale-after",
      `${staleAfterSeconds}s`,
    ];
    log.info("refresh starting", { command: command.join(" ") });
    const started = Date.now();
    const proc = Bun.spawn(command, { cwd: ROOT, stdout: "inherit", stderr: "inherit", stdin: "ignore" });
    child = proc;
    try {
      // The run, not the API, is what the kernel ends first when memory runs out.
      writeFileSync(`/proc/${proc.pid}/oom_score_adj`, "1000");
    } catch {
      // Not Linux, or not allowed: the run still runs.
    }
    void proc.exited.then((code) => {
      child = null;
      const crashed = proc.signalCode !== null || !RECORDED_EXITS.has(code);
      crashes = crashed ? crashes + 1 : 0;
      crashWaitUntil = crashed ? Date.now() + retryDelayMs(crashes, timings) : 0;
      const details = { code, signal: proc.signalCode, seconds: Math.round((Date.now() - started) / 1000) };
      if (crashed) log.error("refresh process died; its run is resumed later", details);
      else if (code === REFRESH_LOCK_HELD_EXIT_CODE)
        log.info("refresh not started: another run holds the lock", details);
      else log.info("refresh finished", details);
      log.flush();
      schedule(0);
    });
  }

  function tick() {
    timer = null;
    if (stopped || child !== null) return schedule(checkMs);
    if (existsSync(LITEFS_REPLICA_MARKER)) return schedule(checkMs);
    const now = Date.now();
    const { nextRunAt } = freshness.state(now);
    if (nextRunAt === null) return schedule(checkMs);
    const due = Math.max(nextRunAt, crashWaitUntil);
    if (now < due) return schedule(due - now);
    try {
      start();
    } catch (error) {
      log.error("refresh could not start", { error: String(error) });
      crashes++;
      crashWaitUntil = Date.now() + retryDelayMs(crashes, timings);
    }
    schedule(checkMs);
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(tick, Math.max(0, Math.min(delayMs, checkMs)));
  }

  const first = freshness.state(Date.now()).nextRunAt;
  log.info("refresh schedule on", {
    nextRunAt: first === null ? "running elsewhere" : new Date(first).toISOString(),
    everySeconds: timings.everyMs / 1000,
  });
  schedule(0);

  return {
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      const running = child;
      if (running === null) return;
      running.kill("SIGTERM");
      const killer = setTimeout(() => running.kill("SIGKILL"), STOP_GRACE_MS);
      await running.exited;
      clearTimeout(killer);
    },
  };
}
