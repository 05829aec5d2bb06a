import type { Database } from "bun:sqlite";
import { entryCoverage } from "../../db/describe";
import type { ListSummary } from "./types";

const COLUMNS = [
  "vendor",
  "list",
  "result",
  "added",
  "updated",
  "unchanged",
  "removed",
  "skipped",
  "repaired",
  "unusable",
  "source",
] as const;
const FIRST_NUMBER = 3;
const LAST_NUMBER = 9;

/** The per-list summary the CLI prints at the end, as an aligned text table. */
export function formatSummaryTable(summaries: ListSummary[]): string {
  const rows = summaries.map((s) => [
    s.vendorId,
    s.listId,
    s.ok ? "ok" : "FAILED",
    String(s.added),
    String(s.updated),
    String(s.unchanged),
    String(s.removed),
    String(s.skipped),
    String(s.repairs.length),
    String(s.unusable.length),
    s.source,
  ]);
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i >= FIRST_NUMBER && i <= LAST_NUMBER ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const failures = summaries.filter((s) => !s.ok).map((s) => `  ${s.listId}: ${s.error}`);
  const repairs = summaries.flatMap((s) =>
    s.repairs.map(
      (r) =>
        `  ${s.listId}: ${JSON.stringify(r.published)} → ${r.url} (${r.organizationName ?? "no name"}): ${r.kind}, ${r.repair}`,
    ),
  );
  const dropped = summaries.flatMap((s) =>
    s.dropped.map(
      (d) => `  ${s.listId}: ${JSON.stringify(d.published)} (${d.organizationName ?? "no name"}): ${d.reason}`,
    ),
  );
  const unusable = summaries.flatMap((s) =>
    s.unusable.map((u) => `  ${s.listId}: ${u.url} (${u.organizationName ?? "no name"}): ${u.reason}`),
  );
  return [
    line(COLUMNS),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map(line),
    ...(failures.length ? ["", "Failures:", ...failures] : []),
    ...(repairs.length ? ["", "Repaired (stored with the URL after the arrow):", ...repairs] : []),
    ...(dropped.length ? ["", "Dropped (not stored: the URL cannot be):", ...dropped] : []),
    ...(unusable.length ? ["", "Unusable (stored, not listed, counted or exported):", ...unusable] : []),
  ].join("\n");
}

/** One line per list while the command runs. */
export function progressLine(index: number, total: number, summary: ListSummary, ms: number): string {
  const where = `[${index}/${total}] ${summary.vendorId} / ${summary.listId}`;
  const seconds = `${(ms / 1000).toFixed(1)}s`;
  if (!summary.ok) return `${where}: FAILED, ${summary.error} (${summary.source}, ${seconds})`;
  const { added, updated, unchanged, removed, skipped } = summary;
  return `${where}: ok, ${added} added, ${updated} updated, ${unchanged} unchanged, ${removed} removed, ${skipped} skipped, ${summary.repairs.length} repaired, ${summary.unusable.length} unusable (${summary.source}, ${seconds})`;
}

/** How much of the served directory (entries listed: not removed, not unusable) has a state and a FHIR version. */
export function coverageLine(sqlite: Database): string {
  const row = entryCoverage(sqlite);
  const percent = (part: number) => (row.n === 0 ? "0.0" : ((100 * part) / row.n).toFixed(1));
  return `${row.n} entries in the directory: state known for ${row.state} (${percent(row.state)} %), fhirVersion for ${row.version} (${percent(row.version)} %)`;
}
