import type { ListSummary } from "./index";

const COLUMNS = ["vendor", "list", "result", "added", "updated", "unchanged", "removed", "skipped"] as const;

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
  ]);
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i >= 3 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const failures = summaries.filter((s) => !s.ok).map((s) => `  ${s.listId}: ${s.error}`);
  return [
    line(COLUMNS),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map(line),
    ...(failures.length ? ["", "Failures:", ...failures] : []),
  ].join("\n");
}

/** One line per list while the command runs. */
export function progressLine(index: number, total: number, summary: ListSummary, ms: number): string {
  const where = `[${index}/${total}] ${summary.vendorId} / ${summary.listId}`;
  const seconds = `${(ms / 1000).toFixed(1)}s`;
  if (!summary.ok) return `${where}: FAILED, ${summary.error} (${seconds})`;
  const { added, updated, unchanged, removed, skipped } = summary;
  return `${where}: ok, ${added} added, ${updated} updated, ${unchanged} unchanged, ${removed} removed, ${skipped} skipped (${seconds})`;
}
