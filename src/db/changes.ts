import type { Database } from "bun:sqlite";
import { CHANGE_FIELDS, type ChangeField, type ChangeKind, type ChangeRecord } from "../model/changes";

/**
 * The change feed's store (GET /api/v1/changes). Triggers (db/migrations/0005_entry_changes.sql)
 * copy an entry's served values into `entry_changes_pending` the first time a write touches
 * them; `recordChanges`, called by markDatasetChanged inside the same transaction, compares them
 * with the values the write leaves and keeps the difference in `entry_changes` under the new
 * version. Every write path (ingest, probe, removal, reappearance, vendor rename) is covered
 * without calling anything, and an entry changed and changed back records nothing.
 */

/** How long changes are kept: a client that synced within this many days can catch up. */
const CHANGES_KEPT_DAYS = 400;
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
};
/** Stored as JSON text, served as the array. */
const JSON_FIELDS: ReadonlySet<ChangeField> = new Set(["access"]);
const LISTED = "e.status != 'removed' AND e.unusable IS NULL";
const CURRENT = (field: ChangeField) => (field === "vendorName" ? "v.name" : `e.${COLUMNS[field]}`);

const PENDING = `SELECT p.entry_row_id, p.was_listed, ${LISTED},
    ${CHANGE_FIELDS.map((field) => `p.${COLUMNS[field]}`).join(", ")},
    ${CHANGE_FIELDS.map(CURRENT).join(", ")}
  FROM entry_changes_pending p JOIN entries e ON e.row_id = p.entry_row_id JOIN vendors v ON v.id = e.vendor_id`;

type Value = string | null;
type PendingRow = [rowId: number, wasListed: number, listed: number, ...values: Value[]];

const served = (field: ChangeField, value: Value) =>
  JSON_FIELDS.has(field) && value !== null ? (JSON.parse(value) as string[]) : value;

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
    fields[field] = { from: served(field, from), to: served(field, to) };
    any = true;
  });
  return any ? { kind: "changed", fields: JSON.stringify(fields) } : null;
}

/** Records what the pending rows changed under `version`, and clears them. Returns how many changes. */
export function recordChanges(sqlite: Database, version: number): number {
  const insert = sqlite.query(
    "INSERT OR REPLACE INTO entry_changes (version, entry_row_id, change, fields) VALUES (?1, ?2, ?3, ?4)",
  );
  let count = 0;
  for (const row of sqlite.query(PENDING).values() as PendingRow[]) {
    const change = changeOf(row);
    if (change === null) continue;
    insert.run(version, row[0], change.kind, change.fields);
    count++;
  }
  sqlite.query("DELETE FROM entry_changes_pending").run();
  return count;
}

/**
 * Notes when `version` was written, and once a kept version is more than CHANGES_KEPT_DAYS older
 * than `at`, drops the versions and changes up to the newest such version, moving
 * `changes_from` (the oldest `since` still answered) up to it. Both reads use the index on `at`.
 */
export function recordVersion(sqlite: Database, version: number, at: string) {
  sqlite.query("INSERT OR REPLACE INTO dataset_versions (version, at) VALUES (?1, ?2)").run(version, at);
  const cutoff = new Date(Date.parse(at) - CHANGES_KEPT_DAYS * DAY_MS).toISOString();
  const { oldest } = sqlite.query("SELECT min(at) AS oldest FROM dataset_versions").get() as { oldest: string };
  if (!(oldest < cutoff)) return;
  const { dropped } = sqlite
    .query("SELECT max(version) AS dropped FROM dataset_versions WHERE at < ?1 AND version < ?2")
    .get(cutoff, version) as { dropped: number | null };
  if (dropped === null) return;
  sqlite.query("DELETE FROM entry_changes WHERE version <= ?1").run(dropped);
  sqlite.query("DELETE FROM dataset_versions WHERE version <= ?1").run(dropped);
  sqlite
    .query(
      "UPDATE dataset_meta SET value = ?1 WHERE key = 'changes_from' AND CAST(value AS INTEGER) < CAST(?1 AS INTEGER)",
    )
    .run(String(dropped));
}

/** The oldest `since` the feed answers: the version changes are known from. */
export function readChangesFrom(sqlite: Database): number {
  const row = sqlite.query("SELECT value FROM dataset_meta WHERE key = 'changes_from'").get() as {
    value: string;
  } | null;
  return row ? Number(row.value) : 0;
}

type ChangeRow = [version: number, at: string, id: string, change: ChangeKind, fields: string | null, rowId: number];

/** A page of changes, and where the next one starts. */
export interface ChangePage {
  changes: ChangeRecord[];
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
      `SELECT c.version, v.at, e.id, c.change, c.fields, c.entry_row_id
       FROM entry_changes c JOIN dataset_versions v ON v.version = c.version JOIN entries e ON e.row_id = c.entry_row_id
       WHERE (c.version, c.entry_row_id) > (?1, ?2) AND c.version <= ?3
       ORDER BY c.version, c.entry_row_id LIMIT ?4`,
    )
    .values(from.version, from.rowId, until, limit + 1) as ChangeRow[];
  const changes = rows.slice(0, limit).map(([version, at, id, change, fields]) => ({
    version,
    at,
    id,
    change,
    ...(fields === null ? {} : { fields: JSON.parse(fields) }),
  }));
  if (rows.length <= limit) return { changes };
  const last = rows[limit - 1]!;
  return { changes, last: { version: last[0], rowId: last[5], nextVersion: rows[limit]![0] } };
}
