/**
 * A developer's view: its report card as bars and its history as lines (plain SVG, each chart an
 * image named by what it shows, its numbers one click away in a table), from
 * GET /api/v1/vendors/:id/report and …/report/history.
 */
import type { Static } from "@sinclair/typebox";
import { APP_KINDS, VERDICT_STATUSES } from "../../../model/capability-rules";
import type { HistoryResponse, VendorReportResponse } from "../../../model/report-card";
import { type Child, h, svg } from "./dom";
import { APP_KIND_LABELS, SUPPORTS_LABELS } from "./labels";

export type ReportCard = Static<typeof VendorReportResponse>["data"];
export type HistoryPoint = Static<typeof HistoryResponse>["data"]["points"][number];

const NUMBER = new Intl.NumberFormat("en-US");
/** A share as a percentage, its sign kept on the number's line (a no-break space). */
const percent = (value: number | null) => (value === null ? "–" : `${Math.round(value * 1000) / 10}\u00a0%`);

const LIST_SHARE_LABELS: Record<keyof ReportCard["list"]["shares"], string> = {
  organizationName: "Organization name",
  npi: "NPI",
  zipCode: "ZIP code",
  state: "State",
  https: "https URL",
  statedFhirVersion: "FHIR version stated",
};

/** Numbers behind a chart, one click away. */
function numbers(summary: string, head: string[], rows: Child[][]): HTMLElement {
  return h(
    "details",
    { class: "numbers" },
    h("summary", {}, summary),
    h(
      "div",
      { class: "scroll", tabindex: "0", role: "region", "aria-label": summary },
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, ...head.map((text) => h("th", { scope: "col" }, text)))),
        h(
          "tbody",
          {},
          ...rows.map(([first, ...rest]) =>
            h("tr", {}, h("th", { scope: "row" }, first), ...rest.map((cell) => h("td", {}, cell))),
          ),
        ),
      ),
    ),
  );
}

/** Shares as horizontal bars from 0 to 100 %, one image named by every bar. */
function shareBars(name: string, shares: [label: string, value: number | null][]): HTMLElement {
  const rowHeight = 24;
  const labelWidth = 150;
  const barWidth = 160;
  const chart = svg("svg", {
    viewBox: `0 0 ${labelWidth + barWidth + 60} ${shares.length * rowHeight}`,
    width: "100%",
    role: "img",
    "aria-label": `${name}: ${shares.map(([label, value]) => `${label} ${percent(value)}`).join(", ")}`,
    class: "bars",
  });
  shares.forEach(([label, value], i) => {
    const y = i * rowHeight;
    const length = value === null ? 0 : Math.max(value > 0 ? 2 : 0, Math.round(value * barWidth));
    chart.append(
      svg("text", { x: labelWidth - 6, y: y + 16, "text-anchor": "end", class: "bar-label" }, label),
      svg("rect", { x: labelWidth, y: y + 4, width: barWidth, height: 16, rx: 2, class: "bar-track" }),
      svg("rect", { x: labelWidth, y: y + 4, width: length, height: 16, rx: 2, class: "bar" }),
      svg("text", { x: labelWidth + barWidth + 5, y: y + 16, class: "bar-value" }, percent(value)),
    );
  });
  return h(
    "figure",
    {},
    h("figcaption", {}, name),
    chart,
    numbers(
      `${name}: the numbers`,
      ["", "Share"],
      shares.map(([label, value]) => [label, percent(value)]),
    ),
  );
}

/** One or more series over days as lines, one image named by first and last values. */
function lineChart(
  name: string,
  points: HistoryPoint[],
  series: [label: string, figure: string, format: (v: number | null) => string][],
): HTMLElement {
  const width = 360;
  const height = 140;
  const pad = { left: 48, right: 8, top: 10, bottom: 22 };
  const values = series.flatMap(([, figure]) => points.map((p) => p.figures[figure] ?? null));
  const max = Math.max(1e-9, ...values.filter((v): v is number => v !== null));
  const x = (i: number) =>
    pad.left + (points.length < 2 ? 0 : (i / (points.length - 1)) * (width - pad.left - pad.right));
  const y = (v: number) => pad.top + (1 - v / max) * (height - pad.top - pad.bottom);
  const first = points[0];
  const last = points[points.length - 1];
  const described = series
    .map(
      ([label, figure, format]) =>
        `${label} from ${format(first?.figures[figure] ?? null)} to ${format(last?.figures[figure] ?? null)}`,
    )
    .join("; ");
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width: "100%",
    role: "img",
    "aria-label": `${name}, ${first?.day ?? ""} to ${last?.day ?? ""}: ${described}`,
    class: "lines",
  });
  chart.append(
    svg("line", {
      x1: pad.left,
      x2: width - pad.right,
      y1: height - pad.bottom,
      y2: height - pad.bottom,
      class: "axis",
    }),
    svg("line", { x1: pad.left, x2: pad.left, y1: pad.top, y2: height - pad.bottom, class: "axis" }),
    // The values of the side axis, in the first series' own format (a share or a count).
    svg("text", { x: pad.left - 4, y: pad.top + 4, "text-anchor": "end", class: "axis-label" }, series[0]![2](max)),
    svg(
      "text",
      { x: pad.left - 4, y: height - pad.bottom, "text-anchor": "end", class: "axis-label" },
      series[0]![2](0),
    ),
    svg("text", { x: pad.left, y: height - 6, class: "axis-label" }, first?.day ?? ""),
    svg("text", { x: width - pad.right, y: height - 6, "text-anchor": "end", class: "axis-label" }, last?.day ?? ""),
  );
  series.forEach(([, figure], s) => {
    let d = "";
    points.forEach((p, i) => {
      const v = p.figures[figure];
      if (v === null || v === undefined) return;
      d += `${d === "" ? "M" : "L"}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
    });
    if (d !== "") chart.append(svg("path", { d, class: `line line-${s}` }));
  });
  return h(
    "figure",
    {},
    h("figcaption", {}, name, ...series.map(([label], s) => h("span", { class: `key key-${s}` }, label))),
    chart,
    numbers(
      `${name}: the numbers`,
      ["Day", ...series.map(([label]) => label)],
      [...points]
        .reverse()
        .map((p) => [p.day, ...series.map(([, figure, format]) => format(p.figures[figure] ?? null))]),
    ),
  );
}

const count = (v: number | null) => (v === null ? "–" : NUMBER.format(v));

/**
 * A list as a person names it: where it is published, without the scheme ("open.epic.com/Endpoints/R4"),
 * and the entries its last read found; not the registry's internal id.
 */
function listName(list: ReportCard["lists"][number]): string {
  const where = list.publishedUrl.replace(/^https?:\/\//, "").replace(/\/$/, "");
  return list.entries === null ? where : `${where} (${NUMBER.format(list.entries)} entries)`;
}

/** The developer's view: its list, certification, servers, and history. */
export function developerView(card: ReportCard, asOf: string | null, history: HistoryPoint[]): HTMLElement[] {
  const { list, certification, servers } = card;
  const generated = history.some((p) => p.generated === true);
  const section = (id: string, title: string, ...children: Child[]) =>
    h("section", { "aria-labelledby": id }, h("h3", { id }, title), ...children);
  return [
    h(
      "p",
      { class: "muted" },
      `Report card as of ${asOf === null ? "no data" : asOf.slice(0, 10)}. `,
      h("a", { href: `/api/v1/vendors/${encodeURIComponent(card.vendorId)}/report` }, "The figures as JSON"),
      " · ",
      h("a", { href: "/api/v1/vendors/report?format=csv" }, "every developer as CSV"),
    ),
    section(
      "report-list",
      "Its published list",
      h(
        "p",
        {},
        `${NUMBER.format(list.listed)} entries listed, ${NUMBER.format(list.unusable)} unusable. `,
        card.lists.length === 1 ? "Its list: " : `Its ${card.lists.length} lists: `,
        ...card.lists.flatMap((l, i): Child[] => [i > 0 ? ", " : "", h("a", { href: l.publishedUrl }, listName(l))]),
      ),
      shareBars(
        "Listed entries that give each field",
        (Object.keys(LIST_SHARE_LABELS) as (keyof typeof LIST_SHARE_LABELS)[]).map((k) => [
          LIST_SHARE_LABELS[k],
          list.shares[k],
        ]),
      ),
    ),
    section(
      "report-certification",
      "Its certification",
      certification === null
        ? h(
            "p",
            { class: "muted" },
            "A health plan: its Patient Access API is not certified health IT (no CHPL record).",
          )
        : certification.products.length === 0
          ? h("p", { class: "muted" }, "No certified product known for its lists.")
          : numbers(
              `${certification.active} active, ${certification.withdrawn} withdrawn; standardized API (g)(10): ${certification.standardizedApi ? "yes" : "no"}`,
              ["Product", "Version", "Status", "(g)(10)"],
              certification.products.map((p) => [p.product, p.version, p.status, p.standardizedApi ? "yes" : "no"]),
            ),
    ),
    section(
      "report-servers",
      "Its servers",
      h(
        "p",
        {},
        `${count(servers.urls)} distinct URLs: ${count(servers.probed)} probed, ${count(servers.verified)} verified, ${count(servers.unresponsive)} unresponsive. 30-day uptime: median ${percent(servers.uptime30d.median)}, worst tenth ${percent(servers.uptime30d.worstDecile)}. Certificates expiring within 30 days: ${count(servers.certificates.expiringWithin30Days)}, expired: ${count(servers.certificates.expired)}.`,
      ),
      servers.probed === 0
        ? h("p", { class: "note" }, "None of its servers has been probed yet: what they support is not known.")
        : shareBars(
            "Verified URLs that support each capability",
            Object.entries(SUPPORTS_LABELS).map(([value, label]) => [
              label,
              (servers.supports as Record<string, number | null>)[value] ?? null,
            ]),
          ),
      numbers(
        "URLs per verdict status",
        ["App kind", ...VERDICT_STATUSES],
        APP_KINDS.map((kind) => [
          APP_KIND_LABELS[kind],
          ...VERDICT_STATUSES.map((s) => count((servers.verdicts[kind] as Record<string, number>)[s] ?? 0)),
        ]),
      ),
    ),
    section(
      "report-history",
      "Over time",
      generated && h("p", { class: "note" }, "Demo data: the points before today are generated, not recorded."),
      ...(history.length < 2
        ? [h("p", { class: "muted" }, "Not enough history yet: a point is kept each day the directory is written.")]
        : [
            lineChart("Entries and verified URLs", history, [
              ["Listed entries", "list.listed", count],
              ["Verified URLs", "servers.verified", count],
            ]),
            lineChart("Verified URLs with PKCE", history, [["PKCE S256", "servers.supports.pkce", percent]]),
          ]),
    ),
  ];
}
