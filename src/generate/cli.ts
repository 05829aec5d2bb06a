import { resolve } from "node:path";
import { generateDataset } from "./generator";
import { MAX_HISTORY_DAYS } from "./history";

const USAGE = `usage: bun run db:generate --endpoints <n> --out <path.sqlite> [--seed <n>] [--history-days <0-${MAX_HISTORY_DAYS}>] [--force]`;

function parseArgs(argv: string[]): {
  endpoints: number;
  out: string;
  seed: number;
  force: boolean;
  historyDays: number;
} {
  let endpoints = Number.NaN;
  let out = "";
  let seed = 1;
  let force = false;
  let historyDays = 0;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    const value = () => inline ?? argv[++i] ?? "";
    switch (flag) {
      case "--endpoints":
        endpoints = Number(value().replaceAll("_", ""));
        break;
      case "--out":
        out = value();
        break;
      case "--seed":
        seed = Number(value());
        break;
      case "--force":
        force = true;
        break;
      case "--history-days":
        historyDays = Number(value());
        break;
      case "--help":
      case "-h":
        console.log(USAGE);
        return process.exit(0);
      default:
        throw new Error(`unknown argument ${arg}\n${USAGE}`);
    }
  }
  if (!Number.isInteger(endpoints) || endpoints < 1)
    throw new Error(`--endpoints must be a positive integer\n${USAGE}`);
  if (out === "") throw new Error(`--out is required\n${USAGE}`);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed must be a non-negative integer\n${USAGE}`);
  if (!Number.isInteger(historyDays) || historyDays < 0 || historyDays > MAX_HISTORY_DAYS)
    throw new Error(`--history-days must be a whole number from 0 to ${MAX_HISTORY_DAYS}\n${USAGE}`);
  return { endpoints, out: resolve(out), seed, force, historyDays };
}

try {
  const args = parseArgs(process.argv.slice(2));
  console.log(`generating ${args.endpoints.toLocaleString("en-US")} entries (seed ${args.seed}) into ${args.out}`);
  const result = generateDataset({ ...args, log: (line) => console.log(line) });
  console.log(
    `done in ${result.seconds.toFixed(1)} s: ${result.entries.toLocaleString("en-US")} entries, ${result.urls.toLocaleString("en-US")} distinct URLs, ` +
      `${result.probes.toLocaleString("en-US")} probes, ${result.entrySources.toLocaleString("en-US")} entry sources, ${(result.bytes / 1e6).toFixed(0)} MB`,
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
