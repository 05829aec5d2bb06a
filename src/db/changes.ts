import type { Database } from "bun:sqlite";
import { CHANGE_FIELDS, type ChangeField, type ChangeKind } from "../model/changes";
import { readMetaValue } from "./meta-value";
import type { datasetVersions, entryChanges } from "./schema";

/**
 * The change feed's store (GET /api/v1/changes). Triggers (db/migrations/0005_entry_changes.sql)
 * copy an entry's served values into `entry_changes_pending` the first time a write touches
 * them; `recordChanges`, called by markDatasetChanged inside the same transaction, compares them
 * with the values the write leaves, takes the entries inserted since the last version (row ids
 * above `changes_row_mark`; entries are never deleted, so row ids only grow) as new, and keeps
 * the difference in `entry_changes` under the new version. Every write path (ingest, probe,
 * removal, reappearance, vendor rename) is covered without calling anything, and an entry
 * changed and changed back records nothing.
 */

/** How long changes are kept: a client that synced within this many days can catch up. */
export const CHANGES_KEPT_DAYS = 400;
const DAY_MS = 86_400_000;

/** The column of each change field, in CHANGE_FIELDS order, in `entry_changes_pending` and in the read below. */
const COLUMNS: Record<ChangeField, string> = {
  url: "url",
  vendorId: "vendor_id",
  vendorName: "vendor_name",
  organizationName: "organization_name",
  npi: "npi",
  tenantId: "tenant_id",
  fhirVersion: "fhir_version",
  access: "access",
  city: "city",
  state: "state",
  zipCode: "zip_code",
  status: "status",
  verdict: "verdict",
};
/** Stored as JSON text, served as the array (or object). */
const JSON_FIELDS: ReadonlySet<ChangeField> = new Set(["access", "verdict"]);
/** A verdict of an entry whose URL is unprobed (stored as null). */
const UNKNOWN_VERDICT = { patientApps: "unknown", providerApps: "unknown", backendServices: "unknown" };
const LISTED = "e.status != 'removed' AND e.unusable IS NULL";
const CURRENT = (field: ChangeField) => (field === "vendorName" ? "v.name" : `e.${COLUMNS[field]}`);

/**
 * Pending rows read at a time: a write that touches most entries (a rule change re-derived over
 * a million entries) would otherwise hold every pending row in memory at once (2 GB at 1M).
 */
const PENDING_CHUNK = 10_000;
// CROSS JOIN keeps the pending rows outermost: without statistics the planner would otherwise
// walk every entry below the mark (7 ms at 40,000 entries, per version) to find a handful.
const PENDING = `SELECT p.entry_row_id, p.was_listed, ${LISTED},
    ${CHANGE_FIELDS.map((field) => `p.${COLUMNS[field]}`).join(", ")},
    ${CHANGE_FIELDS.map(CURRENT).join(", ")}
  FROM entry_changes_pending p CROSS JOIN entries e ON e.row_id = p.entry_row_id JOIN vendors v ON v.id = e.vendor_id
  WHERE p.entry_row_id <= ?1 AND p.entry_row_id > ?2 ORDER BY p.entry_row_id LIMIT ${PENDING_CHUNK}`;
/** Entries inserted since the last version that are in the list. */
const ADDED = `SELECT e.row_id FROM entries e WHERE e.row_id > ?1 AND ${LISTED}`;

type Value = string | null;
type PendingRow = [rowId: number, wasListed: number, listed: number, ...values: Value[]];

const served = (field: ChangeField, value: Value): unknown =>
  field === "verdict" && value === null
    ? UNKNOWN_VERDICT
    : JSON_FIELDS.has(field) && value !== null
      ? JSON.parse(value)
      : value;

/** What one pending row changed: null when the entry is no different in what the list serves. */
function changeOf(row: PendingRow): { kind: ChangeKind; fields: string | null } | null {
  const [, wasListed, listed] = row;
  if (!wasListed && !listed) return null;
  if (!wasListed) return { kind: "added", fields: null };
  if (!listed) return { kind: "removed", fields: null };
  const fields: Record<string, { from: unknown; to: unknown }> = {};
  let any = false;
  CHANGE_FIELDS.forEach((field, i) => {
    const from = row[3 + i] as Value;
    const to = row[3 + CHANGE_FIELDS.length + i] as Value;
    if (from === to) return;
    const before = served(field, from);
    const after = served(field, to);
    // Unprobed (null) and a probe that returned nothing both serve every verdict as unknown.
    if (field === "verdict" && JSON.stringify(before) === JSON.stringify(after)) return;
    fields[field] = { from: before, to: after };
    any = true;
  });
  return any ? { kind: "changed", fields: JSON.stringify(fields) } : null;
}

/**
 * Forgets the pending copies and moves the row mark to the newest entry: after recording, and
 * alone for a bulk load that is a dataset's starting point (the 1M-entry generator), whose
 * million `added` would say nothing to a client.
 */
export function discardPendingChanges(sqlite: Database) {
  sqlite.query("DELETE FROM entry_changes_pending").run();
  sqlite
    .query(
      // A bare MAX(row_id) is one lookup; wrapped in a function inside the subquery it is a scan.
      "UPDATE dataset_meta SET value = COALESCE((SELECT MAX(row_id) FROM entries), 0) WHERE key = 'changes_row_mark'",
    )
    .run();
}

/**
 * Records what the write changed under `version`: the pending copies that differ from what
 * their entries serve now, and the new entries that are in the list.
 */
export function recordChanges(sqlite: Database, version: number) {
  const insert = sqlite.query(
    "INSERT OR REPLACE INTO entry_changes (version, entry_row_id, change, fields) VALUES (?1, ?2, ?3, ?4)",
  );
  const mark = Number(readMetaValue(sqlite, "changes_row_mark"));
  const pending = sqlite.query(PENDING);
  for (let after = -1; ; ) {
    const rows = pending.values(mark, after) as PendingRow[];
    for (const row of rows) {
      const change = changeOf(row);
      if (change !== null) insert.run(version, row[0], change.kind, change.fields);
    }
    if (rows.length < PENDING_CHUNK) break;
    after = rows[rows.length - 1]![0];
  }
  for (const [rowId] of sqlite.query(ADDED).values(mark) as [number][]) insert.run(version, rowId, "added", null);
  discardPendingChanges(sqlite);
}

/**
 * Notes when `version` was written, and drops the oldest versions and their changes while they
 * are more than CHANGES_KEPT_DAYS older than `at`, moving `changes_from` (the oldest `since`
 * still answered) up to the newest dropped. It walks in version order and stops at the first
 * younger version, so a version is never dropped before its 400 days, even where writes came
 * with times out of order (a re-ingest of dated copies); checking costs one read per write.
 */
export function recordVersion(sqlite: Database, version: number, at: string) {
  sqlite.query("INSERT OR REPLACE INTO dataset_versions (version, at) VALUES (?1, ?2)").run(version, at);
  const cutoff = new Date(Date.parse(at) - CHANGES_KEPT_DAYS * DAY_MS).toISOString();
  const oldest = sqlite.query("SELECT at FROM dataset_versions ORDER BY version LIMIT 1").get() as { at: string };
  if (!(oldest.at < cutoff)) return;
  const young = sqlite
    .query("SELECT version FROM dataset_versions WHERE at >= ?1 ORDER BY version LIMIT 1")
    .get(cutoff) as { version: number } | null;
  const dropped = (young?.version ?? version) - 1;
  sqlite.query("DELETE FROM entry_changes WHERE version <= ?1").run(dropped);
  sqlite.query("DELETE FROM dataset_versions WHERE version <= ?1").run(dropped);
  sqlite
    .query(
      "UPDATE dataset_meta SET value = ?1 WHERE key = 'changes_from' AND CAST(value AS INTEGER) < CAST(?1 AS INTEGER)",
    )
    .run(String(dropped));
}

/** The oldest `since` the feed answers: the version changes are known from. */
export const readChangesFrom = (sqlite: Database): number => Number(readMetaValue(sqlite, "changes_from") ?? 0);

type Change = typeof entryChanges.$inferSelect;
/** A change as stored: its version's time, the entry's row id, and `fields` as JSON text (or null). */
type ChangeRow = [
  version: Change["version"],
  at: (typeof datasetVersions.$inferSelect)["at"],
  change: ChangeKind,
  fields: Change["fields"],
  rowId: Change["entryRowId"],
];

/** A page of changes, and where the next one starts. */
export interface ChangePage {
  changes: ChangeRow[];
  /** The position of the last change of the page (its version and entry), when more follow. */
  last?: { version: number; rowId: number; nextVersion: number };
}

/** The position after every change of version `version`: where `since=version` starts. */
export const AFTER_VERSION = Number.MAX_SAFE_INTEGER;

/**
 * Up to `limit` changes after position (`version`, `rowId`) and up to version `until`, oldest
 * first (by version, then by entry); (v, AFTER_VERSION) starts at the first change after version v.
 */
export function readChanges(
  sqlite: Database,
  from: { version: number; rowId: number },
  until: number,
  limit: number,
): ChangePage {
  const rows = sqlite
    .query(
      `SELECT c.version, v.at, c.change, c.fields, c.entry_row_id
       FROM entry_changes c JOIN dataset_versions v ON v.version = c.version
       WHERE (c.version, c.entry_row_id) > (?1, ?2) AND c.version <= ?3
       ORDER BY c.version, c.entry_row_id LIMIT ?4`,
    )
    .values(from.version, from.rowId, until, limit + 1) as ChangeRow[];
  const changes = rows.slice(0, limit);
  if (rows.length <= limit) return { changes };
  const last = rows[limit - 1]!;
  return { changes, last: { version: last[0], rowId: last[4], nextVersion: rows[limit]![0] } };
}
