import type { Database } from "bun:sqlite";
import type { RefreshConfig } from "../config";
import { type Freshness, LIST_SOURCES, nextRunAt, type RefreshMode } from "../model/freshness";
import { readGeneratedBy } from "./dataset-meta";
import { isRunAlive, ownerIsDeadHere, type RunRow, refreshRunStatements } from "./refresh-runs";

/** What the schedule decides from: the runs, whether the open one is alive, and when the next is due. */
interface RunState {
  open: RunRow | null;
  alive: boolean;
  last: RunRow | null;
  failuresInARow: number;
  /** ms since the epoch; null while a run is alive. */
  nextRunAt: number | null;
}

/**
 * How fresh the directory in `sqlite` is (model/freshness.ts), for the server's schedule, its
 * freshness answer and /metrics: the same figures, read the same way. `processStartedAt`: when
 * this process started (the first run is never due before `firstDelayMs` after it).
 */
export function freshnessReader(sqlite: Database, refresh: RefreshConfig, processStartedAt: number) {
  const runs = refreshRunStatements(sqlite);

  const mode = (): RefreshMode => (!refresh.enabled ? "off" : readGeneratedBy(sqlite) !== null ? "generated" : "on");

  function state(now: number): RunState {
    const open = runs.open();
    const last = runs.latestFinished();
    const failuresInARow = runs.failuresInARow();
    const alive = open !== null && isRunAlive(open, refresh.lockMs, now);
    // Released by an interrupted run, or its process is gone: resumable at once.
    const gone = open !== null && (open.owner === null || ownerIsDeadHere(open.owner));
    const next = nextRunAt(
      {
        open:
          open === null
            ? null
            : { alive, heartbeatAt: gone || open.heartbeatAt === null ? null : Date.parse(open.heartbeatAt) },
        last:
          last === null
            ? null
            : { startedAt: Date.parse(last.startedAt), finishedAt: Date.parse(last.finishedAt ?? last.startedAt) },
        failuresInARow,
      },
      refresh,
      processStartedAt,
    );
    return { open, alive, last, failuresInARow, nextRunAt: next };
  }

  function read(now: Date): Freshness {
    const current = mode();
    const { open, alive, last, failuresInARow, nextRunAt: next } = state(now.getTime());
    const lists = runs.lists().sort((a, b) => LIST_SOURCES.indexOf(a.source) - LIST_SOURCES.indexOf(b.source));
    const iso = (at: string) => new Date(at).toISOString();
    return {
      refresh: current,
      listsAsOf:
        lists.length === 0
          ? null
          : iso(
              lists
                .map((l) => l.newestRead)
                .sort()
                .at(-1)!,
            ),
      lists: lists.map((l) => ({ ...l, newestRead: iso(l.newestRead), oldestRead: iso(l.oldestRead) })),
      currentRun:
        open === null
          ? null
          : {
              startedAt: iso(open.startedAt),
              state: alive ? "running" : "paused",
              phase: open.phase,
              urlsDone: open.urlsDone,
              urlsTotal: open.urlsTotal,
              resumes: open.resumes,
            },
      lastRun:
        last === null || last.outcome === null
          ? null
          : {
              startedAt: iso(last.startedAt),
              finishedAt: iso(last.finishedAt ?? last.startedAt),
              outcome: last.outcome,
              urlsDone: last.urlsDone,
              urlsTotal: last.urlsTotal,
              detail: last.detail,
            },
      failuresInARow,
      nextRunAt: current !== "on" || next === null ? null : new Date(next).toISOString(),
    };
  }

  return { mode, state, read };
}

export type FreshnessReader = ReturnType<typeof freshnessReader>;
