/**
 * `bun run refresh`: ingest every vendor list (or one vendor's with --vendor), then probe the
 * endpoints that are due. The probe runs even when a list failed; the exit status is then 1.
 * Options: those of `bun run probe` and --force (passed to ingest); `--help` lists them.
 * One run at a time per database (the lock of src/db/refresh-runs.ts, shared with the server's
 * schedule); a run that was interrupted or killed is resumed by the next one: lists read already
 * are not read again, URLs asked already are not asked again.
 */
import { exitWhenDone, parseCli } from "../../cli/args";
import { type Config, loadConfig } from "../../config";
import { openDatabase } from "../../db/client";
import { countEntries } from "../../db/describe";
import { refreshRunStatements, THIS_PROCESS } from "../../db/refresh-runs";
import { buildIndexFile } from "../../directory/build-cli";
import { defaultIndexDir } from "../../directory/directory";
import { REFRESH_LOCK_HELD_EXIT_CODE, type RunOutcome, type RunPhase } from "../../model/freshness";
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
    [REFRESH_LOCK_HELD_EXIT_CODE, "not started: another run holds the lock (a server's schedule or another refresh)"],
    [130, "interrupted (the next run resumes it)"],
  ],
} as const;

async function main(): Promise<number> {
  const { values, check } = parseCli(REFRESH_CLI);
  const options = check(() => probeCliOptions(values));
  const config = loadConfig();
  const databasePath = config.databasePath;
  const log = (line: string) => console.log(line);

  // One run at a time on this database (src/db/refresh-runs.ts): the lock is the unfinished run.
  const lockDb = openDatabase(databasePath);
  const runs = refreshRunStatements(lockDb.sqlite);
  const lock = runs.acquire(THIS_PROCESS, new Date(), config.refresh.lockMs);
  if (!lock.taken) {
    const { holder } = lock;
    console.error(
      `refresh: another run holds the lock (${holder.owner}, started ${holder.startedAt}, last heard of ${holder.heartbeatAt}): not starting`,
    );
    lockDb.sqlite.close();
    return REFRESH_LOCK_HELD_EXIT_CODE;
  }
  const { run, resumed } = lock;
  const progress: { phase: RunPhase; urlsDone: number; urlsTotal: number | null } = {
    phase: resumed && run.phase !== "lists" ? "probe" : "lists",
    urlsDone: 0,
    urlsTotal: null,
  };
  const lost = new AbortController();
  const beat = () => {
    if (lost.signal.aborted) return;
    if (!runs.heartbeat(run.id, THIS_PROCESS, new Date(), progress)) {
      console.error("refresh: another process took this run's lock over: stopping");
      lost.abort();
    }
  };
  beat();
  // Renews the lock well within its expiry, and records the progress every few seconds.
  const heartbeat = setInterval(beat, Math.max(500, Math.min(5_000, Math.floor(config.refresh.lockMs / 4))));
  const end = (outcome: RunOutcome | "released", detail: string | null = null) => {
    clearInterval(heartbeat);
    beat();
    if (outcome === "released") runs.release(run.id, THIS_PROCESS, new Date());
    else runs.finish(run.id, THIS_PROCESS, new Date(), outcome, detail);
    lockDb.sqlite.close();
  };
  if (resumed) console.log(`refresh: resuming the run started ${run.startedAt} (${progress.phase})`);

  try {
    let lists: ListSummary[] = [];
    let ingestError: string | null = null;
    if (progress.phase === "lists") {
      console.log("== ingest");
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
      progress.phase = "probe";
      beat();
    } else console.log("== ingest: done before the run was resumed");
    const failedLists = lists.filter((l) => !l.ok);

    console.log("\n== probe");
    // A resumed run does not ask again what it asked before it stopped.
    const staleAfterMs = resumed
      ? Math.max(options.staleAfterMs, Date.now() - Date.parse(run.startedAt))
      : options.staleAfterMs;
    let outage: string | null = null;
    const probed = await probeStep({ ...options, staleAfterMs }, config, "refresh: ", {
      onProgress: (done, total) => {
        progress.urlsDone = done;
        progress.urlsTotal = total;
      },
      onOutage: (message) => {
        outage = message;
      },
      stop: lost.signal,
    });
    if (lost.signal.aborted) {
      clearInterval(heartbeat);
      lockDb.sqlite.close();
      return 1;
    }
    if (probed === OUTAGE_EXIT_CODE) {
      end("outage", outage);
      return probed;
    }
    if (probed !== 0) {
      end("released");
      return probed;
    }
    progress.phase = "index";
    beat();
    await prebuildIndex(databasePath, config);
    const listsFailed = ingestError
      ? `ingest failed: ${ingestError}`
      : failedLists.length > 0
        ? `${failedLists.length} list(s) failed: ${failedLists.map((l) => `${l.vendorId}/${l.listId}`).join(", ")}`
        : null;
    end(listsFailed ? "lists-failed" : "ok", listsFailed);
    if (listsFailed) {
      console.error(`refresh: ${listsFailed}`);
      return 1;
    }
    return 0;
  } catch (error) {
    if (!lost.signal.aborted) end("failed", (error as Error).message);
    throw error;
  }
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
