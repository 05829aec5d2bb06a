import { describe, expect, test } from "bun:test";
import type { Freshness } from "../../../src/model/freshness";
import { freshnessLine, freshnessPollMs } from "../../../src/server/web/client/freshness-line";

const NOW = new Date("2026-11-29T10:00:00.000Z");

/** The national directory as a first start leaves it: the bundled copy, nothing asked yet. */
const FIRST_START: Freshness = {
  refresh: "on",
  listsAsOf: "2024-04-27T14:32:31.000Z",
  lists: [
    { source: "bundled", lists: 137, newestRead: "2024-04-27T14:32:31.000Z", oldestRead: "2023-02-22T00:57:13.000Z" },
  ],
  currentRun: null,
  lastRun: null,
  failuresInARow: 0,
  nextRunAt: "2026-11-29T10:00:30.000Z",
};

const running = (phase: "lists" | "probe" | "index", urlsTotal: number | null): Freshness => ({
  ...FIRST_START,
  currentRun: { startedAt: "2026-11-29T09:59:00.000Z", state: "running", phase, urlsDone: 4211, urlsTotal, resumes: 0 },
  nextRunAt: null,
});

describe("the page's freshness line, in words", () => {
  test("a first start: the bundled lists' dates, oldest to newest, and the first check in a moment", () => {
    expect(freshnessLine(FIRST_START, NOW)).toBe(
      "Lists dated 22 Feb 2023 to 27 Apr 2024 (the copy bundled with this server) · servers not asked yet · first check in a moment",
    );
    expect(freshnessPollMs(FIRST_START)).toBe(60_000);
  });

  test("a run asking the servers: how far it is, asked again every 15 s", () => {
    const f = running("probe", 23164);
    expect(freshnessLine(f, NOW)).toBe(
      "Lists dated 22 Feb 2023 to 27 Apr 2024 (the copy bundled with this server) · asking servers now: 4,211 of 23,164 · results appear as they come",
    );
    expect(freshnessPollMs(f)).toBe(15_000);
    expect(freshnessLine(running("lists", null), NOW)).toContain("reading the developers' lists now");
    expect(freshnessLine(running("index", 23164), NOW)).toContain("servers asked: publishing the results");
  });

  test("after a run: when, from where the lists were read, and the next check", () => {
    const f: Freshness = {
      ...FIRST_START,
      listsAsOf: "2026-11-29T04:18:00.000Z",
      lists: [
        {
          source: "lantern",
          lists: 130,
          newestRead: "2026-11-29T04:17:30.000Z",
          oldestRead: "2026-11-29T04:17:01.000Z",
        },
        {
          source: "developer",
          lists: 7,
          newestRead: "2026-11-29T04:18:00.000Z",
          oldestRead: "2026-11-29T04:17:02.000Z",
        },
      ],
      lastRun: {
        startedAt: "2026-11-29T04:17:00.000Z",
        finishedAt: "2026-11-29T04:31:00.000Z",
        outcome: "lists-failed",
        urlsDone: 23164,
        urlsTotal: 23164,
        detail: "1 list(s) failed: acme/acme-1",
      },
      nextRunAt: "2026-11-30T04:17:00.000Z",
    };
    expect(freshnessLine(f, NOW)).toBe(
      "Lists as of 29 Nov 2026 (Lantern's copy, the developers' own lists) · servers last asked 29 Nov 2026, 04:31 UTC (some lists could not be read) · next check on 30 Nov 2026, 04:17 UTC",
    );
  });

  test("an outage, a paused run, a schedule turned off, a generated dataset", () => {
    const outage: Freshness = {
      ...FIRST_START,
      lastRun: {
        startedAt: "2026-11-29T09:40:00.000Z",
        finishedAt: "2026-11-29T09:41:00.000Z",
        outcome: "outage",
        urlsDone: 300,
        urlsTotal: 23164,
        detail: "the prober lost the network",
      },
      failuresInARow: 1,
      nextRunAt: "2026-11-29T10:20:00.000Z",
    };
    expect(freshnessLine(outage, NOW)).toContain(
      "the last check of the servers stopped: this server had lost its network (29 Nov 2026, 09:41 UTC) · next check in 20 minutes",
    );
    const paused: Freshness = { ...running("probe", 23164), nextRunAt: "2026-11-29T10:00:30.000Z" };
    paused.currentRun = { ...paused.currentRun!, state: "paused" };
    expect(freshnessLine(paused, NOW)).toContain(
      "asking servers paused (started 29 Nov 2026, 09:59 UTC) · resumes in a moment",
    );
    expect(freshnessLine({ ...FIRST_START, refresh: "off", nextRunAt: null }, NOW)).toBe(
      "Lists dated 22 Feb 2023 to 27 Apr 2024 (the copy bundled with this server) · servers not asked yet · checks run only when the operator starts them",
    );
    expect(freshnessLine({ ...FIRST_START, refresh: "generated", nextRunAt: null }, NOW)).toContain(
      "a generated dataset: its servers are invented and never asked",
    );
    expect(freshnessLine({ ...FIRST_START, listsAsOf: null, lists: [] }, NOW)).toStartWith("No list read yet");
  });
});
