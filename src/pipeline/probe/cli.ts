/**
 * `bun run probe`: probes the endpoints that are due and stores the results as they arrive.
 * Ctrl-C stops cleanly (results so far are kept; a second Ctrl-C quits at once).
 */
import { exitWhenDone, parseCli } from "../../cli/args";
import { type Config, loadConfig } from "../../config";
import { openDatabase } from "../../db/client";
import { OUTAGE_EXIT_CODE, PROBE_CLI, type ProbeCliOptions, probeCliOptions } from "./cli-options";
import { ProberOutageError } from "./outage";
import { ProgressReporter } from "./progress";
import { probeDue } from "./run";
import { formatSummary, type ProbeRunSummary } from "./summary";

/**
 * Runs the probe with parsed options. From the configuration:
 * the database, `allowPrivateNetwork` (lets requests reach private addresses) and the outage rule.
 * Throws ProberOutageError when the prober lost the network.
 */
async function runProbe(
  options: ProbeCliOptions,
  config: Pick<Config, "databasePath" | "allowPrivateNetwork" | "probeOutage">,
  signal: AbortSignal | undefined,
  onProgress?: (done: number, total: number) => void,
): Promise<ProbeRunSummary> {
  const db = openDatabase(config.databasePath);
  try {
    const progress = new ProgressReporter(process.stderr);
    const summary = await probeDue(db, {
      staleAfterMs: options.staleAfterMs,
      vendorId: options.vendorId,
      limit: options.limit,
      concurrency: options.concurrency,
      timeoutMs: options.timeoutMs,
      allowPrivate: config.allowPrivateNetwork,
      outage: config.probeOutage,
      signal,
      onProgress: (done, total) => {
        progress.update(done, total);
        onProgress?.(done, total);
      },
    });
    progress.finish();
    return summary;
  } finally {
    db.sqlite.close();
  }
}

/** Aborts on the first SIGINT/SIGTERM (or when `stop` aborts), exits on the second signal. */
function interruptSignal(stop?: AbortSignal): AbortSignal {
  const controller = new AbortController();
  stop?.addEventListener("abort", () => controller.abort());
  const onSignal = (name: string) => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write(`\n${name}: stopping; results so far are kept (again to quit at once)\n`);
    controller.abort();
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  return controller.signal;
}

/** What `bun run refresh` follows of its probe step. */
export interface ProbeStepHooks {
  /** URLs done of the run's total, as the results arrive. */
  onProgress?: (done: number, total: number) => void;
  /** The outage rule stopped the run: why, in words. */
  onOutage?: (message: string) => void;
  /** Stops the run as an interruption does (the refresh lost its lock). */
  stop?: AbortSignal;
}

/**
 * The probe step of `bun run probe` and `bun run refresh`: runs it interruptibly and prints its
 * summary (text, or JSON with --json). The exit status it calls for: OUTAGE_EXIT_CODE when the
 * prober lost the network (`label` starts the message), 130 when interrupted, else 0.
 */
export async function probeStep(
  options: ProbeCliOptions,
  config: Parameters<typeof runProbe>[1],
  label: string,
  hooks: ProbeStepHooks = {},
): Promise<number> {
  const signal = interruptSignal(hooks.stop);
  let summary: ProbeRunSummary;
  try {
    summary = await runProbe(options, config, signal, hooks.onProgress);
  } catch (error) {
    if (!(error instanceof ProberOutageError)) throw error;
    process.stderr.write(`${label}probe stopped: ${error.message}\n`);
    hooks.onOutage?.(error.message);
    return OUTAGE_EXIT_CODE;
  }
  // A pipe takes a large summary asynchronously: wait for it before process.exit.
  await new Promise<void>((resolve) =>
    process.stdout.write(`${options.json ? JSON.stringify(summary) : formatSummary(summary)}\n`, () => resolve()),
  );
  return signal.aborted ? 130 : 0;
}

async function main(): Promise<number> {
  const { values, check } = parseCli(PROBE_CLI);
  return probeStep(
    check(() => probeCliOptions(values)),
    loadConfig(),
    "",
  );
}

if (import.meta.main) exitWhenDone("probe", main);
