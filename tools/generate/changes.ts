import type { Database } from "bun:sqlite";
import { readDatasetVersion } from "../../src/db/dataset-meta";
import type { ChangeRecord } from "../../src/model/changes";
import { Rng } from "./prng";

/** At most this many days of change history (the feed keeps 400). */
export const MAX_CHANGE_DAYS = 400;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * A day of a running directory, as shares of its entries: the daily refresh (one version at
 * 04:00) changes a few in place and adds and removes fewer; the probe run (24 versions, one an
 * hour) turns about 1 % between verified, unresponsive and listed.
 */
const DAILY = { changed: 0.0005, added: 0.0001, removed: 0.0001, probed: 0.01 };
const PROBE_VERSIONS_PER_DAY = 24;
const REFRESH_HOUR = 4;

type Fields = NonNullable<ChangeRecord["fields"]>;
const STATUS_MOVES: Fields[] = [
  { status: { from: "listed", to: "verified" } },
  { status: { from: "verified", to: "unresponsive" } },
  { status: { from: "unresponsive", to: "verified" } },
  { status: { from: "listed", to: "unresponsive" } },
  { status: { from: "listed", to: "verified" }, fhirVersion: { from: "UNKNOWN", to: "R4" } },
];
const REFRESH_CHANGES: Fields[] = [
  {
    city: { from: "Springfield", to: "Riverton" },
    state: { from: "IL", to: "MO" },
    zipCode: { from: "62701", to: "63101" },
  },
  { organizationName: { from: "Mercy Clinic", to: "Mercy Health Clinic" } },
  { npi: { from: null, to: "1234567893" } },
  { access: { from: ["patient"], to: ["patient", "provider"] } },
];
const json = (values: Fields[]) => values.map((fields) => JSON.stringify(fields));
const STATUS_JSON = json(STATUS_MOVES);
const REFRESH_JSON = json(REFRESH_CHANGES);

/** `count` distinct row ids from 1 to `rows`, ascending (the primary key's order within a version). */
function sample(rng: Rng, rows: number, count: number): number[] {
  const picked = new Set<number>();
  const wanted = Math.min(count, rows);
  while (picked.size < wanted) picked.add(1 + rng.int(rows));
  return [...picked].sort((a, b) => a - b);
}

/**
 * Writes `days` days of change-feed history ending at `endMs` (deterministic by `seed`) for a
 * generated dataset of `rows` entries: the versions and their changes, numbered on from the
 * dataset's version, which moves to the last of them. The changes name real entries (row ids
 * 1..rows) and have the shape the feed serves; they are not replayed onto the entries (a load
 * test reads the feed, it does not check it against the records).
 */
export function writeChangeHistory(
  sqlite: Database,
  options: { days: number; seed: number; endMs: number; rows: number },
): { versions: number; changes: number } {
  const days = Math.min(options.days, MAX_CHANGE_DAYS);
  const rng = new Rng(`changes-${options.seed}`);
  const insertVersion = sqlite.prepare("INSERT INTO dataset_versions (version, at) VALUES (?1, ?2)");
  const insertChange = sqlite.prepare(
    "INSERT INTO entry_changes (version, entry_row_id, change, fields) VALUES (?1, ?2, ?3, ?4)",
  );
  const perDay = (share: number) => Math.max(1, Math.round(options.rows * share));
  let version = readDatasetVersion(sqlite);
  let changes = 0;
  const write = (at: number, rows: number[], change: (i: number) => [string, string | null]) => {
    version++;
    insertVersion.run(version, new Date(at).toISOString());
    rows.forEach((row, i) => {
      const [kind, fields] = change(i);
      insertChange.run(version, row, kind, fields);
    });
    changes += rows.length;
  };
  sqlite.exec("BEGIN");
  for (let day = 0; day < days; day++) {
    const start = options.endMs - (days - day) * DAY_MS;
    for (let hour = 0; hour < PROBE_VERSIONS_PER_DAY; hour++) {
      if (hour === REFRESH_HOUR) {
        const changed = perDay(DAILY.changed);
        const added = perDay(DAILY.added);
        const refreshed = sample(rng, options.rows, changed + added + perDay(DAILY.removed));
        // Which of the sampled rows is which is drawn apart from their order.
        write(start + hour * HOUR_MS, refreshed, () => {
          const roll = rng.int(refreshed.length);
          if (roll < changed) return ["changed", REFRESH_JSON[rng.int(REFRESH_JSON.length)]!];
          return roll < changed + added ? ["added", null] : ["removed", null];
        });
      }
      const probed = sample(rng, options.rows, Math.round(perDay(DAILY.probed) / PROBE_VERSIONS_PER_DAY));
      write(start + hour * HOUR_MS + 30 * 60_000, probed, () => ["changed", STATUS_JSON[rng.int(STATUS_JSON.length)]!]);
    }
  }
  sqlite.prepare("UPDATE dataset_meta SET value = ?1 WHERE key = 'dataset_version'").run(String(version));
  sqlite.exec("COMMIT");
  return { versions: days * (1 + PROBE_VERSIONS_PER_DAY), changes };
}
