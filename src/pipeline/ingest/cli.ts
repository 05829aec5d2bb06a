/**
 * `bun run ingest`: fetches vendor lists (or reads one saved list) and stores them. The usage text
 * below (`--help`) lists the options.
 */
import { parseCli } from "../../cli/args";
import type { Audience } from "../../model/types";
import type { ListSummary } from "./types";

const INGEST_CLI = {
  command: "bun run ingest",
  synopsis: [
    "[--force] [--timeout <ms>] [--registry <file>]",
    "--vendor <id> [--force] [--timeout <ms>] [--registry <file>]",
    "--vendor <id> --file <path> [--list <listId>] [--access patient|provider] [--force] [--registry <file>]",
    "--bundled [--force]",
  ],
  description: `Fetches the endpoint lists of every vendor of the registry (or of one vendor) and stores them;
with --file, ingests one saved list of one vendor instead, offline; with --bundled, every list's bundled
copy (db/national/), offline.`,
  options: {
    vendor: { type: "string" },
    file: { type: "string" },
    list: { type: "string" },
    access: { type: "string" },
    force: { type: "boolean" },
    timeout: { type: "string" },
    registry: { type: "string" },
    bundled: { type: "boolean" },
  },
  optionHelp: [
    ["--vendor <id>", "only this vendor's lists"],
    ["--file <path>", "ingest this saved list (format detected from the content); needs --vendor"],
    [
      "--list <listId>",
      "with --file: the list it is stored as (a registry list, or a new one; default named after the file)",
    ],
    ["--access patient|provider", "with --file: the audience of the list"],
    ["--force", "accept an empty list or one that lost more than half of its entries"],
    ["--timeout <ms>", "per request (default 30000)"],
    ["--registry <file>", "another vendor registry (default INGEST_REGISTRY, else db/vendors.json)"],
    ["--bundled", "ingest every list's bundled copy (db/national/, the health plans' db/national/payers/), offline"],
  ],
  environment: `DATABASE_PATH (default db/directory.sqlite; created and migrated, empty, when missing),
INGEST_REGISTRY (the vendor registry, default db/vendors.json), INGEST_MAX_BYTES (the most bytes read of one
list, default 100000000), ALLOW_PRIVATE_NETWORK=true (tests only: lets list fetches reach private addresses).`,
  exitStatus: [[1, "a list failed"]],
} as const;

async function main(): Promise<number> {
  const { values: options, fail } = parseCli(INGEST_CLI);
  if (options.file && !options.vendor) fail("--file needs --vendor");
  if (options.bundled && (options.vendor || options.file)) fail("--bundled reads every list: no --vendor or --file");
  if ((options.list || options.access) && !options.file) fail("--list and --access go with --file");
  if (options.access && options.access !== "patient" && options.access !== "provider")
    fail("--access must be patient or provider");
  if (options.timeout && !/^\d+$/.test(options.timeout)) fail("--timeout must be a number of milliseconds");
  // Loaded once the arguments are read: `--help` and a bad argument answer without them.
  const { loadConfig } = await import("../../config");
  const { openDatabase } = await import("../../db/client");
  const { ingestAll, ingestFile, ingestVendor } = await import("./index");
  const { coverageLine, formatSummaryTable, progressLine } = await import("./summary-table");
  const config = loadConfig();
  const registryPath = options.registry ?? config.registryPath;

  const db = openDatabase(config.databasePath);
  const log = (line: string) => console.log(line);
  const force = options.force === true;
  const network = {
    force,
    registryPath,
    timeoutMs: options.timeout ? Number(options.timeout) : undefined,
    log,
    allowPrivateNetwork: config.allowPrivateNetwork,
    maxBytes: config.ingestMaxBytes,
  };
  let summaries: ListSummary[];
  let coverage: string;
  try {
    if (options.bundled) {
      const { ingestBundledLists, PAYERS_DIR, readBundle } = await import("./national-lists");
      const started = performance.now();
      let previous = started;
      const progress = (summary: ListSummary, _file: string, index: number, total: number) => {
        log(progressLine(index, total, summary, performance.now() - previous));
        previous = performance.now();
      };
      // The developers' lists, then the health plans' (a bundle of their own).
      summaries = [
        ...(await ingestBundledLists(db, readBundle(), progress)),
        ...(await ingestBundledLists(db, readBundle(PAYERS_DIR), progress, "payer")),
      ];
      log(`all bundled lists in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } else if (options.file) {
      const started = performance.now();
      const summary = await ingestFile(db, {
        vendorId: options.vendor!,
        file: options.file,
        listId: options.list,
        access: options.access as Audience | undefined,
        force,
        registryPath,
        maxBytes: config.ingestMaxBytes,
        allowPrivateNetwork: config.allowPrivateNetwork,
      });
      log(progressLine(1, 1, summary, performance.now() - started));
      summaries = [summary];
    } else if (options.vendor) {
      summaries = await ingestVendor(db, { vendorId: options.vendor, ...network });
    } else {
      summaries = await ingestAll(db, network);
    }
    coverage = coverageLine(db.sqlite);
  } catch (error) {
    console.error(`ingest: ${(error as Error).message}`);
    return 1;
  } finally {
    db.sqlite.close();
  }
  console.log("");
  console.log(formatSummaryTable(summaries));
  console.log("");
  console.log(coverage);
  return summaries.every((s) => s.ok) ? 0 : 1;
}

process.exit(await main());
