import type { Database } from "bun:sqlite";
import { hostname } from "node:os";
import type { ListSource, RunOutcome, RunPhase } from "../model/freshness";

/**
 * The refresh runs (table `refresh_runs`, db/migrations/0013_refresh_runs.sql) and the lock they
 * make: at most one row is unfinished, and the process named in its `owner` is the only one
 * refreshing this database, wherever it runs (two servers on one file, a server and a person's
 * `bun run refresh`, the machines of a LiteFS cluster). The owner renews `heartbeat_at`; a row
 * whose owner stopped renewing for `lockMs`, whose owner is a dead process of this host, or that
 * an interrupted run released (owner null) is taken over by the next run, which resumes it.
 */

export interface RunRow {
  id: number;
  startedAt: string;
  finishedAt: string | null;
  outcome: RunOutcome | null;
  detail: string | null;
  phase: RunPhase;
  urlsDone: number;
  urlsTotal: number | null;
  owner: string | null;
  heartbeatAt: string | null;
  resumes: number;
}

const COLUMNS = `id, started_at AS startedAt, finished_at AS finishedAt, outcome, detail, phase, urls_done AS urlsDone,
  urls_total AS urlsTotal, owner, heartbeat_at AS heartbeatAt, resumes`;

/** This process as a lock owner: "host pid". */
export const THIS_PROCESS = `${hostname()} ${process.pid}`;

/**
 * Whether `owner` is a process of this host that no longer exists (another host's: unknown,
 * false). A pid reused since (a restarted container numbers from 1 again) reads as alive: that
 * run is then taken over once its heartbeat expires instead of at once.
 */
export function ownerIsDeadHere(owner: string): boolean {
  const [host, pid] = owner.split(" ");
  if (host !== hostname() || !pid || !/^\d+$/.test(pid)) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Whether an unfinished run's owner is still at it: named, renewing, and not a dead process here. */
export function isRunAlive(run: Pick<RunRow, "owner" | "heartbeatAt">, lockMs: number, now: number): boolean {
  if (run.owner === null || run.heartbeatAt === null) return false;
  if (now - Date.parse(run.heartbeatAt) > lockMs) return false;
  return !ownerIsDeadHere(run.owner);
}

type LockResult = { taken: true; run: RunRow; resumed: boolean } | { taken: false; holder: RunRow };

/** The statements of the refresh runs, prepared once per connection. */
export function refreshRunStatements(sqlite: Database) {
  const s = {
    open: sqlite.prepare(`SELECT ${COLUMNS} FROM refresh_runs WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1`),
    byId: sqlite.prepare(`SELECT ${COLUMNS} FROM refresh_runs WHERE id = ?`),
    latestFinished: sqlite.prepare(
      `SELECT ${COLUMNS} FROM refresh_runs WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1`,
    ),
    recentOutcomes: sqlite.prepare(
      "SELECT outcome FROM refresh_runs WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 64",
    ),
    insert: sqlite.prepare("INSERT INTO refresh_runs (started_at, owner, heartbeat_at) VALUES (?, ?, ?) RETURNING id"),
    takeOver: sqlite.prepare(
      "UPDATE refresh_runs SET owner = ?, heartbeat_at = ?, resumes = resumes + 1, urls_done = 0, urls_total = NULL WHERE id = ? AND finished_at IS NULL",
    ),
    heartbeat: sqlite.prepare(
      "UPDATE refresh_runs SET heartbeat_at = ?, phase = ?, urls_done = ?, urls_total = ? WHERE id = ? AND owner = ? AND finished_at IS NULL",
    ),
    finish: sqlite.prepare(
      "UPDATE refresh_runs SET finished_at = ?, outcome = ?, detail = ?, owner = NULL WHERE id = ? AND owner = ? AND finished_at IS NULL",
    ),
    release: sqlite.prepare(
      "UPDATE refresh_runs SET owner = NULL, heartbeat_at = ? WHERE id = ? AND owner = ? AND finished_at IS NULL",
    ),
    lists: sqlite.prepare(
      `SELECT CASE WHEN read_from LIKE '{%' THEN 'bundled' WHEN published_url IS NOT NULL THEN 'lantern' ELSE 'developer' END AS source,
         COUNT(*) AS lists, MAX(last_scraped_at) AS newestRead, MIN(last_scraped_at) AS oldestRead
       FROM vendor_lists WHERE read_from IS NOT NULL AND last_scraped_at IS NOT NULL GROUP BY source`,
    ),
  };

  const open = () => s.open.get() as RunRow | null;

  return {
    /** The unfinished run, if any (alive or not). */
    open,
    /** The last run that ended. */
    latestFinished: () => s.latestFinished.get() as RunRow | null,
    /** How many of the latest ended runs in a row ended in `outage` or `failed`. */
    failuresInARow(): number {
      const outcomes = s.recentOutcomes.values() as [RunOutcome | null][];
      let n = 0;
      for (const [outcome] of outcomes) {
        if (outcome !== "outage" && outcome !== "failed") break;
        n++;
      }
      return n;
    },
    /** The lists read, counted by where from. */
    lists: () => s.lists.all() as { source: ListSource; lists: number; newestRead: string; oldestRead: string }[],
    /**
     * Takes the lock for `owner` at `now`, in one write transaction: resumes the unfinished run
     * when its owner is gone, starts a new run when there is none, and otherwise says who holds it.
     */
    acquire(owner: string, now: Date, lockMs: number): LockResult {
      return sqlite
        .transaction((): LockResult => {
          const at = now.toISOString();
          const current = open();
          if (current) {
            if (isRunAlive(current, lockMs, now.getTime())) return { taken: false, holder: current };
            s.takeOver.run(owner, at, current.id);
            return { taken: true, run: s.byId.get(current.id) as RunRow, resumed: true };
          }
          const { id } = s.insert.get(at, owner, at) as { id: number };
          return { taken: true, run: s.byId.get(id) as RunRow, resumed: false };
        })
        .immediate();
    },
    /** Renews the lock and records progress; false when `owner` no longer holds run `id`. */
    heartbeat(
      id: number,
      owner: string,
      now: Date,
      progress: { phase: RunPhase; urlsDone: number; urlsTotal: number | null },
    ): boolean {
      return (
        s.heartbeat.run(now.toISOString(), progress.phase, progress.urlsDone, progress.urlsTotal, id, owner).changes ===
        1
      );
    },
    /** Ends run `id` with `outcome` and releases the lock. */
    finish(id: number, owner: string, now: Date, outcome: RunOutcome, detail: string | null): boolean {
      return s.finish.run(now.toISOString(), outcome, detail, id, owner).changes === 1;
    },
    /** Leaves run `id` unfinished and unowned, for the next run to resume (an interrupted run). */
    release(id: number, owner: string, now: Date): boolean {
      return s.release.run(now.toISOString(), id, owner).changes === 1;
    },
  };
}
