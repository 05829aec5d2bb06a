import type { Freshness } from "../../../model/freshness";

/**
 * The line every view of the page shows under its title: how fresh the directory is, in words
 * (GET /api/v1/freshness). "Lists dated 22 Feb 2023 to 27 Apr 2024 · asking servers now: 4,211 of 23,164 ·
 * results appear as they come".
 */

const NUMBER = new Intl.NumberFormat("en-US");
const DAY = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const TIME = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "UTC" });

/** "27 Apr 2024". */
const day = (iso: string) => DAY.format(new Date(iso));
/** "27 Apr 2024, 04:17 UTC". */
const moment = (iso: string) => `${day(iso)}, ${TIME.format(new Date(iso))} UTC`;

/** When the next run is due, said from `now`: "in a moment", "at 04:17 UTC", "on 30 Nov 2026, 04:17 UTC". */
function when(iso: string, now: Date): string {
  const at = new Date(iso);
  const ms = at.getTime() - now.getTime();
  if (ms < 90_000) return "in a moment";
  if (ms < 3_600_000) return `in ${Math.round(ms / 60_000)} minutes`;
  return day(iso) === day(now.toISOString()) ? `at ${TIME.format(at)} UTC` : `on ${moment(iso)}`;
}

const SOURCE_WORDS: Record<Freshness["lists"][number]["source"], string> = {
  bundled: "the copy bundled with this server",
  lantern: "Lantern's copy",
  developer: "the developers' own lists",
};

/**
 * The lists' dates: "Lists as of 29 Nov 2026" when every list was read that day, otherwise the span
 * from the oldest to the newest ("Lists dated 22 Feb 2023 to 16 Dec 2025"), so that one recent
 * file does not make a directory of older lists look newer than it is.
 */
function listsPart(f: Freshness): string {
  if (f.listsAsOf === null) return "No list read yet";
  const from = f.lists.map((l) => SOURCE_WORDS[l.source]).join(", ");
  const oldest = f.lists
    .map((l) => l.oldestRead)
    .sort()
    .at(0);
  const dates =
    oldest === undefined || day(oldest) === day(f.listsAsOf)
      ? `as of ${day(f.listsAsOf)}`
      : `dated ${day(oldest)} to ${day(f.listsAsOf)}`;
  return `Lists ${dates} (${from})`;
}

function runPart(f: Freshness, now: Date): string[] {
  const run = f.currentRun;
  if (run?.state === "running") {
    if (run.phase === "lists") return ["reading the developers' lists now", "then asking their servers"];
    if (run.phase === "index") return ["servers asked: publishing the results"];
    return run.urlsTotal === null
      ? ["asking servers now", "results appear as they come"]
      : [
          `asking servers now: ${NUMBER.format(run.urlsDone)} of ${NUMBER.format(run.urlsTotal)}`,
          "results appear as they come",
        ];
  }
  if (f.refresh === "generated") return ["a generated dataset: its servers are invented and never asked"];
  const last = f.lastRun;
  const parts: string[] = [];
  if (run?.state === "paused") parts.push(`asking servers paused (started ${moment(run.startedAt)})`);
  else if (last === null) parts.push("servers not asked yet");
  else if (last.outcome === "outage")
    parts.push(`the last check of the servers stopped: this server had lost its network (${moment(last.finishedAt)})`);
  else if (last.outcome === "failed") parts.push(`the last check of the servers failed (${moment(last.finishedAt)})`);
  else
    parts.push(
      `servers last asked ${moment(last.finishedAt)}${last.outcome === "lists-failed" ? " (some lists could not be read)" : ""}`,
    );
  if (f.refresh === "off") parts.push("checks run only when the operator starts them");
  else if (f.nextRunAt !== null)
    parts.push(
      `${run?.state === "paused" ? "resumes" : last === null ? "first check" : "next check"} ${when(f.nextRunAt, now)}`,
    );
  return parts;
}

export function freshnessLine(f: Freshness, now = new Date()): string {
  return [listsPart(f), ...runPart(f, now)].join(" · ");
}

/** While a run runs, the line is asked again this often (4 of the 60 requests a minute a person may make); otherwise once a minute. */
export const freshnessPollMs = (f: Freshness) => (f.currentRun?.state === "running" ? 15_000 : 60_000);
