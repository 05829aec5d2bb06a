import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs one of the project's scripts (`src/…/cli.ts`, a path from the repository root) with Bun
 * as a real subprocess, asynchronously (test servers in this process keep answering), with
 * `env` added to this process's environment; resolves when it exits.
 */
export async function runScript(script: string, args: string[], env: Record<string, string>): Promise<ScriptRun> {
  const proc = Bun.spawn([process.execPath, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}
