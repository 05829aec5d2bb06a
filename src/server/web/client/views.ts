import type { Static } from "@sinclair/typebox";
import { APP_KINDS, type AppKind, CAPABILITY_SET_NAMES, CHECKS } from "../../../model/capability-rules";
import type { CapabilityStats as CapabilityStatsRecord } from "../../../model/capability-schemas";
import type { CapabilitiesSchema, EndpointRecord } from "../../../model/endpoints";
import type { VendorKind } from "../../../model/vendors";
import { type Child, h, svg } from "./dom";
import { APP_KIND_LABELS, OUTCOME_LABELS, SUPPORTS_LABELS, VENDOR_KIND_LABELS, verdictStatusLabel } from "./labels";
import { uptimeText } from "./rows";
import {
  emptyFilters,
  endpointUrl,
  exportUrl,
  MAX_PAGE,
  PAGE_SIZE,
  pageCount,
  pageUrl,
  type SearchState,
} from "./state";

export interface Vendor {
  id: string;
  name: string;
  kind: VendorKind;
  endpointCount: number;
}

export interface Stats {
  totalEndpoints: number;
  vendorCount: number;
  fhirVersionCounts: Record<string, number>;
  lastUpdated: string | null;
}

/** What the page reads of GET /api/v1/endpoints/:id/capabilities. */
export type Capabilities = Pick<
  Static<typeof CapabilitiesSchema>,
  "lastProbed" | "probeStatus" | "summary" | "checks" | "verdict"
>;

/** What the page reads of GET /api/v1/stats/capabilities. */
export type CapabilityStats = Pick<CapabilityStatsRecord, "vendors" | "endpoints" | "verdict">;

/** How to get probe results, for a directory that has none: the operator's command and the demo. */
const HOW_TO_PROBE =
  "A probe reads each server's /metadata and SMART configuration (bun run probe); the demo dataset (bun run data:sample) has probed servers.";

/**
 * What a capability search that matches nothing should add, when probes are why: capability
 * filters match probed servers only. Null when every entry has been probed.
 */
export function unprobedNote(stats: CapabilityStats): string | null {
  const unprobed = stats.verdict.patientApps.unknown;
  if (unprobed === 0) return null;
  if (unprobed >= stats.endpoints)
    return `Nothing is known of what these servers support: none of the ${count(stats.endpoints, "production entry", "production entries")} has been probed yet. ${HOW_TO_PROBE}`;
  return `Only probed servers can match: ${NUMBER.format(stats.endpoints - unprobed)} of the ${count(stats.endpoints, "production entry", "production entries")} have been probed.`;
}

/** The overview's per-developer section when no developer has a verified server yet. */
export const noProbesYet = (stats: CapabilityStats) =>
  h(
    "p",
    { class: "note" },
    `No server has been probed yet (${count(stats.endpoints, "production entry", "production entries")} listed), so no share is known. ${HOW_TO_PROBE}`,
  );

/** What the page reads of GET /api/v1/endpoints/:id/source. */
export interface Source {
  list: { publishedAt: string; readFrom: string | object; asOf: string | null } | null;
  fields: { fhirVersion: string | null };
}

export interface Availability {
  uptime: Record<"1d" | "7d" | "30d" | "365d", number | null>;
  responseTimeMs: { median: number | null; p95: number | null };
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  recent: {
    at: string;
    outcome: string;
    httpStatus: number | null;
    responseTimeMs: number | null;
    error: string | null;
  }[];
}

const NUMBER = new Intl.NumberFormat("en-US");
const STATUS_TEXT: Record<string, string> = {
  verified: "Verified",
  listed: "Listed, not verified",
  unresponsive: "Unresponsive",
  removed: "Removed from the vendor's list",
};
const NO_NAME = "No organization name";

export const count = (n: number, one: string, many = `${one}s`) => `${NUMBER.format(n)} ${n === 1 ? one : many}`;

export function formatDate(iso: string | null): string {
  if (iso === null) return "never";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

const statusBadge = (status: string) =>
  h(
    "span",
    { class: `status status-${Object.hasOwn(STATUS_TEXT, status) ? status : "other"}` },
    STATUS_TEXT[status] ?? status,
  );

/**
 * A URL as text that wraps where a person reads it in parts: after each `/` and `.` (a `<wbr>`
 * there), never inside a word while those remain (the stylesheet breaks a part longer than the
 * line only as a last resort).
 */
function breakableUrl(url: string): HTMLElement {
  const code = h("code", { class: "url" });
  for (const part of url.split(/(?<=[/.])/)) {
    code.append(part);
    if (/[/.]$/.test(part)) code.append(h("wbr"));
  }
  return code;
}

const copyButton = (url: string, what: string) =>
  h("button", { type: "button", class: "copy", "data-copy": url, "aria-label": `Copy the URL of ${what}` }, "Copy");

/** Where an entry is, as a person names a place: "City, ST" (or whichever of the two is known); never a bare ZIP. */
const place = (r: Pick<EndpointRecord, "city" | "state">) => [r.city, r.state].filter(Boolean).join(", ");

/** The full published address, ZIP included ("City, ST 02114"), for the detail view. */
const address = (r: EndpointRecord) =>
  [r.city, [r.state, r.zipCode].filter(Boolean).join(" ")].filter(Boolean).join(", ");

/** A FHIR version as the page spells it everywhere: the release, or "Unknown". */
export const versionLabel = (version: string) => (version === "UNKNOWN" ? "Unknown" : version);

/** The title of a version inferred from the developer's certification. */
const INFERRED_TITLE = "Not seen in the list, the URL or a probe: inferred from the developer's certification";

/**
 * The FHIR version of a result row: "R4", or "R4 (inferred)" when the list's `meta` says it was
 * only inferred from the developer's certification (basis `certification`).
 */
const rowVersion = (version: string, basis: string | undefined): Child =>
  basis === "certification"
    ? h("span", { class: "inferred", title: INFERRED_TITLE }, `${versionLabel(version)} (inferred)`)
    : versionLabel(version);

/**
 * "Carepaths' list", "Epic Systems' list", "Veradigm's list": the possessive of a name, an
 * apostrophe alone after a final s.
 */
const possessive = (name: string) => (/s$/i.test(name) ? `${name}'` : `${name}'s`);

/** The label of a test, demo, sandbox… entry (docs/api.md, Environment). */
const NON_PRODUCTION_LABEL = () =>
  h(
    "span",
    {
      class: "status status-nonproduction",
      title: "A test, QA, demo, sandbox, development, staging or training server, or a placeholder organization",
    },
    "Non-production",
  );

/** What each kind of URL repair means (docs/api.md, Enrichment), as the page says it. */
const URL_REPAIR_TEXT: Record<NonNullable<EndpointRecord["urlRepair"]>, string> = {
  cleaned: "Repaired URL: stray characters the list published were removed",
  "scheme-assumed": "Repaired URL: the list gave no scheme; https was assumed",
  "host-guessed": "Guessed URL: the list gave a path without a host; the host is a guess until a probe verifies it",
};

/** The mark of a URL the list did not publish as served: "Guessed URL" or "Repaired URL", its meaning as title. */
const urlRepairMark = (repair: NonNullable<EndpointRecord["urlRepair"]>) =>
  h(
    "span",
    { class: "status status-repaired", title: URL_REPAIR_TEXT[repair] },
    repair === "host-guessed" ? "Guessed URL" : "Repaired URL",
  );

/**
 * One result row: organization (a link to its detail), vendor, place (and, near a ZIP, `miles`
 * from it: the list's `meta.distance`), URL with copy button, FHIR version (marked when
 * inferred, `basis` from the list's `meta.fhirVersionBasis`), status.
 */
export function resultRow(record: EndpointRecord, state: SearchState, basis?: string, miles?: number): HTMLLIElement {
  const name = record.organizationName ?? NO_NAME;
  const where = [place(record), miles === undefined ? "" : `${miles.toFixed(1)}\u00a0mi away`]
    .filter(Boolean)
    .join(" · ");
  return h(
    "li",
    { class: "result" },
    h(
      "div",
      { class: "result-main" },
      h(
        "h3",
        { class: `org${record.organizationName === null ? " unnamed" : ""}` },
        h("a", { href: pageUrl({ ...state, id: record.id }), "data-nav": "detail", "data-id": record.id }, name),
      ),
      h("p", { class: "vendor" }, record.vendorName, where ? ` · ${where}` : ""),
    ),
    h(
      "div",
      { class: "url-line" },
      breakableUrl(record.url),
      copyButton(record.url, name),
      record.urlRepair !== undefined && urlRepairMark(record.urlRepair),
    ),
    h(
      "dl",
      { class: "facts" },
      h("div", {}, h("dt", {}, "FHIR"), h("dd", {}, rowVersion(record.fhirVersion, basis))),
      h("div", {}, h("dt", {}, "Status"), h("dd", {}, statusBadge(record.status))),
      record.environment === "non-production" &&
        h("div", {}, h("dt", {}, "Environment"), h("dd", {}, NON_PRODUCTION_LABEL())),
      h("div", { class: "ready-for", hidden: "" }, h("dt", {}, "Ready for"), h("dd", { "data-ready-url": record.url })),
    ),
  );
}

/** Fills a row's "Ready for" with a badge per app kind whose verdict is ready (none: the field stays hidden). */
export function showReadiness(row: Element, kinds: AppKind[]) {
  const dd = row.querySelector("[data-ready-url]");
  if (dd === null || kinds.length === 0) return;
  dd.replaceChildren(...kinds.map((kind) => h("span", { class: "badge badge-ready" }, APP_KIND_LABELS[kind])));
  dd.parentElement?.removeAttribute("hidden");
}

/** Previous / page n of m / next, as links carrying the whole search. */
export function pagerLinks(state: SearchState, total: number): Child[] {
  const pages = pageCount(total);
  if (total <= PAGE_SIZE && state.page === 1) return [];
  const link = (page: number, text: string, rel: string, enabled: boolean) =>
    enabled
      ? h("a", { href: pageUrl({ ...state, page, id: null }), rel, "data-nav": "page" }, text)
      : h("span", { class: "disabled", "aria-disabled": "true" }, text);
  return [
    link(state.page - 1, "‹ Previous", "prev", state.page > 1),
    h("span", { class: "page-of" }, `Page ${NUMBER.format(state.page)} of ${NUMBER.format(pages)}`),
    link(state.page + 1, "Next ›", "next", state.page < Math.min(pages, MAX_PAGE)),
  ];
}

/**
 * The home page's developers, most endpoints first, each a link to its entries; and what to
 * search by, with a link to every entry in the list's order.
 */
export function developerRows(vendors: Vendor[]): HTMLElement[] {
  return vendors
    .filter((vendor) => vendor.endpointCount > 0)
    .sort((a, b) => b.endpointCount - a.endpointCount || a.name.localeCompare(b.name))
    .map((vendor) =>
      h(
        "li",
        { class: "result developer-row" },
        h(
          "h3",
          {},
          h(
            "a",
            { href: pageUrl({ filters: { ...emptyFilters(), vendor: vendor.id }, page: 1, id: null }), "data-nav": "" },
            vendor.name,
          ),
        ),
        h("p", { class: "vendor" }, `${count(vendor.endpointCount, "endpoint")} · ${VENDOR_KIND_LABELS[vendor.kind]}`),
      ),
    );
}

/** What the home page says above its developers. */
export function homeSummary(total: number, developers: number): HTMLElement {
  return h(
    "span",
    {},
    `${count(total, "endpoint")} from ${count(developers, "developer")}. Search above by an organization's name, an NPI, a web address or "near" and a ZIP, or open a developer's entries below (most endpoints first). `,
    h(
      "a",
      { href: pageUrl({ filters: emptyFilters(), page: 1, id: null, sort: "name" }), "data-nav": "" },
      "List every endpoint",
    ),
    ".",
  );
}

export function resultsSummary(state: SearchState, total: number, shown: number): string {
  if (total === 0) return "No endpoint matches this search.";
  const matches = `${count(total, "endpoint")} ${total === 1 ? "matches" : "match"}`;
  const limit = pagedLimit(total);
  if (shown === 0) return `${matches}; page ${state.page} is past the last page, ${pageCount(total)}.${limit}`;
  const first = (state.page - 1) * PAGE_SIZE + 1;
  return `${matches}. Showing ${NUMBER.format(first)}–${NUMBER.format(first + shown - 1)}, page ${state.page} of ${pageCount(total)}.${limit}`;
}

/** The most matches the pages reach: the API pages no further than page 1,000. */
const PAGEABLE = MAX_PAGE * PAGE_SIZE;

/** " Only the first 25,000 can be paged here: the export has all 40,611." when the pages do not reach them all; else "". */
const pagedLimit = (total: number) =>
  total > PAGEABLE
    ? ` Only the first ${NUMBER.format(PAGEABLE)} can be paged here: the export has all ${NUMBER.format(total)}.`
    : "";

/** Links to the export of this search, every match (CSV, NDJSON, FHIR); null when nothing matches. */
export function exportLinks(state: SearchState, total: number): HTMLElement | null {
  if (total === 0) return null;
  const link = (format: "csv" | "ndjson" | "fhir", text: string) =>
    h("a", { href: exportUrl(state, format), download: "" }, text);
  return h(
    "span",
    { class: "export-all" },
    total === 1 ? "Download this result: " : `Download these ${NUMBER.format(total)} results: `,
    link("csv", "CSV"),
    ", ",
    link("ndjson", "NDJSON"),
    ", ",
    link("fhir", "FHIR Bundle"),
  );
}

const row = (label: string, ...value: Child[]) => h("div", {}, h("dt", {}, label), h("dd", {}, ...value));
const chips = (values: string[], none: string) =>
  values.length === 0
    ? h("span", { class: "muted" }, none)
    : h("ul", { class: "chips" }, ...values.map((value) => h("li", {}, value)));

/** "R4", or "R4, inferred" when the version was not seen, only inferred from the developer's certification. */
const versionText = (r: EndpointRecord, source: Source | null) =>
  source?.fields.fhirVersion === "developer"
    ? h("span", { title: INFERRED_TITLE }, `${versionLabel(r.fhirVersion)}, inferred`)
    : versionLabel(r.fhirVersion);

/** "From Epic's list, as of Apr 22, 2024, via ONC Lantern's copy". */
function provenanceLine(r: EndpointRecord, source: Source | null): Child {
  const list = source?.list;
  if (!list) return h("span", { class: "muted" }, "not known");
  const viaLantern =
    typeof list.readFrom === "object" || list.readFrom.includes("github.com/onc-healthit/lantern-back-end");
  return h(
    "span",
    {},
    "From ",
    h("a", { href: list.publishedAt, rel: "noopener noreferrer" }, `${possessive(r.vendorName)} list`),
    list.asOf ? `, as of ${formatDate(list.asOf)}` : "",
    viaLantern ? ", via ONC Lantern's copy" : "",
  );
}

/** Why an unusable entry is not listed, as the page says it ("Not usable: host is localhost"). */
const notUsableText = (unusable: { reason: string; detail: string | null }) =>
  `Not usable: ${unusable.detail ?? unusable.reason}`;

/**
 * The record of an entry; an unusable one (its answer's `meta.unusable`) shows why instead of its
 * status, and no Copy button: its URL is not one to use.
 */
export function recordSection(
  r: EndpointRecord,
  source: Source | null = null,
  unusable: { reason: string; detail: string | null } | null = null,
  /** Its developer's kind (from /api/v1/vendors), null when not known. */
  kind: VendorKind | null = null,
): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": "record-heading" },
    h("h3", { id: "record-heading" }, "Record"),
    h(
      "dl",
      { class: "pairs" },
      row(
        "FHIR base URL",
        breakableUrl(r.url),
        unusable === null && " ",
        unusable === null && copyButton(r.url, r.organizationName ?? NO_NAME),
      ),
      r.urlRepair !== undefined && row("URL", urlRepairMark(r.urlRepair), " ", URL_REPAIR_TEXT[r.urlRepair]),
      row("Vendor", r.vendorName),
      kind !== null && row("Kind", VENDOR_KIND_LABELS[kind]),
      row("Organization", r.organizationName ?? h("span", { class: "muted" }, "not published")),
      r.npi !== null && row("NPI", r.npi),
      r.tenantId !== null && row("Tenant", h("code", {}, r.tenantId)),
      row("FHIR version", versionText(r, source)),
      row("Audience", r.access.length ? r.access.join(", ") : h("span", { class: "muted" }, "not stated")),
      row("Location", address(r) || h("span", { class: "muted" }, "not published")),
      row(
        "Status",
        unusable === null
          ? statusBadge(r.status)
          : h("span", { class: "status status-unusable" }, notUsableText(unusable)),
      ),
      row("Environment", r.environment === "non-production" ? NON_PRODUCTION_LABEL() : "Production"),
      row("Last updated", formatDate(r.lastUpdated)),
      row("Source", provenanceLine(r, source)),
      row("Id", h("code", { class: "id" }, r.id)),
    ),
  );
}

const RESOURCES_SHOWN = 24;

/** What the first probe of an entry will add to its page. */
const STILL_TO_COME = `Still to come, once the directory has read its /metadata and /.well-known/smart-configuration: its software and FHIR version, SMART capabilities and grant types, US Core and bulk export, its resources, and ${CHECKS.length} conformance checks.`;

/**
 * The verdict's `unknown` with a probe behind it: the probe read neither document, and the
 * reason says why (the stored probe's cause). Null when a document was read or nothing was probed.
 */
const failedProbe = (c: Pick<Capabilities, "probeStatus" | "verdict">): string | null =>
  c.probeStatus !== "unchecked" && c.verdict.patientApps.status === "unknown"
    ? (c.verdict.patientApps.reasons[0] ?? "the last probe read neither document")
    : null;

export function capabilitiesSection(c: Capabilities): HTMLElement {
  const s = c.summary;
  const software = [s.softwareName, s.softwareVersion].filter(Boolean).join(" ");
  const resources = s.supportedResources;
  const failed = failedProbe(c);
  // Nothing was read: say what is to come, or why the probe failed, rather than count checks that cannot apply.
  if (c.probeStatus === "unchecked" || failed !== null)
    return h(
      "section",
      { "aria-labelledby": "capabilities-heading" },
      h("h3", { id: "capabilities-heading" }, "Capabilities"),
      c.probeStatus === "unchecked"
        ? h("p", { class: "not-probed" }, "Not probed yet. ", STILL_TO_COME)
        : h(
            "p",
            { class: "probe-failed" },
            `Last probe ${formatDate(c.lastProbed)} ${failed!.replace(/^the last probe /, "")}.`,
            " No document was read, so there are no facets, and no checks could run.",
          ),
    );
  return h(
    "section",
    { "aria-labelledby": "capabilities-heading" },
    h("h3", { id: "capabilities-heading" }, "Capabilities"),
    h(
      "dl",
      { class: "pairs" },
      row("Last probe", `${formatDate(c.lastProbed)}: ${c.probeStatus}`),
      row("Software", software || h("span", { class: "muted" }, "not reported")),
      row("FHIR version", s.fhirVersion ?? h("span", { class: "muted" }, "not reported")),
      row("SMART on FHIR", s.smartSupported ? "Supported" : "No SMART configuration found"),
      row("SMART capabilities", chips(s.smartCapabilities, "none published")),
      row("Grant types", chips(s.grantTypes, "none published")),
      row("US Core", s.usCore.declared ? s.usCore.versions.join(", ") || "declared, no version" : "not declared"),
      row("Bulk export", chips(bulkLevels(s.bulkData), "not declared")),
      row("Health plan data", chips(payerFacets(s.payer), "none declared")),
      row("SMART facets", chips(smartFacets(s.smart), "none")),
      row(
        `Resources (${NUMBER.format(s.supportedResourceCount)})`,
        chips(resources.slice(0, RESOURCES_SHOWN), "none reported"),
        resources.length > RESOURCES_SHOWN &&
          h(
            "details",
            {},
            h("summary", {}, `Show ${NUMBER.format(resources.length - RESOURCES_SHOWN)} more`),
            chips(resources.slice(RESOURCES_SHOWN), ""),
          ),
      ),
    ),
    checksSection(c.checks),
  );
}

const bulkLevels = (b: Capabilities["summary"]["bulkData"]) =>
  (["system", "group", "patient"] as const).filter((level) => b[level]).map((level) => `${level} level`);

/** The payer guides declared (with their versions) and ExplanationOfBenefit, as the page names them. */
function payerFacets(p: Capabilities["summary"]["payer"]): string[] {
  const guides: [Capabilities["summary"]["payer"]["pdex"], string][] = [
    [p.carinBlueButton, SUPPORTS_LABELS["carin-bb"]],
    [p.pdex, SUPPORTS_LABELS["davinci-pdex"]],
    [p.planNet, SUPPORTS_LABELS["plan-net"]],
  ];
  const declared = guides.flatMap(([guide, label]) => (guide.declared ? [[label, ...guide.versions].join(" ")] : []));
  return p.explanationOfBenefit ? [...declared, SUPPORTS_LABELS["explanation-of-benefit"]] : declared;
}

const smartFacets = (s: Capabilities["summary"]["smart"]) =>
  [
    s.v1 && "SMART v1",
    s.v2 && SUPPORTS_LABELS["smart-v2"],
    s.pkceS256 && SUPPORTS_LABELS.pkce,
    s.pkcePlain && "PKCE plain (forbidden)",
    s.launchEhr && SUPPORTS_LABELS["launch-ehr"],
    s.launchStandalone && SUPPORTS_LABELS["launch-standalone"],
    s.backendServices && SUPPORTS_LABELS["backend-services"],
  ].filter((text): text is string => typeof text === "string");

/**
 * Can my app connect here: the answer a person opens an entry for, shown first. Each app kind's
 * verdict with the SMART capability sets it rests on, its notes and the reasons it is not ready;
 * an unprobed entry says once that nothing is known yet, a failed probe once why it failed.
 */
export function verdictSection(c: Pick<Capabilities, "probeStatus" | "verdict">): HTMLElement {
  const failed = failedProbe(c);
  return h(
    "section",
    { "aria-labelledby": "verdict-heading", class: "verdict" },
    h("h3", { id: "verdict-heading" }, "Can an app connect?"),
    c.probeStatus === "unchecked"
      ? h(
          "p",
          { class: "not-probed" },
          h("span", { class: "badge badge-unknown" }, "Not probed yet"),
          " Whether patient apps, provider apps or backend services can connect is known once the directory has read this server's /metadata and SMART configuration.",
        )
      : failed !== null
        ? h(
            "p",
            { class: "probe-failed" },
            h("span", { class: "badge badge-unknown" }, "Unknown"),
            ` Whether any app can connect is not known: ${failed}.`,
          )
        : h(
            "dl",
            { class: "pairs" },
            ...APP_KINDS.map((kind) => {
              const v = c.verdict[kind];
              return row(
                APP_KIND_LABELS[kind],
                h(
                  "span",
                  { class: `badge badge-${v.status}`, title: verdictStatusLabel(v.status).meaning },
                  verdictStatusLabel(v.status).label,
                ),
                v.sets.length > 0 &&
                  h(
                    "p",
                    { class: "sets" },
                    `SMART ${v.sets.length === 1 ? "set" : "sets"}: ${v.sets.map((set) => CAPABILITY_SET_NAMES[set as keyof typeof CAPABILITY_SET_NAMES] ?? set).join("; ")}`,
                  ),
                v.notes.length > 0 && h("ul", { class: "notes" }, ...v.notes.map((note) => h("li", {}, note))),
                v.reasons.length > 0 &&
                  h("ul", { class: "reasons" }, ...v.reasons.map((reason) => h("li", {}, reason))),
              );
            }),
          ),
  );
}

const CHECK_MARK = (ok: boolean | null) => (ok === null ? "–" : ok ? "✓" : "✗");
const CHECK_WORD = (ok: boolean | null) => (ok === null ? "cannot apply" : ok ? "passes" : "fails");

/** Every conformance check with what was found. */
function checksSection(checks: Capabilities["checks"]): HTMLElement {
  return h(
    "details",
    { class: "checks" },
    h(
      "summary",
      {},
      `Checks: ${checks.filter((c) => c.ok === true).length} pass, ${checks.filter((c) => c.ok === false).length} fail, ${checks.filter((c) => c.ok === null).length} cannot apply`,
    ),
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Check"),
          h("th", { scope: "col" }, "Result"),
          h("th", { scope: "col" }, "Found"),
        ),
      ),
      h(
        "tbody",
        {},
        ...checks.map((c) =>
          h(
            "tr",
            { class: `check check-${c.ok === null ? "na" : c.ok ? "ok" : "failed"}`, "data-check": c.id },
            h("th", { scope: "row" }, h("code", {}, c.id)),
            h("td", { "aria-label": CHECK_WORD(c.ok) }, CHECK_MARK(c.ok)),
            h("td", {}, c.detail),
          ),
        ),
      ),
    ),
  );
}

/** A share as a whole percentage ("41 %"), "–" of nothing. */
const share = (part: number, whole: number) => (whole === 0 ? "–" : `${Math.round((part / whole) * 100)} %`);

/** Width of a share's bar in the per-developer table, in SVG units. */
const SHARE_BAR = 44;

/** A share drawn as a bar under its figure; the bar is decoration (the figure says it), so hidden from screen readers. */
const shareCell = (part: number, whole: number) =>
  h(
    "td",
    {},
    h("span", { class: "share-figure" }, share(part, whole)),
    svg(
      "svg",
      { class: "share-bar", viewBox: `0 0 ${SHARE_BAR} 6`, width: SHARE_BAR, height: 6, "aria-hidden": "true" },
      svg("rect", { class: "share-track", x: 0, y: 0, width: SHARE_BAR, height: 6, rx: 1 }),
      svg("rect", {
        class: "bar",
        x: 0,
        y: 0,
        width: whole === 0 ? 0 : Math.round((part / whole) * SHARE_BAR),
        height: 6,
        rx: 1,
      }),
    ),
  );

/**
 * Per developer: verified endpoints and the share of them with PKCE, SMART v2, bulk export, ready
 * for patient apps, each a figure with a bar under it; sized to the sidebar (fixed columns, names
 * wrapping), so it fits from 320 px up without scrolling.
 */
export function readinessTable(stats: CapabilityStats, shown = 12): HTMLElement {
  const rows = [...stats.vendors]
    .filter((v) => v.verified > 0)
    .sort((a, b) => b.verified - a.verified)
    .slice(0, shown);
  // Short headings (the sidebar is narrow), each with its full name.
  const columns: [string, string, (v: CapabilityStats["vendors"][number]) => number][] = [
    ["PKCE", SUPPORTS_LABELS.pkce, (v) => v.supports.pkce],
    ["v2", SUPPORTS_LABELS["smart-v2"], (v) => v.supports["smart-v2"]],
    ["Bulk", SUPPORTS_LABELS["bulk-export"], (v) => v.supports["bulk-export"]],
    ["Ready", `Ready for ${APP_KIND_LABELS.patientApps.toLowerCase()}`, (v) => v.verdict.patientApps.ready],
  ];
  return h(
    "table",
    { class: "readiness" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col", class: "developer" }, "Developer (verified)"),
        ...columns.map(([label, title]) => h("th", { scope: "col" }, h("abbr", { title }, label))),
      ),
    ),
    h(
      "tbody",
      {},
      ...rows.map((v) =>
        h(
          "tr",
          {},
          h(
            "th",
            { scope: "row" },
            h("a", { href: `/?developer=${encodeURIComponent(v.vendorId)}` }, v.vendorName),
            h("span", { class: "verified" }, ` (${NUMBER.format(v.verified)})`),
          ),
          ...columns.map(([, , value]) => shareCell(value(v), v.verified)),
        ),
      ),
    ),
  );
}

const ms = (value: number | null) => (value === null ? "–" : `${NUMBER.format(value)} ms`);

const DAY_MS = 86_400_000;
const STRIP_DAYS = 30;
/** The worse outcome of a day first: a day with a failed probe is a failed day. */
const OUTCOME_RANK = ["failed", "partial", "success"] as const;
type Outcome = (typeof OUTCOME_RANK)[number];

/**
 * The last 30 UTC days up to the newest probe, each with its worst probe outcome among the
 * answer's recent probes (null: none that day).
 */
function dailyOutcomes(recent: Availability["recent"]): { day: string; outcome: Outcome | null }[] {
  if (recent.length === 0) return [];
  const newest = Math.floor(Date.parse(recent[0]!.at) / DAY_MS);
  const worst = new Map<number, Outcome>();
  for (const probe of recent) {
    const day = Math.floor(Date.parse(probe.at) / DAY_MS);
    const outcome = (OUTCOME_RANK as readonly string[]).includes(probe.outcome) ? (probe.outcome as Outcome) : "failed";
    const seen = worst.get(day);
    if (seen === undefined || OUTCOME_RANK.indexOf(outcome) < OUTCOME_RANK.indexOf(seen)) worst.set(day, outcome);
  }
  return Array.from({ length: STRIP_DAYS }, (_, i) => {
    const day = newest - (STRIP_DAYS - 1) + i;
    return { day: new Date(day * DAY_MS).toISOString().slice(0, 10), outcome: worst.get(day) ?? null };
  });
}

/** A strip of 30 days, one square a day coloured by its worst outcome; one image named by its counts. */
function outcomeStrip(recent: Availability["recent"]): SVGElement {
  const days = dailyOutcomes(recent);
  const tally = (outcome: Outcome | null) => days.filter((d) => d.outcome === outcome).length;
  const parts = [
    ...OUTCOME_RANK.toReversed().map((o) => [tally(o), OUTCOME_LABELS[o]] as const),
    [tally(null), "not probed"] as const,
  ]
    .filter(([n]) => n > 0)
    .map(([n, label]) => `${count(n, "day")} ${label}`);
  const cell = 10;
  return svg(
    "svg",
    {
      class: "strip",
      viewBox: `0 0 ${STRIP_DAYS * cell} ${cell}`,
      width: "100%",
      role: "img",
      "aria-label": `Probe outcomes, last ${STRIP_DAYS} days to ${days.at(-1)?.day}: ${parts.join(", ")}`,
    },
    ...days.map((d, i) =>
      svg(
        "rect",
        {
          x: i * cell + 1,
          y: 0,
          width: cell - 2,
          height: cell,
          rx: 1,
          class: `day day-${d.outcome ?? "none"}`,
          "data-day": d.day,
        },
        svg("title", {}, `${d.day}: ${d.outcome === null ? "not probed" : OUTCOME_LABELS[d.outcome]}`),
      ),
    ),
  );
}

/**
 * The response times of the recent probes that had one, oldest to newest, as a line over axes
 * with their values (0 and the most milliseconds up the side, the first and last probe's day
 * along the bottom); null with fewer than two.
 */
function responseLine(recent: Availability["recent"]): SVGElement | null {
  const probes = recent.filter((p) => p.responseTimeMs !== null).reverse();
  const points = probes.map((p) => p.responseTimeMs!);
  if (points.length < 2) return null;
  const width = 300;
  const height = 80;
  const left = 52;
  const base = height - 18;
  const max = Math.max(...points);
  const min = Math.min(...points);
  const x = (i: number) => Math.round((i / (points.length - 1)) * (width - left - 8)) + left;
  const y = (v: number) => Math.round(base - (v / Math.max(1, max)) * (base - 8));
  const day = (at: string) => at.slice(0, 10);
  return svg(
    "svg",
    {
      class: "response-line",
      viewBox: `0 0 ${width} ${height}`,
      width: "100%",
      role: "img",
      "aria-label": `Response time of the last ${points.length} probes, oldest to newest: from ${ms(min)} to ${ms(max)}, newest ${ms(points.at(-1)!)}`,
    },
    svg("line", { x1: left, y1: base, x2: width, y2: base, class: "axis" }),
    svg("line", { x1: left, y1: 4, x2: left, y2: base, class: "axis" }),
    svg("polyline", { points: points.map((v, i) => `${x(i)},${y(v)}`).join(" "), class: "series" }),
    svg("text", { x: left - 4, y: 12, "text-anchor": "end", class: "scale" }, ms(max)),
    svg("text", { x: left - 4, y: base, "text-anchor": "end", class: "scale" }, "0 ms"),
    svg("text", { x: left, y: height - 4, class: "scale" }, day(probes[0]!.at)),
    svg("text", { x: width, y: height - 4, "text-anchor": "end", class: "scale" }, day(probes.at(-1)!.at)),
  );
}

export function availabilitySection(a: Availability): HTMLElement {
  const windows = ["1d", "7d", "30d", "365d"] as const;
  const line = responseLine(a.recent);
  return h(
    "section",
    { "aria-labelledby": "availability-heading", id: "availability" },
    h("h3", { id: "availability-heading" }, "Availability"),
    a.recent.length > 0 &&
      h(
        "figure",
        { class: "chart" },
        h("figcaption", {}, `Each of the last ${STRIP_DAYS} days`),
        outcomeStrip(a.recent),
        // The strip's axis: its first and last day (the image's name says them to a screen reader).
        h(
          "p",
          { class: "strip-days", "aria-hidden": "true" },
          h("span", {}, dailyOutcomes(a.recent)[0]?.day ?? ""),
          h("span", {}, dailyOutcomes(a.recent).at(-1)?.day ?? ""),
        ),
        h(
          "p",
          { class: "legend", "aria-hidden": "true" },
          ...OUTCOME_RANK.toReversed().map((o) =>
            h("span", { class: `outcome-key outcome-key-${o}` }, OUTCOME_LABELS[o]),
          ),
          h("span", { class: "outcome-key outcome-key-none" }, "not probed"),
        ),
      ),
    line !== null && h("figure", { class: "chart" }, h("figcaption", {}, "Response time, recent probes"), line),
    h(
      "dl",
      { class: "uptime" },
      ...windows.map((w) =>
        h("div", {}, h("dt", {}, `Uptime ${w}`), h("dd", {}, uptimeText(a.uptime[w] ?? null, a.recent))),
      ),
    ),
    h(
      "dl",
      { class: "pairs" },
      row("Response time, 30 days", `median ${ms(a.responseTimeMs.median)}, p95 ${ms(a.responseTimeMs.p95)}`),
      row("Last success", formatDate(a.lastSuccessAt)),
      row("Last failure", formatDate(a.lastFailureAt)),
    ),
    a.recent.length > 0 &&
      h(
        "details",
        { class: "recent" },
        h("summary", {}, `The ${count(a.recent.length, "recent probe")}, as a table`),
        h(
          "div",
          { class: "scroll", tabindex: "0", role: "region", "aria-label": "Recent probes, scrolling sideways" },
          h(
            "table",
            {},
            h("caption", {}, "Recent probes, newest first"),
            h(
              "thead",
              {},
              h("tr", {}, ...["When", "Outcome", "HTTP", "Time", "Error"].map((t) => h("th", { scope: "col" }, t))),
            ),
            h(
              "tbody",
              {},
              ...a.recent.map((p) =>
                h(
                  "tr",
                  {},
                  h("td", {}, formatDate(p.at)),
                  h("td", {}, p.outcome),
                  h("td", {}, p.httpStatus === null ? "–" : String(p.httpStatus)),
                  h("td", {}, ms(p.responseTimeMs)),
                  h("td", {}, p.error ?? ""),
                ),
              ),
            ),
          ),
        ),
      ),
  );
}

export function rawLinks(id: string, withAvailability: boolean): HTMLElement {
  const links: [string, string][] = [
    ["The record", endpointUrl(id)],
    [
      "Capabilities, with the CapabilityStatement and SMART configuration as published",
      endpointUrl(id, "/capabilities"),
    ],
  ];
  if (withAvailability) links.push(["Availability", endpointUrl(id, "/availability")]);
  return h(
    "section",
    { "aria-labelledby": "raw-heading" },
    h("h3", { id: "raw-heading" }, "Raw JSON"),
    h("ul", { class: "raw" }, ...links.map(([text, href]) => h("li", {}, h("a", { href }, text)))),
  );
}

export interface Bar {
  label: string;
  value: number;
  href?: string;
}

/**
 * Horizontal bars as inline SVG (attributes only: no inline style, as the page's CSP demands).
 * Without links the chart is one image named by its bars. With links (a bar filters the search)
 * it is a group of them, each named "label: count" (an image cannot hold links: a screen reader
 * would not reach them, and would read each bar's texts run together).
 */
export function barChart(bars: Bar[], name: string): SVGElement {
  const rowHeight = 24;
  const labelWidth = 112;
  const barWidth = 150;
  const width = labelWidth + barWidth + 56;
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const linked = bars.some((bar) => bar.href !== undefined);
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${bars.length * rowHeight}`,
    width: "100%",
    role: linked ? "group" : "img",
    "aria-label": `${name}: ${bars.map((bar) => `${bar.label} ${NUMBER.format(bar.value)}`).join(", ")}`,
    class: "bars",
  });
  bars.forEach((bar, i) => {
    const y = i * rowHeight;
    const length = Math.max(bar.value > 0 ? 2 : 0, Math.round((bar.value / max) * barWidth));
    const value = NUMBER.format(bar.value);
    // A long label is squeezed into its room, never cut: what a link shows is what it is named.
    const long: Record<string, string | number> =
      bar.label.length > 16 ? { textLength: labelWidth - 10, lengthAdjust: "spacingAndGlyphs" } : {};
    const label = svg(
      "text",
      { x: labelWidth - 6, y: y + 16, "text-anchor": "end", class: "bar-label", ...long },
      bar.label,
    );
    const shape = svg("rect", { x: labelWidth, y: y + 4, width: length, height: 16, rx: 2, class: "bar" });
    // The leading space is not drawn (SVG collapses it) but keeps the bar's text "label value", as named.
    const count = svg("text", { x: labelWidth + length + 5, y: y + 16, class: "bar-value" }, ` ${value}`);
    const name = `${bar.label} ${value}`;
    if (bar.href)
      chart.appendChild(svg("a", { href: bar.href, "data-nav": "filter", "aria-label": name }, label, shape, count));
    // In a group of links, a bar without one is an image of its own, named like the links.
    else
      chart.appendChild(
        svg(
          "g",
          linked ? { role: "img", "aria-label": name } : {},
          svg("title", {}, `${bar.label}: ${value}`),
          label,
          shape,
          count,
        ),
      );
  });
  return chart;
}
