/**
 * A generated year of report-card history for the demo dataset, so that every chart of a
 * developer's view shows something: for each of the 365 days before the dataset's last write, the
 * figures the index gives now, drawn back along a smooth trend with a little day-to-day noise
 * (seeded: the same database always gets the same points). Every point is marked `generated`,
 * and the API and page say so.
 */
import { Database } from "bun:sqlite";
import { dayNumber, NATIONAL, writeReportPoints } from "../../src/db/report-history";
import { buildDirectoryData } from "../../src/directory/build-data";
import { type Figure, historyFigures } from "../../src/model/report-card";
import { Rng } from "../generate/prng";

const DAYS = 365;

/** A figure `back` days before now: counts grow towards now (about a quarter over the year), shares rise too. */
function drawnBack(name: string, value: Figure, back: number, noise: number): Figure {
  if (value === null) return null;
  const trend = 1 - 0.25 * (back / DAYS);
  if (name.includes(".shares.") || name.includes(".supports.") || name.includes(".uptime30d."))
    return Math.round(Math.min(1, Math.max(0, value * (0.85 + 0.15 * trend) + (noise - 0.5) * 0.02)) * 10_000) / 10_000;
  return Math.max(0, Math.round(value * trend * (1 + (noise - 0.5) * 0.02)));
}

/** Writes the generated year into the database at `path`; the number of points written. */
export function generateDemoHistory(path: string): number {
  const sqlite = new Database(path, { readwrite: true });
  try {
    sqlite.exec("BEGIN");
    const cards = buildDirectoryData(sqlite).reportCards;
    sqlite.exec("COMMIT");
    if (cards.asOf === null) return 0;
    const today = dayNumber(cards.asOf);
    const now = new Map<string, Record<string, Figure>>([[NATIONAL, historyFigures(cards.national)]]);
    for (const card of cards.vendors) now.set(card.vendorId, historyFigures(card));
    const rng = new Rng(today);
    const next = () => rng.next();
    let written = 0;
    sqlite.transaction(() => {
      for (let back = DAYS; back >= 1; back--) {
        const points = new Map<string, Record<string, Figure>>();
        for (const [vendorId, figures] of now)
          points.set(
            vendorId,
            Object.fromEntries(Object.entries(figures).map(([name, v]) => [name, drawnBack(name, v, back, next())])),
          );
        writeReportPoints(sqlite, today - back, points, true);
        written += points.size;
      }
    })();
    return written;
  } finally {
    sqlite.close();
  }
}
