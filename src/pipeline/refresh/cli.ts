/**
 * `bun run refresh`: ingest every vendor list (or one vendor's with --vendor), then probe the
 * endpoints that are due. The probe runs even when a list failed; the exit status is then 1.
 * Options: those of `bun run probe` and --force (passed to ingest); `--help` lists them.
 */
import { exitWhenDone, parseCli } from "../../cli/args";
import { type Config, loadConfig } from "../../config";
import { openDatabase } from "../../db/client";
import { countEntries } from "../../db/describe";
import { buildIndexFile } from "../../directory/build-cli";
import { defaultIndexDir } from "../../directory/directory";
import { ingestAll, ingestVendor, syncVendorRegistry } from "../ingest/index";
import { loadRegistry } from "../ingest/registry";
import { formatSummaryTable } from "../ingest/summary-table";
import type { ListSummary } from "../ingest/types";
import { probeStep } from "../probe/cli";
import { OUTAGE_EXIT_CODE, PROBE_CLI, probeCliOptions } from "../probe/cli-options";

const REFRESH_CLI = {
  ...PROBE_CLI,
  command: "bun run refresh",
  synopsis: ["[options]  (ingest, then probe)"],
  description: `Ingests every vendor list (or one vendor's with --vendor), then probes the endpoints that are due
(never probed, or probed longer ago than --stale-after).`,
  options: { ...PROBE_CLI.options, force: { type: "boolean" } },
  optionHelp: [
    ...PROBE_CLI.optionHelp,
    ["--force", "ingest: accept an empty list or one that lost more than half its entries"],
  ],
  environment: `DATABASE_PATH (default db/directory.sqlite), INGEST_REGISTRY (the vendor registry, default
db/vendors.json), INDEX_DIR and INDEX_IN_PROCESS_BELOW (the index file written at the end), and the probe's.`,
  exitStatus: [
    [1, "a list failed"],
    [OUTAGE_EXIT_CODE, "the probe stopped: the prober lost the network (no index is built)"],
    [130, "interrupted"],
  ],
} as const;

async function main(): Promise<number> {
  const { values, check } = parseCli(REFRESH_CLI);
  const options = check(() => probeCliOptions(values));
  const config = loadConfig();
  const databasePath = config.databasePath;
  const log = (line: string) => console.log(line);

  console.log("== ingest");
  let lists: ListSummary[] = [];
  let ingestError: string | null = null;
  const db = openDatabase(databasePath);
  try {
    syncVendorRegistry(db, loadRegistry(config.registryPath));
    const network = {
      force: values.force === true,
      registryPath: config.registryPath,
      log,
      allowPrivateNetwork: config.allowPrivateNetwork,
      maxBytes: config.ingestMaxBytes,
    };
    lists = options.vendorId
      ? await ingestVendor(db, { vendorId: options.vendorId, ...network })
      : await ingestAll(db, network);
  } catch (error) {
    ingestError = (error as Error).message;
    console.error(`ingest failed: ${ingestError}`);
  } finally {
    db.sqlite.close();
  }
  if (lists.length > 0) console.log(`\n${formatSummaryTable(lists)}`);
  const failedLists = lists.filter((l) => !l.ok);

  console.log("\n== probe");
  const probed = await probeStep(options, config, "refresh: ");
  if (probed !== 0) return probed;
  await prebuildIndex(databasePath, config);
  if (ingestError || failedLists.length > 0) {
    console.error(
      `refresh: ${ingestError ? "ingest failed" : `${failedLists.length} list(s) failed: ${failedLists.map((l) => `${l.vendorId}/${l.listId}`).join(", ")}`}`,
    );
    return 1;
  }
  return 0;
}

/** A large dataset's index file, which the server would otherwise build itself before it can switch. */
async function prebuildIndex(databasePath: string, config: Config) {
  const db = openDatabase(databasePath);
  const entries = countEntries(db.sqlite);
  db.sqlite.close();
  if (entries < config.indexInProcessBelow) return;
  console.log(
    `\n== index\n${await buildIndexFile(databasePath, { dir: config.indexDir ?? defaultIndexDir(databasePath) })}`,
  );
}

if (import.meta.main) exitWhenDone("refresh", main);
