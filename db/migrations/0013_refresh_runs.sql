-- The refresh runs (src/db/refresh-runs.ts): one row per run of `bun run refresh`, whether the
-- server's schedule started it or a person did. The row without `finished_at` (at most one) is
-- the lock: its `owner` ("host pid") renews `heartbeat_at` while it runs; a row whose owner is
-- gone (heartbeat older than REFRESH_LOCK_SECONDS, or a dead process on the same host) or that
-- an interrupted run released (owner null) is taken over and resumed by the next run.
-- `outcome`: ok | lists-failed | outage | failed. `phase`: lists | probe | index.
CREATE TABLE `refresh_runs` (
  `id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
  `started_at` text NOT NULL,
  `finished_at` text,
  `outcome` text,
  `detail` text,
  `phase` text DEFAULT 'lists' NOT NULL,
  `urls_done` integer DEFAULT 0 NOT NULL,
  `urls_total` integer,
  `owner` text,
  `heartbeat_at` text,
  `resumes` integer DEFAULT 0 NOT NULL
);
