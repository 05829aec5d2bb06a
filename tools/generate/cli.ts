/**
 * `bun run data:generate-1m --endpoints <n> --out <path>`: a deterministic synthetic dataset for load
 * tests, written through the same schema and migrations as real data.
 */
import { resolve } from "node:path";
import { parseCli } from "../../src/cli/args";
import { MAX_CHANGE_DAYS } from "./changes";
import { MAX_HISTORY_DAYS } from "./history";

const { values, fail } = parseCli({
  command: "bun run data:generate-1m",
  synopsis: [
    `--endpoints <n> --out <path.sqlite> [--seed <n>] [--history-days <0-${MAX_HISTORY_DAYS}>] [--change-days <0-${MAX_CHANGE_DAYS}>] [--force]`,
  ],
  description: "Writes a deterministic synthetic dataset of n entries (the same seed gives the same file).",
  options: {
    endpoints: { type: "string" },
    out: { type: "string" },
    seed: { type: "string" },
    force: { type: "boolean" },
    "history-days": { type: "string" },
    "change-days": { type: "string" },
  },
  optionHelp: [
    ["--endpoints <n>", "how many entries (underscores allowed: 1_000_000)"],
    ["--out <path.sqlite>", "the file to write"],
    ["--seed <n>", "the random seed (default 1)"],
    ["--history-days <n>", `days of availability history per probed URL (default 0, at most ${MAX_HISTORY_DAYS})`],
    [
      "--change-days <n>",
      `days of change-feed history before the generated version (default 0, at most ${MAX_CHANGE_DAYS})`,
    ],
    ["--force", "replace an existing file"],
  ],
  exitStatus: [[1, "failed"]],
});

// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { generateDataset } = await import("./generator");
const endpoints = Number((values.endpoints ?? "").replaceAll("_", ""));
if (values.endpoints === undefined || !Number.isInteger(endpoints) || endpoints < 1)
  fail("--endpoints must be a positive integer");
if (!values.out) fail("--out is required");
const seed = values.seed === undefined ? 1 : Number(values.seed);
if (!Number.isInteger(seed) || seed < 0) fail("--seed must be a non-negative integer");
const historyDays = values["history-days"] === undefined ? 0 : Number(values["history-days"]);
if (!Number.isInteger(historyDays) || historyDays < 0 || historyDays > MAX_HISTORY_DAYS)
  fail(`--history-days must be a whole number from 0 to ${MAX_HISTORY_DAYS}`);
const changeDays = values["change-days"] === undefined ? 0 : Number(values["change-days"]);
if (!Number.isInteger(changeDays) || changeDays < 0 || changeDays > MAX_CHANGE_DAYS)
  fail(`--change-days must be a whole number from 0 to ${MAX_CHANGE_DAYS}`);
const args = {
  endpoints,
  out: resolve(values.out ?? ""),
  seed,
  force: values.force === true,
  historyDays,
  changeDays,
};

try {
  console.log(`generating ${args.endpoints.toLocaleString("en-US")} entries (seed ${args.seed}) into ${args.out}`);
  const result = generateDataset({ ...args, log: (line) => console.log(line) });
  console.log(
    `done in ${result.seconds.toFixed(1)} s: ${result.entries.toLocaleString("en-US")} entries, ${result.urls.toLocaleString("en-US")} distinct URLs, ` +
      `${result.probes.toLocaleString("en-US")} probes, ${result.bodies.toLocaleString("en-US")} distinct bodies, ${result.entrySources.toLocaleString("en-US")} entry sources, ${(result.bytes / 1e6).toFixed(0)} MB`,
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
