/**
 * bun run ingest                                    every list of every vendor, over the network
 * bun run ingest --vendor <id>                      every list of one vendor
 * bun run ingest --vendor <id> --file <path> [--list <listId>] [--access patient|provider]
 * bun run ingest --bundled                          every list's bundled copy (db/national/), offline
 * Options: --force (accept an empty list or one that lost more than half of its entries),
 *          --timeout <ms> (per request, default 30000), --registry <file> (another vendor registry).
 * DATABASE_PATH (default db/directory.sqlite) is created and migrated, empty, when missing.
 * Exit status: 0 when every list was ingested, 1 when any failed, 2 on a usage error.
 */
import { parseArgs } from "node:util";
import { openDatabase } from "../db/client";
import type { Audience } from "../directory/types";
import { ingestAll, ingestFile, ingestVendor, type ListSummary } from "./index";
import { coverageLine, formatSummaryTable, progressLine } from "./summary-table";

function usage(message: string): never {
  console.error(`ingest: ${message}`);
  console.error(
    "usage: bun run ingest [--bundled | --vendor <id> [--file <path> [--list <listId>] [--access patient|provider]]] [--force] [--timeout <ms>] [--registry <file>]",
  );
  process.exit(2);
}

function readOptions() {
  try {
    return parseArgs({
      args: Bun.argv.slice(2),
      options: {
        vendor: { type: "string" },
        file: { type: "string" },
        list: { type: "string" },
        access: { type: "string" },
        force: { type: "boolean", default: false },
        timeout: { type: "string" },
        registry: { type: "string" },
        bundled: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return usage((error as Error).message);
  }
}

async function main(): Promise<number> {
  const options = readOptions();
  if (options.file && !options.vendor) usage("--file needs --vendor");
  if (options.bundled && (options.vendor || options.file)) usage("--bundled reads every list: no --vendor or --file");
  if ((options.list || options.access) && !options.file) usage("--list and --access go with --file");
  if (options.access && options.access !== "patient" && options.access !== "provider")
    usage("--access must be patient or provider");
  if (options.timeout && !/^\d+$/.test(options.timeout)) usage("--timeout must be a number of milliseconds");
  if (options.registry) process.env.INGEST_REGISTRY = options.registry;

  const db = openDatabase(process.env.DATABASE_PATH || "db/directory.sqlite");
  const log = (line: string) => console.log(line);
  const network = { force: options.force, timeoutMs: options.timeout ? Number(options.timeout) : undefined, log };
  let summaries: ListSummary[];
  let coverage: string;
  try {
    if (options.bundled) {
      const { readBundle } = await import("../national/bundle");
      const { ingestBundledLists } = await import("../national/build");
      const started = performance.now();
      let previous = started;
      summaries = await ingestBundledLists(db, readBundle(), (summary, _file, index, total) => {
        log(progressLine(index, total, summary, performance.now() - previous));
        previous = performance.now();
      });
      log(`all bundled lists in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } else if (options.file) {
      const started = performance.now();
      const summary = await ingestFile(db, {
        vendorId: options.vendor!,
        file: options.file,
        listId: options.list,
        access: options.access as Audience | undefined,
        force: options.force,
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
