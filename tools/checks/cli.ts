/**
 * The project's checks as package.json runs them: `bun tools/checks/cli.ts <step>` for the scripts
 * lint, typecheck, format, test and test:quick (docs/testing.md).
 *
 * `test` runs lint and the type checks beside every test file (`bun test`, files shared out to three
 * worker processes, the slowest first by test/timings.json), prints each check's outcome in one
 * line and, when tests were skipped for a program the machine lacks (Chromium, redis-server), one
 * line that says so. `test:quick` does the same with the fast files only: the fastest files that
 * test/timings.json records, as many as take QUICK_SHARE of the whole suite's recorded time
 * together (a share, so that it holds whatever the load the times were recorded at), and the
 * files it does not record yet.
 */
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCli } from "../../src/cli/args";
import { chromiumRuns } from "../../test/support/chromium-runs";
import { redisRuns } from "../../test/support/redis-server";

const ROOT = join(import.meta.dir, "..", "..");
const TIMINGS = "test/timings.json";
/** test:quick runs the fastest files that take this share of the suite's recorded time together. */
const QUICK_SHARE = 0.08;
/**
 * Test files run at once, on this project's two cores: one more than the cores, because many
 * files spend much of their time waiting (on servers they start, Chromium, probes' delays) and a
 * third file uses the core the waiting one leaves idle.
 */
const WORKERS = 3;

type Command = readonly string[];
const LINT: Command[] = [["biome", "check", "."], ["knip"], ["depcruise", "src", "tools", "bench"]];
const TYPES: Command[] = [
  ["tsc", "--noEmit"],
  ["tsc", "--noEmit", "-p", "src/server/web/client"],
];

const STEPS = {
  lint: "Lints: Biome (format and lint), knip (dead code), dependency-cruiser (layers).",
  typecheck: "Type-checks the server, tools and tests, then the page (src/server/web/client).",
  format: "Formats and fixes what Biome can, in place.",
  test: "Lints and type-checks while every test file runs (three at a time); prints one line per check, the failures in full, and what was skipped for a missing program.",
  "test:quick":
    "Lints and type-checks while the fast test files run (the fastest that take 8 % of the suite's time in test/timings.json, and new ones): the inner loop.",
} as const;
type Step = keyof typeof STEPS;

const [step] = process.argv.slice(2, 3) as [Step | undefined];
if (step === undefined || !(step in STEPS)) {
  process.stderr.write(`usage: bun tools/checks/cli.ts ${Object.keys(STEPS).join(" | ")} [--help]\n`);
  process.exit(2);
}
parseCli(
  {
    command: `bun run ${step}`,
    synopsis: [""],
    description: STEPS[step],
    options: {},
    optionHelp: [],
    environment:
      step === "test" || step === "test:quick"
        ? "CI=true makes the tests that need Chromium or redis-server fail instead of skipping; TEST_VERBOSE=1 prints tests' measurements; TEST_LOGS=1 the apps' request logs."
        : undefined,
    exitStatus: [[1, "a check failed"]],
  },
  process.argv.slice(3),
);

const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

/**
 * Where tsc keeps what it checked last (--incremental), outside the repository and apart for each
 * clone: a second check reads it and checks only the files changed since (a fifth of the CPU).
 */
const TSC_CACHE = join(tmpdir(), "endpoint-directory-checks", Bun.hash(ROOT).toString(16));

/** The arguments that make a tsc check incremental, its record named by the project it checks. */
function incremental(command: Command): string[] {
  if (command[0] !== "tsc") return [];
  const project = command.includes("-p") ? command[command.indexOf("-p") + 1]! : "tsconfig";
  return ["--incremental", "--tsBuildInfoFile", join(TSC_CACHE, `${project.replace(/\W+/g, "-")}.tsbuildinfo`)];
}

interface Outcome {
  label: string;
  ok: boolean;
  seconds: number;
  output: string;
}

/** Runs one command with its output captured; one Outcome. */
async function captured(command: Command): Promise<Outcome> {
  const started = performance.now();
  const child = Bun.spawn([bin(command[0]!), ...command.slice(1), ...incremental(command)], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return {
    label: command.join(" "),
    ok: code === 0,
    seconds: (performance.now() - started) / 1000,
    output: `${stdout}${stderr}`.trim(),
  };
}

/** Runs the commands one after another, stopping at the first that fails. */
async function inTurn(commands: Command[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const command of commands) {
    const outcome = await captured(command);
    outcomes.push(outcome);
    if (!outcome.ok) break;
  }
  return outcomes;
}

/** Prints one line per outcome, and a failed one's output in full. */
function report(outcomes: Outcome[]): boolean {
  for (const { label, ok, seconds, output } of outcomes) {
    process.stdout.write(`${ok ? "ok  " : "FAIL"} ${label} (${seconds.toFixed(1)} s)\n`);
    if (!ok) process.stdout.write(`${output}\n`);
  }
  return outcomes.every((o) => o.ok);
}

/** The recorded wall time of each test file (ms), from test/timings.json. */
function recordedTimes(): Map<string, number> {
  const path = join(ROOT, TIMINGS);
  if (!existsSync(path)) return new Map();
  const { files } = JSON.parse(readFileSync(path, "utf8")) as { files: Record<string, number> };
  return new Map(Object.entries(files));
}

/** The fast test files: the fastest recorded ones within QUICK_SHARE of the total, and those not recorded. */
function quickFiles(): string[] {
  const times = recordedTimes();
  const files = [...new Bun.Glob("test/**/*.test.ts").scanSync(ROOT)];
  const recorded = files.filter((file) => times.has(file)).sort((a, b) => times.get(a)! - times.get(b)!);
  const budget = QUICK_SHARE * recorded.reduce((sum, file) => sum + times.get(file)!, 0);
  const quick = files.filter((file) => !times.has(file));
  let spent = 0;
  for (const file of recorded) {
    spent += times.get(file)!;
    if (spent > budget) break;
    quick.push(file);
  }
  return quick.sort().map((file) => `./${file}`);
}

/** `bun test` over `files` (all when empty), its output streamed; true when it passed. */
async function bunTest(files: string[]): Promise<boolean> {
  // Each file in a fresh global, as when it runs alone: what one file leaves running (servers,
  // timers) is stopped before the next starts in that worker.
  const args = ["test", "--timeout", "30000", `--parallel=${WORKERS}`, `--timings=${TIMINGS}`, ...files];
  const child = Bun.spawn([process.execPath, ...args], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
  return (await child.exited) === 0;
}

/** One line naming the tests skipped because the machine lacks a program, or nothing. */
function skippedLine(): string | null {
  const missing = [
    chromiumRuns ? null : "the page tests need Chromium (/usr/bin/chromium is not installed)",
    redisRuns ? null : "the shared rate-limit tests need redis-server (not installed)",
  ].filter((reason) => reason !== null);
  return missing.length === 0 ? null : `skipped: ${missing.join("; ")}; CI=true runs them and fails instead`;
}

async function main(which: Step): Promise<number> {
  if (which === "lint") return report(await inTurn(LINT)) ? 0 : 1;
  if (which === "typecheck") return report(await inTurn(TYPES)) ? 0 : 1;
  if (which === "format") return report(await inTurn([["biome", "check", "--write", "."]])) ? 0 : 1;
  const checks = inTurn([...LINT, ...TYPES]);
  const tests = await bunTest(which === "test:quick" ? quickFiles() : []);
  const checked = report(await checks);
  const skipped = skippedLine();
  if (skipped) process.stdout.write(`${skipped}\n`);
  return tests && checked ? 0 : 1;
}

process.exit(await main(step));
