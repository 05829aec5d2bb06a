import { loadavg } from "node:os";
import type { WrkResult } from "./wrk";

export const TARGETS = { ratio: 0.25, p99Ms: 20, readyMs: 5000, rssMb: 600 };

export interface ShapeRow {
  key: string;
  label: string;
  path: string;
  /** meta.total of the first answer, for list shapes. */
  total: number | null;
  result: (WrkResult & { cpu: number | null }) | null;
  /** The ceiling measured right after this shape (interleaved mode). */
  ceiling?: WrkResult & { cpu: number | null };
  /** Set when this shape is compared with another ceiling than the small fixed JSON (capabilities: same size). */
  ceilingLabel?: string;
  rssMb: number | null;
  error: string | null;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function rowProblems(row: ShapeRow, ceilingRps: number): string[] {
  if (row.error) return [row.error];
  const r = row.result!;
  const problems: string[] = [];
  if (r.non2xx > 0) problems.push(`${fmt(r.non2xx)} non-2xx`);
  const socket = r.socketErrors.connect + r.socketErrors.read + r.socketErrors.write + r.socketErrors.timeout;
  if (socket > 0) problems.push(`${fmt(socket)} socket errors`);
  if (r.rps < TARGETS.ratio * ceilingRps) problems.push(`< ${TARGETS.ratio * 100} % of ceiling`);
  if (r.p99 > TARGETS.p99Ms) problems.push(`p99 > ${TARGETS.p99Ms} ms`);
  return problems;
}

export function table(headers: string[], rows: string[][], align: ("l" | "r")[]): string {
  const lines = [`| ${headers.join(" | ")} |`, `|${align.map((a) => (a === "r" ? "---:" : "---")).join("|")}|`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

/** The same table for a terminal: padded columns. */
export function plainTable(headers: string[], rows: string[][], align: ("l" | "r")[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (align[i] === "r" ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** This machine's load averages over 1, 5 and 15 minutes, as benches print them: "2.13 1.80 1.42". */
export const loadAverages = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
