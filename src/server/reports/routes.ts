import { Elysia, t } from "elysia";
import { dayNumber, dayText } from "../../db/report-history";
import type { Directory } from "../../directory/directory";
import type { DatasetSnapshot } from "../../directory/snapshot";
import { HistoryResponse, VendorReportResponse, VendorReportsResponse } from "../../model/report-card";
import { dataResponse } from "../http/answers";
import { ApiError, validationError } from "../http/api-error";
import { exchanges } from "../http/exchange";
import { PER_ENTRY, routeOptions } from "../http/route-options";
import { API_ERRORS, ErrorEnvelope, NOT_MODIFIED, NoQuery } from "../http/schemas";
import { checkRawQuery, NO_PARAMETERS } from "../http/strict-query";
import { reportCsv } from "./report-csv";

/** How far back a history goes when `from` is not given: a year before `to`. */
const DEFAULT_SPAN_DAYS = 365;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const day = (name: string, description: string) =>
  t.Optional(
    t.String({
      pattern: "^\\d{4}-\\d{2}-\\d{2}$",
      "x-error": `${name}: must be a date, YYYY-MM-DD`,
      description,
      examples: ["2026-01-01"],
    }),
  );

const HistoryQuery = t.Object(
  {
    from: day("from", "The first day (UTC) to include; default: 365 days before `to`."),
    to: day("to", "The last day (UTC) to include; default: the day of the dataset's last write."),
  },
  { additionalProperties: false },
);
const HISTORY_KEYS: ReadonlySet<string> = new Set(["from", "to"]);

const ReportsQuery = t.Object(
  {
    format: t.Optional(
      t.String({
        enum: ["json", "csv"],
        pattern: "^(?:json|csv)$",
        "x-error": "format: must be json or csv",
        description: "`json` (the default) or `csv`: one row per developer, the table a spreadsheet loads.",
      }),
    ),
  },
  { additionalProperties: false },
);
const REPORTS_KEYS: ReadonlySet<string> = new Set(["format"]);

/** Days since the epoch of a valid YYYY-MM-DD, or a 400 naming the parameter. */
function dayParam(name: string, value: string): number {
  const day = DAY.test(value) ? dayNumber(value) : Number.NaN;
  if (!Number.isFinite(day) || new Date(Date.parse(value)).toISOString().slice(0, 10) !== value)
    throw validationError(`${name}: must be a date, YYYY-MM-DD`);
  return day;
}

/** The days a history answers, from its query: `to` defaults to the dataset's day (today if empty). */
function historyRange(snapshot: DatasetSnapshot, query: { from?: string; to?: string }) {
  const asOf = snapshot.reportCards.asOf;
  const to = query.to === undefined ? dayNumber(asOf ?? new Date().toISOString()) : dayParam("to", query.to);
  const from = query.from === undefined ? to - DEFAULT_SPAN_DAYS : dayParam("from", query.from);
  if (from > to) throw validationError("from: must not be after to");
  return { from, to };
}

function cardOf(snapshot: DatasetSnapshot, id: string) {
  const card = snapshot.reportCards.vendors.find((v) => v.vendorId === id);
  if (card === undefined) throw new ApiError(404, "NOT_FOUND", "No vendor has this id (see /api/v1/vendors)");
  return card;
}

const VendorId = t.Object({
  id: t.String({ maxLength: 100, description: "A vendor id of /api/v1/vendors.", examples: ["epic"] }),
});

const FIGURES_DOC =
  "Every figure is defined in docs/api.md, Report cards; they are computed once per dataset version, when its index is built.";

/** Report cards per developer and the directory's history (docs/api.md, "Report cards"). */
export const reportRoutes = (directory: Directory) =>
  new Elysia({ name: "reports", normalize: false })
    .use(routeOptions)
    .use(exchanges)
    .get(
      "/api/v1/vendors/report",
      ({ query, exchange }) => {
        const snapshot = directory.current;
        const { asOf, national, vendors } = snapshot.reportCards;
        return dataResponse(exchange, snapshot, (own) => {
          if (query.format !== "csv")
            return JSON.stringify({ success: true, data: { national, vendors }, meta: { asOf } });
          own["content-type"] = "text/csv; charset=utf-8";
          own["content-disposition"] = 'attachment; filename="developer-report-cards.csv"';
          return reportCsv(vendors);
        });
      },
      {
        query: ReportsQuery,
        transform: ({ request }) => checkRawQuery(request.url, REPORTS_KEYS),
        response: { 200: VendorReportsResponse, ...API_ERRORS },
        detail: {
          summary: "Every developer's report card",
          description: `The report card of every developer (alphabetical, as /api/v1/vendors) and the directory's figures. \`format=csv\`: one row per developer (id, name, lists, certification, then every figure by dotted name). ${FIGURES_DOC}`,
          operationId: "listVendorReports",
          tags: ["Vendors"],
          responses: {
            200: {
              description: "The report cards (JSON), or with `format=csv` one CSV row per developer.",
              content: {
                "application/json": { schema: VendorReportsResponse as object },
                "text/csv": { schema: { type: "string" } },
              },
            },
            304: NOT_MODIFIED,
          },
        },
      },
    )
    .get(
      "/api/v1/vendors/:id/report",
      ({ params, exchange }) => {
        const snapshot = directory.current;
        return dataResponse(exchange, snapshot, () =>
          JSON.stringify({
            success: true,
            data: cardOf(snapshot, params.id),
            meta: { asOf: snapshot.reportCards.asOf },
          }),
        );
      },
      {
        rateLimit: PER_ENTRY as typeof PER_ENTRY,
        params: VendorId,
        query: NoQuery,
        transform: ({ request }) => checkRawQuery(request.url, NO_PARAMETERS),
        response: { 200: VendorReportResponse, ...API_ERRORS, 404: ErrorEnvelope },
        detail: {
          summary: "One developer's report card",
          description: `Its published lists, its certification (CHPL products, (g)(10)), and its servers: distinct URLs, probed, verified, unresponsive, 30-day uptime, capability shares, verdict statuses, certificates expiring, the checks most often failed. Unknown id → 404 NOT_FOUND. ${FIGURES_DOC}`,
          operationId: "getVendorReport",
          tags: ["Vendors"],
          responses: { 304: NOT_MODIFIED },
        },
      },
    )
    .get(
      "/api/v1/vendors/:id/report/history",
      ({ params, query, exchange }) => {
        const snapshot = directory.current;
        return dataResponse(exchange, snapshot, () => {
          const id = cardOf(snapshot, params.id).vendorId;
          const { from, to } = historyRange(snapshot, query);
          return JSON.stringify({
            success: true,
            data: { vendorId: id, points: snapshot.reportHistory(id, from, to) },
            meta: { from: dayText(from), to: dayText(to) },
          });
        });
      },
      {
        rateLimit: PER_ENTRY as typeof PER_ENTRY,
        params: VendorId,
        query: HistoryQuery,
        transform: ({ request }) => checkRawQuery(request.url, HISTORY_KEYS),
        response: { 200: HistoryResponse, ...API_ERRORS, 404: ErrorEnvelope },
        detail: {
          summary: "One developer's report card over time",
          description:
            "Its figures (flattened: `list.listed`, `servers.supports.pkce`, …) as they stood at the end of each UTC day from `from` to `to`, oldest first; one point a day at most, kept as long as the change feed (400 days). A day with no point had no write. Malformed dates or `from` after `to` → 400; unknown id → 404.",
          operationId: "getVendorReportHistory",
          tags: ["Vendors"],
          responses: { 304: NOT_MODIFIED },
        },
      },
    )
    .get(
      "/api/v1/stats/history",
      ({ query, exchange }) => {
        const snapshot = directory.current;
        return dataResponse(exchange, snapshot, () => {
          const { from, to } = historyRange(snapshot, query);
          return JSON.stringify({
            success: true,
            data: { vendorId: null, points: snapshot.reportHistory(null, from, to) },
            meta: { from: dayText(from), to: dayText(to) },
          });
        });
      },
      {
        query: HistoryQuery,
        transform: ({ request }) => checkRawQuery(request.url, HISTORY_KEYS),
        response: { 200: HistoryResponse, ...API_ERRORS },
        detail: {
          summary: "The directory's figures over time",
          description:
            "The whole directory's report-card figures (the `national` part of /api/v1/vendors/report, flattened) per UTC day from `from` to `to`, oldest first; one point a day at most, kept 400 days. Malformed dates or `from` after `to` → 400.",
          operationId: "getStatsHistory",
          tags: ["Statistics"],
          responses: { 304: NOT_MODIFIED },
        },
      },
    );
