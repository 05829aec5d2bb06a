/**
 * bun run ingest                                    every list of every vendor, over the network
 * bun run ingest --vendor <id>                      every list of one vendor
 * bun run ingest --vendor <id> --file <path> [--list <listId>] [--access patient|provider]
 * Options: --force (accept an empty list or one that lost more than half of its entries),
 *          --timeout <ms> (per request, default 30000), --registry <file> (another vendor registry).
 * DATABASE_PATH (default db/directory.sqlite) is created and migrated, empty, when missing.
 * INGEST_MAX_BYTES (default 100000000) caps a list's size; ALLOW_PRIVATE_NETWORK=true (tests only)
 * lets list fetches reach private addresses.
 * Exit status: 0 when every list was ingested, 1 when any failed, 2 on a usage error.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../config";
import { openDatabase } from "../db/client";
import type { Audience } from "../directory/types";
import { ingestAll, ingestFile, ingestVendor, type ListSummary } from "./index";
import { formatSummaryTable, progressLine } from "./summary-table";

function usage(message: string): never {
  console.error(`ingest: ${message}`);
  console.error(
    "usage: bun run ingest [--vendor <id> [--file <path> [--list <listId>] [--access patient|provider]]] [--force] [--timeout <ms>] [--registry <file>]",
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
  if ((options.list || options.access) && !options.file) usage("--list and --access go with --file");
  if (options.access && options.access !== "patient" && options.access !== "provider")
    usage("--access must be patient or provider");
  if (options.timeout && !/^\d+$/.test(options.timeout)) usage("--timeout must be a number of milliseconds");
  if (options.registry) process.env.INGEST_REGISTRY = options.registry;

  const config = loadConfig();
  const db = openDatabase(process.env.DATABASE_PATH || "db/directory.sqlite");
  const log = (line: string) => console.log(line);
  const network = {
    force: options.force,
    timeoutMs: options.timeout ? Number(options.timeout) : undefined,
    log,
    allowPrivateNetwork: config.allowPrivateNetwork,
    maxBytes: config.ingestMaxBytes,
  };
  let summaries: ListSummary[];
  try {
    if (options.file) {
      const started = performance.now();
      const summary = await ingestFile(db, {
        vendorId: options.vendor!,
        file: options.file,
        listId: options.list,
        access: options.access as Audience | undefined,
        force: options.force,
        maxBytes: config.ingestMaxBytes,
      });
      log(progressLine(1, 1, summary, performance.now() - started));
      summaries = [summary];
    } else if (options.vendor) {
      summaries = await ingestVendor(db, { vendorId: options.vendor, ...network });
    } else {
      summaries = await ingestAll(db, network);
    }
  } catch (error) {
    console.error(`ingest: ${(error as Error).message}`);
    return 1;
  } finally {
    db.sqlite.close();
  }
  console.log("");
  console.log(formatSummaryTable(summaries));
  return summaries.every((s) => s.ok) ? 0 : 1;
}

process.exit(await main());
