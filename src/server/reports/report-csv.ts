import { FIGURE_NAMES, historyFigures, type ReportCard } from "../../model/report-card";
import { ByteBuffer } from "../http/byte-buffer";

/** The columns before the figures: who the developer is, its lists and its certification. */
const HEAD = [
  "vendorId",
  "vendorName",
  "kind",
  "listUrls",
  "listAsOf",
  "certifiedProducts",
  "activeCertifications",
  "withdrawnCertifications",
  "standardizedApi",
] as const;

/**
 * One row per developer (RFC 4180, CRLF line ends, spreadsheet-safe cells): its id, name and kind, its
 * lists' published URLs joined with ` | `, the newest list read, its certification counts (empty
 * for a health plan), then
 * every figure of its report card by dotted name (`list.listed`, `servers.supports.pkce`, …);
 * an empty cell for null.
 */
export function reportCsv(cards: readonly ReportCard[]): string {
  const out = new ByteBuffer(64 * 1024);
  const row = (cells: readonly (string | number | boolean | null)[]) => {
    cells.forEach((cell, i) => {
      if (i > 0) out.ascii(",");
      if (cell === null) return;
      if (typeof cell === "string") out.csv(cell);
      else out.ascii(String(cell));
    });
    out.ascii("\r\n");
  };
  row([...HEAD, ...FIGURE_NAMES]);
  for (const card of cards) {
    const asOf = card.lists.reduce<string | null>(
      (newest, l) => (l.asOf !== null && (newest === null || l.asOf > newest) ? l.asOf : newest),
      null,
    );
    const figures = historyFigures(card);
    row([
      card.vendorId,
      card.vendorName,
      card.kind,
      card.lists.map((l) => l.publishedUrl).join(" | "),
      asOf,
      card.certification?.products.length ?? null,
      card.certification?.active ?? null,
      card.certification?.withdrawn ?? null,
      card.certification?.standardizedApi ?? null,
      ...FIGURE_NAMES.map((name) => figures[name] ?? null),
    ]);
  }
  return new TextDecoder().decode(out.bytes.subarray(0, out.length));
}
