/**
 * `bun run refresh`: ingest every vendor list (or one vendor's with --vendor), then probe the
 * endpoints that are due. The probe runs even when a list failed; the exit status is then 1.
 *
 * Options: those of `bun run probe` (--stale-after, --vendor, --limit, --concurrency, --timeout)
 * and --force (passed to ingest: accept an empty list or one that lost more than half its entries).
 * Exit status: 0 all well, 1 a list failed, 2 usage error, 130 interrupted.
 */

import { loadConfig } from "../config";
import { openDatabase } from "../db/client";
import { buildIndexFile } from "../directory/build-cli";
import { defaultIndexDir } from "../directory/directory";
import { ingestAll, ingestVendor, type ListSummary, syncVendorRegistry } from "../ingest/index";
import { formatSummaryTable } from "../ingest/summary-table";
import { formatSummary, interruptSignal, runProbe } from "../probe/cli";
import { PROBE_USAGE, parseProbeArgs } from "../probe/cli-options";

const USAGE = PROBE_USAGE.replace(
  "Usage: bun run probe [options]",
  "Usage: bun run refresh [options]  (ingest, then probe)",
).replace(
  "  -h, --help",
  "  --force                   ingest: accept an empty list or one that lost more than half its entries\n  -h, --help",
);

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseProbeArgs>;
  try {
    parsed = parseProbeArgs(process.argv.slice(2), { force: { type: "boolean" } });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { options, values } = parsed;
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const databasePath = process.env.DATABASE_PATH || "db/directory.sqlite";
  const config = loadConfig();
  const log = (line: string) => console.log(line);

  console.log("== ingest");
  let lists: ListSummary[] = [];
  let ingestError: string | null = null;
  const db = openDatabase(databasePath);
  try {
    syncVendorRegistry(db);
    const network = {
      force: values.force === true,
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
  const signal = interruptSignal();
  const summary = await runProbe(options, databasePath, signal, config.allowPrivateNetwork);
  console.log(formatSummary(summary));

  if (signal.aborted) return 130;
  await prebuildIndex(databasePath);
  if (ingestError || failedLists.length > 0) {
    console.error(
      `refresh: ${ingestError ? "ingest failed" : `${failedLists.length} list(s) failed: ${failedLists.map((l) => `${l.vendorId}/${l.listId}`).join(", ")}`}`,
    );
    return 1;
  }
  return 0;
}

/** A large dataset's index file, which the server would otherwise build itself before it can switch. */
async function prebuildIndex(databasePath: string) {
  const config = loadConfig();
  const db = openDatabase(databasePath);
  const entries = (db.sqlite.prepare("SELECT COUNT(*) FROM entries").values()[0] as [number])[0];
  db.sqlite.close();
  if (entries < config.indexInProcessBelow) return;
  console.log(
    `\n== index\n${await buildIndexFile(databasePath, { dir: config.indexDir ?? defaultIndexDir(databasePath) })}`,
  );
}

if (import.meta.main) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`refresh failed: ${(error as Error).stack ?? error}\n`);
      process.exit(1);
    },
  );
}
