import type { Database } from "bun:sqlite";
import { writeBestEffort } from "./best-effort-write";
import { CHANGES_KEPT_DAYS } from "./changes";
import { DAY_MS, dayOf } from "./history-format";
import { perConnection } from "./per-connection";
import type { reportHistory } from "./schema";
import { CLOCK_SKEW_MS, writtenAt } from "./write-clock";

/**
 * The report cards' history (table `report_history`): per UTC day, the flattened figures of each
 * developer and (vendor id '') of the whole directory as they stood at that day's last write.
 * A row keeps its values alone (a JSON array), in the order of a list of names kept once in
 * `report_figure_names`. Kept as long as the change feed: CHANGES_KEPT_DAYS before the day written.
 */
type Row = typeof reportHistory.$inferSelect;
/** A figure: a number, or null where it is undefined. */
type Value = number | null;

/** The vendor id under which the whole directory's figures are kept. */
export const NATIONAL = "";

/** Days since the epoch of an ISO time or a YYYY-MM-DD day. */
export const dayNumber = (iso: string) => dayOf(Date.parse(iso));
/** YYYY-MM-DD of a day number. */
export const dayText = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The id of a list of figure names, added when new. */
function namesId(sqlite: Database, names: readonly string[]): number {
  const text = JSON.stringify(names);
  sqlite.prepare("INSERT OR IGNORE INTO report_figure_names (names) VALUES (?)").run(text);
  return (sqlite.prepare("SELECT id FROM report_figure_names WHERE names = ?").get(text) as { id: number }).id;
}

/**
 * Writes points (vendor id → figures by name, NATIONAL for the directory) of `day`, replacing
 * that day's earlier ones, inside the caller's transaction; `generated` marks made-up points.
 */
export function writeReportPoints(
  sqlite: Database,
  day: number,
  points: Map<string, Record<string, Value>>,
  generated = false,
) {
  const insert = sqlite.prepare(
    "INSERT OR REPLACE INTO report_history (vendor_id, day, names_id, figures, generated) VALUES (?, ?, ?, ?, ?)",
  );
  const ids = new Map<string, number>();
  for (const [vendorId, figures] of points) {
    const names = Object.keys(figures);
    const key = names.join("\n");
    let id = ids.get(key);
    if (id === undefined) {
      id = namesId(sqlite, names);
      ids.set(key, id);
    }
    insert.run(vendorId, day, id, JSON.stringify(Object.values(figures)), generated ? 1 : 0);
  }
}

/**
 * Keeps one day's figures, replacing that day's earlier ones, and drops points more than
 * CHANGES_KEPT_DAYS before that day, and any dated after this machine's day (a wrong clock's,
 * which would hold the retention back). A day ahead of this machine's clock is kept as today
 * (logged): retention counts from the day written, never from the newest point stored, so one
 * point from a wrong clock cannot make every later, correct one look old. Opens its own
 * connection to `path`; false when the database cannot be written (a read-only replica), which
 * loses nothing: the writable primary records the same day when it builds the same version.
 */
export function keepReportHistory(
  path: string,
  claimedDay: number,
  points: Map<string, Record<string, Value>>,
): boolean {
  const nowMs = Date.now();
  const day = dayNumber(writtenAt(dayText(claimedDay), nowMs));
  const latest = dayOf(nowMs + CLOCK_SKEW_MS);
  return writeBestEffort(path, (sqlite) =>
    sqlite.transaction(() => {
      writeReportPoints(sqlite, day, points);
      sqlite
        .prepare("DELETE FROM report_history WHERE day < ?1 OR day > ?2")
        .run(day - CHANGES_KEPT_DAYS, Math.max(latest, day));
    })(),
  );
}

const statements = perConnection((sqlite) => ({
  range: sqlite.prepare(
    `SELECT h.day, n.names, h.figures, h.generated FROM report_history h JOIN report_figure_names n ON n.id = h.names_id
     WHERE h.vendor_id = ?1 AND h.day >= ?2 AND h.day <= ?3 ORDER BY h.day`,
  ),
}));

/** One developer's (or NATIONAL's) points from day `from` to day `to`, both included, oldest first. */
export function readReportHistory(
  sqlite: Database,
  vendorId: string,
  from: number,
  to: number,
): { day: Row["day"]; figures: Record<string, Value>; generated: boolean }[] {
  const rows = statements(sqlite).range.values(vendorId, from, to) as [number, string, string, number][];
  const parsedNames = new Map<string, string[]>();
  return rows.map(([day, namesText, values, generated]) => {
    let names = parsedNames.get(namesText);
    if (names === undefined) {
      names = JSON.parse(namesText) as string[];
      parsedNames.set(namesText, names);
    }
    const list = JSON.parse(values) as Value[];
    return {
      day,
      figures: Object.fromEntries(names.map((name, i) => [name, list[i] ?? null])),
      generated: generated === 1,
    };
  });
}
