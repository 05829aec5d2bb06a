import "./style.css";
import { READY_KIND } from "../../../model/capability-rules";
import type { EndpointRecord } from "../../../model/endpoints";
import type { Freshness } from "../../../model/freshness";
import { FHIR_VERSIONS, FILTERABLE_FHIR_VERSIONS } from "../../../model/types";
import { US_STATES } from "../../../model/us-states";
import { type Answer, getJson, messageFor, type Problem } from "./api";
import { byId, clear, h } from "./dom";
import { freshnessLine, freshnessPollMs } from "./freshness-line";
import { Pacer, TYPING_DEBOUNCE_MS } from "./pacer";
import { developerView, type HistoryPoint, type ReportCard } from "./report-card-view";
import { newestFirst } from "./rows";
import {
  emptyFilters,
  endpointUrl,
  FILTER_KEYS,
  type Filters,
  isBareView,
  listUrl,
  pageUrl,
  parseState,
  type SearchState,
  type Sort,
  sameFilters,
  sortsFor,
} from "./state";
import {
  type Availability,
  availabilitySection,
  barChart,
  type Capabilities,
  type CapabilityStats,
  capabilitiesSection,
  count,
  developerRows,
  exportLinks,
  formatDate,
  homeSummary,
  noProbesYet,
  pagerLinks,
  rawLinks,
  readinessTable,
  recordSection,
  resultRow,
  resultsSummary,
  type Source,
  type Stats,
  showReadiness,
  unprobedNote,
  type Vendor,
  verdictSection,
  versionLabel,
} from "./views";

const form = byId<HTMLFormElement>("search");
const controls = Object.fromEntries(FILTER_KEYS.map((key) => [key, byId(`f-${key}`)])) as Record<
  keyof Filters,
  HTMLInputElement | HTMLSelectElement
>;
const message = byId("message");
const results = byId("results");
const summary = byId("summary");
const list = byId("list");
const pager = byId("pager");
const detail = byId("detail");
const copyStatus = byId("copy-status");
const sortSelect = byId<HTMLSelectElement>("f-sort");
const downloads = byId("downloads");
const resultsHeading = byId("results-heading");
const moreFilters = byId<HTMLDetailsElement>("more-filters");
const moreFiltersSummary = byId("more-filters-summary");

let state = parseState(location.search);

// ---- requests -------------------------------------------------------------------------------

/** Answers already received this visit (the dataset changes about daily): Back and paging back cost nothing. */
const answers = new Map<string, Answer<unknown>>();
const ANSWERS_KEPT = 100;

async function get<T>(path: string, signal?: AbortSignal): Promise<Answer<T>> {
  const kept = answers.get(path);
  if (kept) return kept as Answer<T>;
  const answer = await getJson<T>(path, signal);
  if (answer.ok) {
    answers.set(path, answer);
    if (answers.size > ANSWERS_KEPT) answers.delete(answers.keys().next().value!);
  }
  return answer;
}

/** After a 429, automatic searches wait until the server's Retry-After has passed. */
let blockedUntil = 0;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let lastProblem: Problem | null = null;

function showMessage(text: string | null) {
  message.textContent = text ?? "";
  message.hidden = text === null;
}

function showProblem(problem: Problem, subject: "search" | "endpoint") {
  lastProblem = problem;
  showMessage(messageFor(problem, subject));
  if (problem.kind === "rate-limited") {
    const wait = (problem.retryAfter ?? 60) * 1000;
    blockedUntil = Date.now() + wait;
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => {
      blockedUntil = 0;
      void render();
    }, wait);
  }
}

// ---- the form -------------------------------------------------------------------------------

function option(value: string, text: string) {
  return h("option", { value }, text);
}

/** A value from the address bar that the list lacks still shows (the API judges it). */
function ensureOption(select: HTMLSelectElement, value: string) {
  if (value !== "" && ![...select.options].some((o) => o.value === value)) select.append(option(value, value));
}

/** Filters set besides the search box: the folded filters' summary counts them. */
const filtersSet = (filters: Filters) => FILTER_KEYS.filter((key) => key !== "query" && filters[key] !== "").length;

function writeForm(filters: Filters) {
  for (const key of FILTER_KEYS) {
    const control = controls[key];
    if (control instanceof HTMLSelectElement) ensureOption(control, filters[key]);
    control.value = filters[key];
  }
  const set = filtersSet(filters);
  moreFiltersSummary.textContent = set === 0 ? "Filters" : `Filters (${set} set)`;
  // Unfolded where there is room, or when one is set (a shared link shows what it filters by).
  if (set > 0 || WIDE.matches) moreFilters.open = true;
}

/** Where the filters have room beside the results without pushing them below the first screen. */
const WIDE = matchMedia("(min-width: 760px)");
// A window that widens to that room (a tablet turned, a window made larger) unfolds them, as a
// load at that width does: the page widened is the page loaded there.
WIDE.addEventListener("change", () => {
  if (WIDE.matches) moreFilters.open = true;
});

function readForm(): Filters {
  const filters = emptyFilters();
  for (const key of FILTER_KEYS) filters[key] = controls[key].value;
  return filters;
}

const stateSelect = controls.state as HTMLSelectElement;
for (const [code, name] of Object.entries(US_STATES)) stateSelect.append(option(code, `${name} (${code})`));
for (const version of FILTERABLE_FHIR_VERSIONS) controls.fhirVersion.append(option(version, version));

// ---- navigation -----------------------------------------------------------------------------

type Mode = "push" | "typing" | "detail";

/** Moves to a state: a history entry per search (a burst of typing is one entry), then renders. */
function go(next: SearchState, mode: Mode, focus = false) {
  const url = pageUrl(next);
  const typing = mode === "typing";
  if (typing && history.state?.typing) history.replaceState({ typing }, "", url);
  else history.pushState({ typing, fromResults: mode === "detail" }, "", url);
  state = next;
  void render(focus);
}

let typingTimer: ReturnType<typeof setTimeout> | undefined;
const pacer = new Pacer();

function searchAsTyped() {
  clearTimeout(typingTimer);
  const filters = readForm();
  if (state.id === null && sameFilters(filters, state.filters)) return;
  const now = Date.now();
  const wait = Math.max(pacer.delay(now), blockedUntil - now);
  if (wait > 0) {
    typingTimer = setTimeout(searchAsTyped, wait);
    return;
  }
  pacer.record(now);
  go({ filters, page: 1, id: null }, "typing");
}

for (const key of ["query", "hasResource"] as const)
  controls[key].addEventListener("input", () => {
    clearTimeout(typingTimer);
    typingTimer = setTimeout(searchAsTyped, TYPING_DEBOUNCE_MS);
  });

for (const key of FILTER_KEYS)
  if (controls[key] instanceof HTMLSelectElement)
    controls[key].addEventListener("change", () => {
      clearTimeout(typingTimer);
      go({ filters: readForm(), page: 1, id: null }, "push");
    });

form.addEventListener("submit", (event) => {
  event.preventDefault();
  clearTimeout(typingTimer);
  const filters = readForm();
  if (state.id === null && sameFilters(filters, state.filters) && lastProblem === null) return;
  go({ filters, page: sameFilters(filters, state.filters) ? state.page : 1, id: null }, "push");
});

sortSelect.addEventListener("change", () => {
  clearTimeout(typingTimer);
  go({ ...state, sort: sortSelect.value as Sort, page: 1, id: null }, "push");
});

byId("clear").addEventListener("click", () => {
  clearTimeout(typingTimer);
  writeForm(emptyFilters());
  go({ filters: emptyFilters(), page: 1, id: null }, "push");
  controls.query.focus();
});

document.addEventListener("click", (event) => {
  const target = event.target as Element;
  const copy = target.closest<HTMLButtonElement>("button[data-copy]");
  if (copy) return void copyUrl(copy);
  const link = target.closest("a[data-nav]");
  if (!link || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  if (link.getAttribute("data-nav") === "back" && history.state?.fromResults) return history.back();
  const next = parseState(new URL(link.getAttribute("href") ?? "/", location.href).search);
  // Coming back to these results (Back), focus returns to the row one opened.
  const row = link.getAttribute("data-id");
  if (row !== null) history.replaceState({ ...history.state, row }, "", location.href);
  writeForm(next.filters);
  go(next, next.id !== null ? "detail" : "push", true);
});

window.addEventListener("popstate", () => {
  clearTimeout(typingTimer);
  state = parseState(location.search);
  writeForm(state.filters);
  void render(true, history.state?.row ?? null);
});

window.addEventListener("online", () => {
  if (lastProblem?.kind === "offline") void render();
  if (!overviewLoaded) void loadOverview();
});

// ---- copy -----------------------------------------------------------------------------------

function copyByHand(text: string): boolean {
  const area = h("textarea", { readonly: "", class: "offscreen", "aria-hidden": "true" });
  area.value = text;
  document.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  area.remove();
  return copied;
}

async function copyUrl(button: HTMLButtonElement) {
  const url = button.getAttribute("data-copy") ?? "";
  let copied = false;
  try {
    await navigator.clipboard.writeText(url);
    copied = true;
  } catch {
    copied = copyByHand(url);
  }
  copyStatus.textContent = copied ? `Copied ${url}` : "Could not copy; select the URL and copy it by hand.";
  button.textContent = copied ? "Copied" : "Not copied";
  setTimeout(() => {
    button.textContent = "Copy";
  }, 2000);
}

// ---- rendering ------------------------------------------------------------------------------

let renderCount = 0;
let inFlight: AbortController | null = null;

/**
 * What the list shows now: the results' address and the answer its rows were built from; null
 * when it shows something else (the developers, nothing after an error) or is being built.
 */
let shownResults: { address: string; answer: Answer<EndpointRecord[]> } | null = null;

/** Shows the current state; `focus` moves focus to what it shows: the row `row` (an entry id) when it is there, else the heading. */
async function render(focus = false, row: string | null = null) {
  const turn = ++renderCount;
  inFlight?.abort();
  const controller = new AbortController();
  inFlight = controller;
  document.title = state.id ? "Endpoint: Endpoint Directory" : "Endpoint Directory: find a FHIR endpoint";
  try {
    const developer = new URLSearchParams(location.search).get("developer");
    if (developer) await showDeveloper(developer, () => turn === renderCount, controller.signal);
    else if (state.id !== null) await showDetail(state.id, () => turn === renderCount, controller.signal, focus);
    else await showResults(state, () => turn === renderCount, controller.signal, focus, row);
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
}

async function showResults(
  current: SearchState,
  isCurrent: () => boolean,
  signal: AbortSignal,
  focus: boolean,
  row: string | null,
) {
  if (isBareView(current)) return showHome(current, isCurrent, focus);
  detail.hidden = true;
  results.hidden = false;
  results.setAttribute("aria-busy", "true");
  const answer = await get<EndpointRecord[]>(listUrl(current), signal);
  if (!isCurrent()) return;
  results.removeAttribute("aria-busy");
  resultsHeading.textContent = "Results";
  const address = pageUrl({ ...current, id: null });
  if (shownResults?.answer === answer && shownResults.address === address) {
    // Back from a record to the results it was opened from (the same kept answer): the list,
    // pager and summary already show them; building 25 rows again would change nothing.
    lastProblem = null;
    showMessage(null);
    showSorts(current);
    focusResults(focus, row);
    return;
  }
  shownResults = null;
  if (!answer.ok) {
    showProblem(answer.problem, "search");
    clear(list);
    clear(pager);
    summary.textContent = "";
    return;
  }
  lastProblem = null;
  showMessage(null);
  const total = answer.meta?.total ?? answer.data.length;
  const bases = answer.meta?.fhirVersionBasis;
  const distances = (answer.meta as { distance?: number[] } | undefined)?.distance;
  // One organization's servers newest FHIR version first; `index` is the row's place in `meta`.
  const shown = newestFirst(answer.data);
  list.replaceChildren(
    ...shown.map(({ record, index }) => resultRow(record, current, bases?.[index], distances?.[index])),
  );
  // The "Ready for" badges: the kinds of app each row's verdict says are ready (`meta.ready`).
  const rows = list.querySelectorAll("li.result");
  shown.forEach(({ index }, i) => {
    const kinds = answer.meta?.ready?.[index];
    const row = rows[i];
    if (row !== undefined && kinds !== undefined)
      showReadiness(
        row,
        kinds.map((value) => READY_KIND[value]),
      );
  });
  pager.replaceChildren(...pagerLinks(current, total).filter((c): c is HTMLElement => c instanceof HTMLElement));
  downloads.replaceChildren(exportLinks(current, total) ?? "");
  showSorts(current);
  sortSelect.parentElement!.hidden = total === 0;
  summary.textContent = resultsSummary(current, total, answer.data.length);
  // A capability filter that matches nothing: say whether that is because nothing was probed.
  if (total === 0 && (current.filters.supports !== "" || current.filters.ready !== "")) {
    const stats = await capabilityStats();
    const note = stats.ok ? unprobedNote(stats.data) : null;
    if (!isCurrent()) return;
    if (note !== null) summary.textContent = `${summary.textContent} ${note}`;
  }
  shownResults = { address, answer };
  focusResults(focus, row);
}

/** With `focus`, moves focus to the row `row` (an entry id) when the list has it, else to the results' heading. */
function focusResults(focus: boolean, row: string | null) {
  if (!focus) return;
  const opened = row === null ? null : list.querySelector<HTMLElement>(`a[data-id="${CSS.escape(row)}"]`);
  (opened ?? byId("results-heading")).focus();
}

/** The home page: the developers, most endpoints first, and what to search by (see isBareView). */
async function showHome(current: SearchState, isCurrent: () => boolean, focus: boolean) {
  shownResults = null;
  detail.hidden = true;
  results.hidden = false;
  results.setAttribute("aria-busy", "true");
  const answer = await vendorList();
  if (!isCurrent()) return;
  results.removeAttribute("aria-busy");
  clear(pager);
  if (!answer.ok) {
    showProblem(answer.problem, "search");
    clear(list);
    summary.textContent = "";
    return;
  }
  lastProblem = null;
  showMessage(null);
  const rows = developerRows(answer.data);
  const total = answer.data.reduce((sum, vendor) => sum + vendor.endpointCount, 0);
  resultsHeading.textContent = "Developers";
  list.replaceChildren(...rows);
  downloads.replaceChildren(exportLinks(current, total) ?? "");
  showSorts(current);
  summary.replaceChildren(homeSummary(total, rows.length));
  if (focus) resultsHeading.focus();
}

/** The orders this search can have, the chosen one selected ("Best first": relevance, or nearest first). */
function showSorts(current: SearchState) {
  const sorts = sortsFor(current);
  for (const option of sortSelect.options) option.hidden = option.value !== "" && !sorts.includes(option.value as Sort);
  sortSelect.value = current.sort && sorts.includes(current.sort) ? current.sort : "";
}

/** The developers (for an entry's kind), asked once a page load; a failed answer is asked again. */
let vendorsAsked: ReturnType<typeof get<Vendor[]>> | null = null;
function vendorList(): ReturnType<typeof get<Vendor[]>> {
  const asked = vendorsAsked ?? get<Vendor[]>("/api/v1/vendors");
  vendorsAsked = asked;
  void asked.then((answer) => {
    if (!answer.ok && vendorsAsked === asked) vendorsAsked = null;
  });
  return asked;
}

async function showDetail(id: string, isCurrent: () => boolean, signal: AbortSignal, focus: boolean) {
  results.hidden = true;
  detail.hidden = false;
  const back = h(
    "a",
    { href: pageUrl({ ...state, id: null }), "data-nav": "back", class: "back" },
    "‹ Back to results",
  );
  detail.replaceChildren(back, h("p", { class: "muted", "aria-live": "polite" }, "Loading the endpoint…"));
  const [record, capabilities, availability, source, vendors] = await Promise.all([
    get<EndpointRecord>(endpointUrl(id), signal),
    get<Capabilities>(endpointUrl(id, "/capabilities"), signal),
    get<Availability>(endpointUrl(id, "/availability"), signal),
    get<Source>(endpointUrl(id, "/source"), signal),
    vendorList(),
  ]);
  if (!isCurrent()) return;
  if (!record.ok) {
    showProblem(record.problem, "endpoint");
    detail.replaceChildren(back);
    return;
  }
  lastProblem = null;
  showMessage(null);
  const r = record.data;
  const kind = vendors.ok ? (vendors.data.find((v) => v.id === r.vendorId)?.kind ?? null) : null;
  const heading = h("h2", { id: "detail-heading", tabindex: "-1" }, r.organizationName ?? "No organization name");
  document.title = `${r.organizationName ?? r.url}: Endpoint Directory`;
  detail.replaceChildren(
    back,
    heading,
    h(
      "p",
      { class: "vendor" },
      r.vendorName,
      kind === "payer" ? " · a health plan" : "",
      " · ",
      h("a", { href: `/?developer=${encodeURIComponent(r.vendorId)}` }, "its report card"),
    ),
    // The answer a person opens an entry for comes first.
    capabilities.ok ? verdictSection(capabilities.data) : "",
    recordSection(r, source.ok ? source.data : null, record.meta?.unusable ?? null, kind),
    capabilities.ok
      ? capabilitiesSection(capabilities.data)
      : h("p", { class: "note" }, `Capabilities: ${messageFor(capabilities.problem, "endpoint")}`),
    // The availability route may not exist on this server (404): then the section is left out.
    availability.ok
      ? availabilitySection(availability.data)
      : availability.problem.kind === "not-found"
        ? ""
        : h("p", { class: "note" }, `Availability: ${messageFor(availability.problem, "endpoint")}`),
    rawLinks(id, availability.ok),
  );
  if (focus) heading.focus();
}

/** A developer's report card and its history (`/?developer=<vendor id>`). */
async function showDeveloper(id: string, isCurrent: () => boolean, signal: AbortSignal) {
  results.hidden = true;
  detail.hidden = false;
  const back = h("a", { href: "/", class: "back" }, "‹ Back to the search");
  detail.replaceChildren(back, h("p", { class: "muted", "aria-live": "polite" }, "Loading the report card…"));
  const path = `/api/v1/vendors/${encodeURIComponent(id)}/report`;
  const [card, history] = await Promise.all([
    get<ReportCard>(path, signal),
    get<{ points: HistoryPoint[] }>(`${path}/history`, signal),
  ]);
  if (!isCurrent()) return;
  if (!card.ok) {
    showProblem(card.problem, "endpoint");
    detail.replaceChildren(back);
    return;
  }
  document.title = `${card.data.vendorName}: report card: Endpoint Directory`;
  const heading = h("h2", { id: "detail-heading", tabindex: "-1" }, `${card.data.vendorName}: report card`);
  const asOf = (card.meta as { asOf?: string | null } | undefined)?.asOf ?? null;
  detail.replaceChildren(back, heading, ...developerView(card.data, asOf, history.ok ? history.data.points : []));
  // The card is what a developer's link is opened for: scrolled to, below the search form.
  heading.focus();
}

// ---- the dataset overview -------------------------------------------------------------------

let capabilityStatsAsked: Promise<Answer<CapabilityStats>> | undefined;

/** The capability statistics, asked once a visit (again after a failure): the overview's table and the no-match note. */
function capabilityStats(): Promise<Answer<CapabilityStats>> {
  capabilityStatsAsked ??= get<CapabilityStats>("/api/v1/stats/capabilities").then((answer) => {
    if (!answer.ok) capabilityStatsAsked = undefined;
    return answer;
  });
  return capabilityStatsAsked;
}

let overviewLoaded = false;

async function loadOverview() {
  // The developers through vendorList: asked once a page load, here and by the view shown at load.
  const [stats, vendors] = await Promise.all([get<Stats>("/api/v1/stats"), vendorList()]);
  const text = byId("overview-summary");
  if (vendors.ok) {
    const select = controls.vendor as HTMLSelectElement;
    const chosen = state.filters.vendor;
    select.replaceChildren(
      option("", "Any vendor"),
      ...vendors.data.map((v) => option(v.id, `${v.name} (${count(v.endpointCount, "endpoint")})`)),
    );
    ensureOption(select, chosen);
    select.value = chosen;
    const largest = [...vendors.data]
      .filter((v) => v.endpointCount > 0)
      .sort((a, b) => b.endpointCount - a.endpointCount)
      .slice(0, 8);
    byId("vendors-chart").replaceChildren(
      barChart(
        largest.map((v) => ({
          label: v.name,
          value: v.endpointCount,
          href: pageUrl({ filters: { ...emptyFilters(), vendor: v.id }, page: 1, id: null }),
        })),
        "Largest vendors by endpoints",
      ),
    );
  }
  if (stats.ok) {
    const s = stats.data;
    text.textContent = `${count(s.totalEndpoints, "endpoint")} from ${count(s.vendorCount, "vendor")}; updated ${formatDate(s.lastUpdated)}.`;
    byId("versions-chart").replaceChildren(
      barChart(
        FHIR_VERSIONS.filter((v) => (s.fhirVersionCounts[v] ?? 0) > 0).map((v) => ({
          label: versionLabel(v),
          value: s.fhirVersionCounts[v] ?? 0,
          href: FILTERABLE_FHIR_VERSIONS.includes(v as never)
            ? pageUrl({ filters: { ...emptyFilters(), fhirVersion: v }, page: 1, id: null })
            : undefined,
        })),
        "Endpoints by FHIR version",
      ),
    );
  }
  const readiness = await capabilityStats();
  if (readiness.ok) {
    const probed = readiness.data.vendors.some((v) => v.verified > 0);
    byId("readiness-table").replaceChildren(probed ? readinessTable(readiness.data) : noProbesYet(readiness.data));
    byId("readiness-intro").hidden = !probed;
    byId("readiness").hidden = false;
  }
  const problem = !stats.ok ? stats.problem : !vendors.ok ? vendors.problem : null;
  if (problem) text.textContent = `The overview is not available: ${messageFor(problem, "overview")}`;
  overviewLoaded = problem === null;
}

// ---- how fresh the directory is (every view) --------------------------------------------------

const freshness = byId("freshness");
let freshnessTimer: ReturnType<typeof setTimeout> | undefined;

/** The freshness line, asked again every few seconds while a refresh runs (never kept: it moves). */
async function loadFreshness() {
  clearTimeout(freshnessTimer);
  const answer = await getJson<Freshness>("/api/v1/freshness");
  if (answer.ok) freshness.textContent = freshnessLine(answer.data);
  freshnessTimer = setTimeout(loadFreshness, answer.ok ? freshnessPollMs(answer.data) : 60_000);
}

writeForm(state.filters);
history.replaceState({ typing: false }, "", location.href);
void render();
void loadOverview();
void loadFreshness();
