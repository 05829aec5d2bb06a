/**
 * Report cards (docs/api.md, "Report cards"): each developer's list, certification and server
 * figures, and the directory's, computed once per dataset version when the index is built. List
 * figures come from one grouped read of the entries; server figures from the index (each URL's
 * status, availability and capability report), so a million entries cost a pass over typed arrays.
 */
import { DAY_MS, readU16 } from "../db/history-format";
import { dayNumber, keepReportHistory, NATIONAL } from "../db/report-history";
import type { ReportReads } from "../db/report-reads";
import {
  APP_KINDS,
  type CapabilityReport,
  CHECKS,
  SUPPORTS,
  supportsOf,
  VERDICT_STATUSES,
} from "../model/capability-rules";
import { ENVIRONMENT_RULES } from "../model/environment";
import { UNUSABLE_REASONS, type UnusableReason } from "../model/evidence";
import {
  type CertificationRecord,
  type Figure,
  historyFigures,
  LIST_SHARES,
  type ListShare,
  type NationalFigures,
  type ReportCard,
  type ReportCards,
} from "../model/report-card";
import { AT, KIND_PROBED_AT, NO_VALUE } from "./availability-data";
import type { IndexBase, UrlReports } from "./capability-stats";
import type { DirectoryData } from "./directory-data";

type ListFigures = ReportCard["list"];
type ServerFigures = ReportCard["servers"];

/** How many of the most failed checks a card names. */
const MOST_FAILED = 5;
const CERTIFICATE_WINDOW_MS = 30 * DAY_MS;
/** Each check's place in CHECKS: the order of checks that failed equally often. */
const CHECK_ORDER = new Map(CHECKS.map((check, i) => [check.id as string, i]));

/** A value rounded to 4 decimals, null kept. */
const round = (value: number | null) => (value === null ? null : Math.round(value * 10_000) / 10_000);
/** A fraction, rounded; null when there is nothing to divide by. */
const ratio = (part: number, whole: number) => (whole === 0 ? null : round(part / whole));

/** Running sums of the list figures of one developer (or all). */
class ListTally {
  listed = 0;
  unusable = 0;
  readonly byReason = Object.fromEntries(UNUSABLE_REASONS.map((r) => [r, 0])) as Record<UnusableReason, number>;
  nonProduction = 0;
  readonly byRule = Object.fromEntries(ENVIRONMENT_RULES.map((rule) => [rule.id, 0])) as Record<string, number>;
  readonly have = Object.fromEntries(LIST_SHARES.map((k) => [k, 0])) as Record<ListShare, number>;

  figures(): ListFigures {
    return {
      listed: this.listed,
      unusable: this.unusable,
      unusableByReason: { ...this.byReason },
      nonProduction: this.nonProduction,
      nonProductionByRule: { ...this.byRule } as ListFigures["nonProductionByRule"],
      shares: Object.fromEntries(
        LIST_SHARES.map((k) => [k, ratio(this.have[k], this.listed)]),
      ) as ListFigures["shares"],
    };
  }
}

/** The value at fraction `q` of a sorted list (nearest rank), null when empty. */
function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * Server figures over a set of URL indices. They do not depend on the set's order: counts, sorted
 * uptimes, and failed checks ranked by count then by their (distinct) places in CHECKS.
 */
function serverFigures(
  urls: ReadonlySet<number>,
  statusOf: Int8Array,
  uptimeOf: Float64Array,
  reportOf: (url: number) => CapabilityReport,
  certificateExpiresOf: Float64Array,
  asOfMs: number,
): ServerFigures {
  let probed = 0;
  let verified = 0;
  let unresponsive = 0;
  let expiring = 0;
  let expired = 0;
  const uptimes: number[] = [];
  const supports = Object.fromEntries(SUPPORTS.map((v) => [v, 0])) as Record<(typeof SUPPORTS)[number], number>;
  const verdicts = Object.fromEntries(
    APP_KINDS.map((kind) => [kind, Object.fromEntries(VERDICT_STATUSES.map((s) => [s, 0]))]),
  ) as ServerFigures["verdicts"];
  const failed = new Map<string, number>();
  for (const url of urls) {
    const report = reportOf(url);
    for (const kind of APP_KINDS) verdicts[kind][report.verdict[kind].status]++;
    if (statusOf[url] !== URL_UNPROBED) probed++;
    if (!Number.isNaN(uptimeOf[url]!)) uptimes.push(uptimeOf[url]!);
    const expires = certificateExpiresOf[url]!;
    if (Number.isFinite(expires) && asOfMs > 0) {
      if (expires < asOfMs) expired++;
      else if (expires < asOfMs + CERTIFICATE_WINDOW_MS) expiring++;
    }
    if (statusOf[url] === URL_UNRESPONSIVE) unresponsive++;
    if (statusOf[url] !== URL_VERIFIED) continue;
    verified++;
    for (const value of supportsOf(report.facets)) supports[value]++;
    for (const check of report.checks) if (check.ok === false) failed.set(check.id, (failed.get(check.id) ?? 0) + 1);
  }
  uptimes.sort((a, b) => a - b);
  return {
    urls: urls.size,
    probed,
    verified,
    unresponsive,
    uptime30d: { median: round(quantile(uptimes, 0.5)), worstDecile: round(quantile(uptimes, 0.1)) },
    supports: Object.fromEntries(SUPPORTS.map((v) => [v, ratio(supports[v], verified)])) as ServerFigures["supports"],
    verdicts,
    certificates: { expiringWithin30Days: expiring, expired },
    mostFailedChecks: [...failed]
      .sort(([a, x], [b, y]) => y - x || (CHECK_ORDER.get(a) ?? 0) - (CHECK_ORDER.get(b) ?? 0))
      .slice(0, MOST_FAILED)
      .map(([id, n]) => ({ id, failed: n })),
  };
}

/** A URL's status, from its entries' (they share it): the probe's outcome. */
const URL_UNPROBED = 0;
const URL_VERIFIED = 1;
const URL_UNRESPONSIVE = 2;
const URL_ANSWERED = 3;

/**
 * What a list's last read read, as a URL: the URL fetched, or the Lantern copy bundled with the
 * server (stored as `{repository, path, commit}`) as its address in that repository at that
 * commit; a local file by its name only (as /source shows it).
 */
function readFromUrl(stored: string): string {
  if (stored.startsWith("{")) {
    const copy = JSON.parse(stored) as { repository: string; path: string; commit: string };
    return `https://github.com/${copy.repository}/blob/${copy.commit}/${copy.path}`;
  }
  if (!stored.startsWith("file:")) return stored;
  const path = stored.replace(/[?#].*$/, "");
  return decodeURIComponent(path.slice(path.lastIndexOf("/") + 1));
}

function certificationOf(products: CertificationRecord["products"]): CertificationRecord {
  const active = products.filter((p) => p.status === "Active");
  return {
    products,
    active: active.length,
    withdrawn: products.filter((p) => /withdrawn/i.test(p.status)).length,
    standardizedApi: active.some((p) => p.standardizedApi),
  };
}

function parseProducts(json: string | null): CertificationRecord["products"] {
  if (json === null) return [];
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? (parsed as CertificationRecord["products"]) : [];
  } catch {
    return [];
  }
}

/** The report cards of the index's dataset version, as of its last write (`lastRefreshAt`). */
export function computeReportCards(
  data: IndexBase & Pick<DirectoryData, "availability">,
  { reports, reportOfUrl, certificateExpiresOf }: UrlReports,
  reads: ReportReads,
  lastRefreshAt: string | null,
): ReportCards {
  const { columns, strings, listed } = data;
  const urlCount = strings.urls.length;
  // Per URL: its status and 30-day uptime (NaN: no history in the window).
  const statusOf = new Int8Array(urlCount);
  const statusCode = strings.statuses.map((status) =>
    status === "verified" ? URL_VERIFIED : status === "unresponsive" ? URL_UNRESPONSIVE : URL_UNPROBED,
  );
  const uptimeOf = new Float64Array(urlCount).fill(Number.NaN);
  const { offsets, bytes } = data.availability;
  for (let u = 0; u < urlCount; u++) {
    const at = offsets[u]!;
    if (offsets[u + 1] === at) continue;
    statusOf[u] = URL_ANSWERED;
    if (bytes[at] === KIND_PROBED_AT) continue;
    const uptime = readU16(bytes, at + AT.uptime + 4);
    if (uptime !== NO_VALUE) uptimeOf[u] = uptime / 10_000;
  }
  // Per vendor: its listed entries' distinct URLs.
  const vendorUrls = strings.vendorIds.map(() => new Set<number>());
  const allUrls = new Set<number>();
  for (let o = 0; o < listed; o++) {
    const url = columns.url[o]!;
    vendorUrls[columns.vendor[o]!]!.add(url);
    allUrls.add(url);
    const code = statusCode[columns.status[o]!]!;
    // A URL probed with an HTTP error keeps its entries' status but has a probe (availability bytes).
    if (code !== URL_UNPROBED || statusOf[url] === URL_UNPROBED) statusOf[url] = code;
  }
  const asOfMs = lastRefreshAt === null ? 0 : Date.parse(lastRefreshAt);
  const reportOf = (url: number) => reports[reportOfUrl[url]!]!;
  const servers = (urls: ReadonlySet<number>) =>
    serverFigures(urls, statusOf, uptimeOf, reportOf, certificateExpiresOf, asOfMs);

  const lists = new Map<string, ListTally>();
  const national = new ListTally();
  for (const [vendorId, unusable, n, ...have] of reads.entryFigures()) {
    const tally = lists.get(vendorId) ?? new ListTally();
    lists.set(vendorId, tally);
    for (const t of [tally, national]) {
      if (unusable === null) {
        t.listed += n;
        LIST_SHARES.forEach((key, i) => {
          t.have[key] += have[i]!;
        });
      } else {
        t.unusable += n;
        if (unusable in t.byReason) t.byReason[unusable as UnusableReason] += n;
      }
    }
  }
  // Non-production listed entries, by the rule the index gave each (0: production).
  for (let o = 0; o < listed; o++) {
    const rule = columns.environment[o]!;
    if (rule === 0) continue;
    const vendorId = strings.vendorIds[columns.vendor[o]!]!;
    const tally = lists.get(vendorId) ?? new ListTally();
    lists.set(vendorId, tally);
    for (const t of [tally, national]) {
      t.nonProduction++;
      t.byRule[ENVIRONMENT_RULES[rule - 1]!.id]!++;
    }
  }
  const listsOf = new Map<string, ReportCard["lists"]>();
  for (const [vendorId, id, url, publishedUrl, lastScrapedAt, lastEntryCount, readFrom] of reads.lists()) {
    const own = listsOf.get(vendorId) ?? [];
    own.push({
      id,
      publishedUrl: publishedUrl ?? url,
      readFrom: readFromUrl(readFrom ?? url),
      asOf: lastScrapedAt,
      entries: lastEntryCount,
    });
    listsOf.set(vendorId, own);
  }
  const vendorIndex = new Map(strings.vendorIds.map((id, i) => [id, i]));
  const vendors: ReportCard[] = reads.vendors().map(([vendorId, vendorName, certifications, kind]) => {
    const v = vendorIndex.get(vendorId);
    const payer = kind === "payer";
    return {
      vendorId,
      vendorName,
      kind: payer ? "payer" : "ehr",
      lists: listsOf.get(vendorId) ?? [],
      list: (lists.get(vendorId) ?? new ListTally()).figures(),
      // A health plan is no certified health IT developer: CHPL has nothing of it.
      certification: payer ? null : certificationOf(parseProducts(certifications)),
      servers: servers(v === undefined ? new Set() : vendorUrls[v]!),
    };
  });
  const nationalFigures: NationalFigures = {
    developers: vendors.filter((card) => card.list.listed > 0).length,
    standardizedApi: vendors.filter((card) => card.certification?.standardizedApi === true).length,
    list: national.figures(),
    servers: servers(allUrls),
  };
  return { asOf: lastRefreshAt, national: nationalFigures, vendors };
}

/** Each developer's flattened figures and (under NATIONAL) the directory's: one history point. */
function historyPoints(cards: ReportCards): Map<string, Record<string, Figure>> {
  const points = new Map<string, Record<string, Figure>>([[NATIONAL, historyFigures(cards.national)]]);
  for (const card of cards.vendors) points.set(card.vendorId, historyFigures(card));
  return points;
}

/**
 * Keeps the figures of a freshly built index as the point of its dataset's last-write day
 * (best effort: a read-only replica keeps nothing, its primary does).
 */
export function keepHistoryOf(databasePath: string, cards: ReportCards) {
  if (cards.asOf === null) return;
  keepReportHistory(databasePath, dayNumber(cards.asOf), historyPoints(cards));
}
