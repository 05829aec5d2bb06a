import { Database } from "bun:sqlite";
import { CHANGES_KEPT_DAYS } from "./changes";
import { DAY_MS, dayOf } from "./history-format";
import { perConnection } from "./per-connection";
import type { reportHistory } from "./schema";

/**
 * The report cards' history (table `report_history`): per UTC day, the flattened figures of each
 * developer and (vendor id '') of the whole directory as they stood at that day's last write.
 * Kept as long as the change feed (CHANGES_KEPT_DAYS before the newest point).
 */
type Row = typeof reportHistory.$inferSelect;

/** The vendor id under which the whole directory's figures are kept. */
export const NATIONAL = "";

/** Days since the epoch of an ISO time or a YYYY-MM-DD day. */
export const dayNumber = (iso: string) => dayOf(Date.parse(iso));
/** YYYY-MM-DD of a day number. */
export const dayText = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * Keeps one day's figures (`points`: vendor id → flattened figures, NATIONAL for the directory),
 * replacing that day's earlier ones, and drops points older than the retention. Opens its own
 * connection to `path`; false when the database cannot be written (a read-only replica), which
 * loses nothing: the writable primary records the same day when it builds the same version.
 */
export function keepReportHistory(path: string, day: number, points: Map<string, object>): boolean {
  let sqlite: Database | undefined;
  try {
    sqlite = new Database(path, { readwrite: true });
    sqlite.exec("PRAGMA busy_timeout = 10000");
    const db = sqlite;
    const insert = db.prepare("INSERT OR REPLACE INTO report_history (vendor_id, day, figures) VALUES (?, ?, ?)");
    db.transaction(() => {
      for (const [vendorId, figures] of points) insert.run(vendorId, day, JSON.stringify(figures));
      db.prepare("DELETE FROM report_history WHERE day < (SELECT MAX(day) FROM report_history) - ?").run(
        CHANGES_KEPT_DAYS,
      );
    })();
    return true;
  } catch {
    return false;
  } finally {
    sqlite?.close();
  }
}

const statements = perConnection((sqlite) => ({
  range: sqlite.prepare(
    "SELECT day, figures FROM report_history WHERE vendor_id = ?1 AND day >= ?2 AND day <= ?3 ORDER BY day",
  ),
}));

/** One developer's (or NATIONAL's) points from day `from` to day `to`, both included, oldest first. */
export const readReportHistory = (sqlite: Database, vendorId: string, from: number, to: number) =>
  statements(sqlite).range.values(vendorId, from, to) as [day: Row["day"], figures: Row["figures"]][];
