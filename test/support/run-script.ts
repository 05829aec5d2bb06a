import { Database } from "bun:sqlite";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Starts one of the project's scripts (`src/…/cli.ts`, a path from the repository root) with Bun
 * as a real subprocess, with `env` added to this process's environment; its output is piped.
 */
export function spawnScript(script: string, args: string[], env: Record<string, string>) {
  return Bun.spawn([process.execPath, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** What a spawned script wrote and its exit code, once it has exited. */
export async function finished(proc: ReturnType<typeof spawnScript>): Promise<ScriptRun> {
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/**
 * Runs a script as spawnScript starts it, asynchronously (test servers in this process keep
 * answering); resolves when it exits.
 */
export async function runScript(script: string, args: string[], env: Record<string, string>): Promise<ScriptRun> {
  return finished(spawnScript(script, args, env));
}

/**
 * Kills `proc` with SIGKILL as soon as `table` of the database at `dbPath` holds `rows` rows,
 * read through a read-only connection of its own while the script writes; gives up after 30 s or
 * when the script exits first (the caller checks `proc.signalCode`).
 */
export async function killOnceStored(
  proc: ReturnType<typeof spawnScript>,
  dbPath: string,
  table: string,
  rows: number,
): Promise<void> {
  const reader = new Database(dbPath, { readonly: true });
  const deadline = performance.now() + 30_000;
  try {
    while (performance.now() < deadline && proc.exitCode === null) {
      let stored = 0;
      try {
        stored = (reader.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
      } catch {
        // busy: try again
      }
      if (stored >= rows) {
        proc.kill("SIGKILL");
        return;
      }
      await Bun.sleep(5);
    }
  } finally {
    reader.close();
  }
}
