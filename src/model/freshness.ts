import { type Static, Type } from "@sinclair/typebox";

/**
 * How fresh the directory is: where and when its lists were read, the refresh running now, the
 * last one's outcome and the next one (GET /api/v1/freshness, the page's freshness line, /metrics).
 */

/** Where a list was read from: the copy bundled with the code, Lantern's copy, the developer's own. */
export const LIST_SOURCES = ["bundled", "lantern", "developer"] as const;
export type ListSource = (typeof LIST_SOURCES)[number];

/**
 * How a refresh run ended: `ok`; `lists-failed` (some list could not be read; the probe ran);
 * `outage` (the prober lost the network: nothing of it was recorded, tried again later with a
 * growing delay); `failed` (the run stopped on an error, or its process died and was not resumed).
 */
export const RUN_OUTCOMES = ["ok", "lists-failed", "outage", "failed"] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** What a run is doing: reading the lists, asking the servers, building the index file. */
const RUN_PHASES = ["lists", "probe", "index"] as const;
export type RunPhase = (typeof RUN_PHASES)[number];

/**
 * Whether this server refreshes its directory: `on`; `off` (REFRESH=off); `generated` (a dataset
 * made by data:sample or data:generate-1m: its hosts are invented, it is never refreshed).
 */
const REFRESH_MODES = ["on", "off", "generated"] as const;
export type RefreshMode = (typeof REFRESH_MODES)[number];

const dateTime = (description: string) => Type.String({ format: "date-time", description });
const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const count = (description: string) => Type.Integer({ minimum: 0, description });

const ListSourceSchema = Type.Object({
  source: Type.Union(
    LIST_SOURCES.map((s) => Type.Literal(s)),
    {
      description:
        "`bundled`: the copy of Lantern's files shipped with the code (read offline at the first start); `lantern`: Lantern's published copy of the developer's list, read by a refresh; `developer`: the list where the developer publishes it.",
    },
  ),
  lists: count("Lists last read from this source."),
  newestRead: dateTime(
    "The newest of their reads: when a refresh read them, or for the bundled copy the date its newest file was last changed.",
  ),
  oldestRead: dateTime("The oldest of their reads."),
});

const CurrentRunSchema = Type.Object({
  startedAt: dateTime("When the run started (a resumed run keeps its first start)."),
  state: Type.Union([Type.Literal("running"), Type.Literal("paused")], {
    description:
      "`running`: a process is at it now; `paused`: its process was stopped or died, and the next run resumes it (the URLs it already asked are not asked again).",
  }),
  phase: Type.Union(
    RUN_PHASES.map((p) => Type.Literal(p)),
    { description: "`lists`: reading the lists; `probe`: asking the servers; `index`: building the index file." },
  ),
  urlsDone: count("URLs asked so far in this run (since it last resumed)."),
  urlsTotal: Type.Union([count("URLs this run asks in all (since it last resumed)."), Type.Null()], {
    description: "URLs this run asks in all (since it last resumed); null while it reads the lists.",
  }),
  resumes: count("Times the run was resumed after its process stopped."),
});

const LastRunSchema = Type.Object({
  startedAt: dateTime("When it started."),
  finishedAt: dateTime("When it ended."),
  outcome: Type.Union(
    RUN_OUTCOMES.map((o) => Type.Literal(o)),
    {
      description:
        "`ok`; `lists-failed`: some list could not be read (the servers were asked all the same); `outage`: the prober lost the network, nothing of the run's last minute was recorded, and the next try waits longer each time; `failed`: the run stopped on an error.",
    },
  ),
  urlsDone: count("URLs it asked (in its last stretch, when resumed)."),
  urlsTotal: Type.Union([count("URLs it was to ask."), Type.Null()], {
    description: "URLs it was to ask; null when it stopped before asking any.",
  }),
  detail: Type.Union([Type.String(), Type.Null()], {
    description: "What went wrong, in words; null when nothing did.",
  }),
});

export const FreshnessSchema = Type.Object({
  refresh: Type.Union(
    REFRESH_MODES.map((m) => Type.Literal(m)),
    {
      description:
        "`on`: the server refreshes the directory by itself on its schedule; `off`: turned off (REFRESH=off); `generated`: a generated demo or load-test dataset, whose hosts are invented, never refreshed.",
    },
  ),
  listsAsOf: nullable(
    dateTime("The newest read of any list (`newestRead` of `lists`); null when no list was ever read."),
  ),
  lists: Type.Array(ListSourceSchema, {
    description: "The lists by where they were last read from, in the order bundled, lantern, developer.",
  }),
  currentRun: Type.Union([CurrentRunSchema, Type.Null()], { description: "The refresh under way; null when none is." }),
  lastRun: Type.Union([LastRunSchema, Type.Null()], {
    description: "The last refresh that ended; null before the first.",
  }),
  failuresInARow: count(
    "How many of the latest runs in a row ended in `outage` or `failed`; each doubles the wait before the next try.",
  ),
  nextRunAt: nullable(
    dateTime(
      "When the next refresh is due (a few seconds after that, it starts); null while one runs, or when `refresh` is not `on`.",
    ),
  ),
});
export type Freshness = Static<typeof FreshnessSchema>;

export const FreshnessResponse = Type.Object(
  { success: Type.Literal(true), data: FreshnessSchema },
  {
    examples: [
      {
        success: true,
        data: {
          refresh: "on",
          listsAsOf: "2024-04-27T14:02:11.000Z",
          lists: [
            {
              source: "bundled",
              lists: 187,
              newestRead: "2024-04-27T14:02:11.000Z",
              oldestRead: "2023-02-08T16:40:00.000Z",
            },
          ],
          currentRun: {
            startedAt: "2026-11-29T04:17:00.000Z",
            state: "running",
            phase: "probe",
            urlsDone: 4211,
            urlsTotal: 23164,
            resumes: 0,
          },
          lastRun: null,
          failuresInARow: 0,
          nextRunAt: null,
        },
      },
    ],
  },
);

/** The schedule's timings, in milliseconds (Config `refresh`, src/config.ts). */
export interface RefreshTimings {
  everyMs: number;
  firstDelayMs: number;
  retryMs: number;
  retryMaxMs: number;
  lockMs: number;
}

/** The wait before the next try after `failures` outages or failures in a row: doubling, capped. */
export function retryDelayMs(failures: number, timings: Pick<RefreshTimings, "retryMs" | "retryMaxMs">): number {
  return Math.min(timings.retryMaxMs, timings.retryMs * 2 ** Math.min(40, Math.max(0, failures - 1)));
}

/**
 * When the next run is due (ms since the epoch), or null while one runs. Never before
 * `processStartedAt + firstDelayMs`, so that a start stays as fast as serving alone.
 * - a paused run (released, or its process gone): resumed as soon as its lock expired;
 * - after outages or failures in a row: the last end plus retryDelayMs;
 * - after a run that ended otherwise: its start plus everyMs (a restart that missed it runs soon);
 * - no run ever: soon after the start.
 */
export function nextRunAt(
  state: {
    open: { heartbeatAt: number | null; alive: boolean } | null;
    last: { startedAt: number; finishedAt: number } | null;
    failuresInARow: number;
  },
  timings: RefreshTimings,
  processStartedAt: number,
): number | null {
  const soonest = processStartedAt + timings.firstDelayMs;
  const { open, last } = state;
  if (open?.alive) return null;
  let due: number;
  if (open) due = open.heartbeatAt === null ? 0 : open.heartbeatAt + timings.lockMs;
  else if (last === null) due = 0;
  else if (state.failuresInARow > 0) due = last.finishedAt + retryDelayMs(state.failuresInARow, timings);
  else due = last.startedAt + timings.everyMs;
  return Math.max(due, soonest);
}

/** The exit status of `bun run refresh` when another run holds the lock (it did nothing). */
export const REFRESH_LOCK_HELD_EXIT_CODE = 4;
