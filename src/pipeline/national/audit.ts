import type { Database } from "bun:sqlite";
import { auditRows, auditVendorPages, type AuditRow as Row } from "../../db/audit-rows";
import { reportReads } from "../../db/report-reads";
import {
  type BrandPlan,
  brandFold,
  brandKeyOf,
  brandsEntries,
  brandsFilter,
  brandsPage,
  planBrands,
  sharedNpiNarrative,
} from "../../directory/brands";
import { buildDirectoryData } from "../../directory/build-data";
import type { DirectoryData } from "../../directory/directory-data";
import { endpointRecordAt } from "../../directory/render";
import { DirectorySearch } from "../../directory/search";
import { ENVIRONMENT_RULES, environmentMatch } from "../../model/environment";
import { URL_EVIDENCE } from "../../model/evidence";
import { fhirVersionFromUrl } from "../../model/fhir-version";
import { VENDOR_KINDS, type VendorKind } from "../../model/vendors";
import { NAME_REPAIRS, type NameRepairKind } from "../ingest/enrich/name-repair";
import { fhirVersionOfUrl } from "../ingest/enrich/version-of-url";
import { loadRegistry } from "../ingest/registry";
import type { ListSummary, VendorDefinition } from "../ingest/types";
import { NAME_RULES } from "../ingest/unusable";

/**
 * The version-naming URL patterns before versions came from evidence: `/r4/`-style segments
 * (no `/R2/`, `/R3/`, `/dstu3/`) and the path patterns, no `argonaut` host. An entry whose URL
 * none of these matched, on a list that named no version, got its developer's certified version.
 */
const OLD_URL_VERSION =
  /\/(dstu2|stu3|r4b|r4|r5)(?=\/|$|\?)|\/argonaut(?=\/|$)|\/uscore(?=\/|$)|\/fhir-server\/api\/v4(?=\/|$)|\/(?:fhir\/)?[134][._]0/i;

/**
 * Real organizations and places whose names hold an environment rule's letters (test, dev, demo,
 * sandbox, mock…): a listed entry whose name holds one of them as whole words must stay
 * production, and the audit counts those that do not (the target is 0). Tested both ways in
 * test/model/environment.test.ts.
 */
export const PRODUCTION_NAMES = [
  "Testa",
  "Contest",
  "Protestant",
  "Attestation",
  "Devon",
  "Demopolis",
  "Child Development Center",
  "Sandbox Pediatrics",
  "Augusta Gastrointestinal",
  "Dev Mishra",
  "Austin Psychological Testing Center",
  "Dream Sleep Testing",
  "Neurotest",
  "Itest Health",
  "MOCKINGBIRD OBGYN",
  "Smockville Counseling",
  "Devine Healthcare",
  "Devotion Health Services",
] as const;

/** One entry as the audit names it: id prefix, organization name, URL, and what its rule found. */
interface NamedEntry {
  id: string;
  name: string | null;
  url: string;
  detail: string | null;
}

/** What one rule matches on the whole directory (every stored entry, listed or not). */
interface RuleMatches {
  rule: string;
  /** What the rule does, as the report says it. */
  what: string;
  entries: NamedEntry[];
  /** For a name rule: every distinct organization name it matches, so a reader sees no real organization is among them. */
  names?: string[];
}

/** Entries of one kind of developer, or of one developer. */
interface KindCounts {
  entries: number;
  listed: number;
  unusable: number;
}

export interface AuditReport {
  entries: number;
  listed: number;
  /** Per kind of developer (`ehr`, `payer`): developers with entries, and their entries. */
  kinds: ({ kind: VendorKind; developers: number } & KindCounts)[];
  /** Per health plan (kind `payer`) of the registry, its entries: each count of its bundled lists. */
  payers: ({ vendorId: string } & KindCounts)[];
  unusable: { kind: string; entries: number; urls: number }[];
  /** Listed entries each environment rule makes non-production (src/model/environment.ts), every rule in table order. */
  environments: { rule: string; what: string; entries: NamedEntry[]; names: string[] }[];
  versions: { evidence: string; version: string; entries: number }[];
  states: { evidence: string; entries: number }[];
  /** Listed entries by how their URL is known: published, or each kind of repair (URL_EVIDENCE), every kind. */
  urls: { evidence: string; entries: number }[];
  /** What each rule of names, hosts and versions matches. */
  ruleMatches: RuleMatches[];
  /** Listed entries whose URL names DSTU2 but which are served as R4 (the target is 0). */
  dstu2UrlServedR4: number;
  /** Listed entries named after a PRODUCTION_NAMES organization that a rule makes non-production (the target is 0). */
  productionNamesMarked: NamedEntry[];
  /** Listed entries named after a PRODUCTION_NAMES organization. */
  productionNamesListed: number;
  /** The report cards' certification: developers, those with CHPL products, products, active, withdrawn, (g)(10). */
  certification: {
    vendors: number;
    withProducts: number;
    products: number;
    active: number;
    withdrawn: number;
    standardizedApi: number;
    byVendor: { vendorId: string; products: number; active: number; withdrawn: number }[];
  };
  /** What the brands bundle serves (GET /api/v1/brands, unfiltered), counted by the audit's own rules. */
  brands: BrandsFigures;
  /** The re-judged sample of entries whose version the old rules took from the certification. */
  sample: { size: number; population: number; outcomes: { outcome: string; entries: number }[] };
}

/**
 * The brands bundle as the server writes it (src/directory/brands.ts decides what it holds),
 * judged by the audit's rules: the environment rules and the name rules on every entry it
 * serves, its brands grouped by developer and folded name to find duplicates.
 */
interface BrandsFigures {
  /** Entries whose Endpoint the bundle publishes (named by a brand or by their developer). */
  entries: number;
  endpoints: number;
  /** Organizations as brands, organizations merged into them as aliases, developers as brands. */
  brands: number;
  merged: number;
  developers: number;
  /** Entries in the bundle that an environment rule or a name rule matches (the target is 0). */
  testOrPlaceholder: NamedEntry[];
  /** Pairs of one developer's brands whose names differ only in case, punctuation or spacing, sharing an Endpoint (target 0). */
  duplicatesByUrl: [string, string][];
  /** The same, sharing an NPI and an address (target 0). */
  duplicatesByPlace: [string, string][];
  /** Brands that carry an NPI other brands carry under another name, and why, as the bundle says it. */
  sharedNpi: { npi: string; name: string; vendorId: string; why: string }[];
  /** Developers with an Endpoint in the bundle whose page is not https://, given there as absent. */
  pagesAbsent: { vendorId: string; page: string }[];
}

/** Counts the national directory's entries by how each field is known and why some are not listed. */
export function auditDatabase(sqlite: Database, sampleSize = 100): AuditReport {
  const rows = auditRows(sqlite);
  const listed = rows.filter((r) => r.status !== "removed" && r.unusable === null);
  const count = <K extends string>(items: Row[], key: (row: Row) => K) => {
    const counts = new Map<K, Row[]>();
    for (const row of items) {
      const group = counts.get(key(row));
      if (group) group.push(row);
      else counts.set(key(row), [row]);
    }
    return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  };
  const registry = loadRegistry();
  const kindOf = new Map(registry.map((v) => [v.id, v.kind ?? "ehr"]));
  const tally = (items: Row[]): KindCounts => {
    const present = items.filter((r) => r.status !== "removed");
    const unusable = present.filter((r) => r.unusable !== null).length;
    return { entries: present.length, listed: present.length - unusable, unusable };
  };
  const certified = new Set(registry.flatMap((v) => (v.defaultFhirVersion ? [v.id] : [])));
  // Entries whose version the old rules took from the developer's certification.
  const population = rows
    .filter((r) => r.status !== "removed")
    .filter(
      (r) =>
        certified.has(r.vendorId) &&
        r.listVersion === 0 &&
        r.versionEvidence !== "list" &&
        !OLD_URL_VERSION.test(r.url.replace(/^[a-z]+:\/\/[^/]*/i, "")),
    );
  // Deterministic sample: entries are ordered by id (a hash), so every n-th one is a fair draw.
  const step = Math.max(1, Math.floor(population.length / sampleSize));
  const sample = population.filter((_, i) => i % step === 0).slice(0, sampleSize);
  return {
    entries: rows.length,
    listed: listed.length,
    kinds: VENDOR_KINDS.map((kind) => {
      const items = rows.filter((r) => (kindOf.get(r.vendorId) ?? "ehr") === kind);
      return { kind, developers: new Set(items.map((r) => r.vendorId)).size, ...tally(items) };
    }),
    payers: registry
      .filter((v) => v.kind === "payer")
      .map((v) => ({ vendorId: v.id, ...tally(rows.filter((r) => r.vendorId === v.id)) })),
    unusable: count(
      rows.filter((r) => r.unusable !== null),
      (r) => r.unusable!,
    ).map(([kind, items]) => ({ kind, entries: items.length, urls: new Set(items.map((r) => r.url)).size })),
    environments: environments(listed),
    ...productionNames(listed),
    certification: certificationFigures(sqlite),
    brands: brandsFigures(sqlite),
    versions: count(listed, (r) => `${r.versionEvidence ?? "none"}\t${r.fhirVersion}`).map(([key, items]) => {
      const [evidence, version] = key.split("\t") as [string, string];
      return { evidence, version, entries: items.length };
    }),
    states: count(listed, (r) => r.stateEvidence ?? "unknown").map(([evidence, items]) => ({
      evidence,
      entries: items.length,
    })),
    ruleMatches: ruleMatches(rows, registry),
    urls: URL_EVIDENCE.map((evidence) => ({
      evidence,
      entries: listed.filter((r) => r.urlEvidence === evidence).length,
    })),
    dstu2UrlServedR4: listed.filter((r) => fhirVersionOfUrl(r.url) === "DSTU2" && r.fhirVersion === "R4").length,
    sample: {
      size: sample.length,
      population: population.length,
      outcomes: count(sample, (r) =>
        r.unusable !== null
          ? `now unusable (${r.unusable}), not listed`
          : r.fhirVersion === "UNKNOWN"
            ? "now UNKNOWN (nothing seen; the certification may not stand for it)"
            : `now ${r.fhirVersion} from ${r.versionEvidence === "developer" ? "the certification (inferred, marked so)" : `its ${r.versionEvidence}`}`,
      ).map(([outcome, items]) => ({ outcome, entries: items.length })),
    },
  };
}

/**
 * What each environment rule makes non-production among the listed entries (each entry under the
 * first rule that holds for it, as the directory serves it), with what the rule found and every
 * distinct organization name, so a reader sees that no real organization is among them.
 */
function environments(listed: Row[]): AuditReport["environments"] {
  const byRule = new Map<string, Row[]>(ENVIRONMENT_RULES.map((rule) => [rule.id, []]));
  const found = new Map<Row, string>();
  for (const row of listed) {
    const match = environmentMatch(row.url, row.name);
    if (match === null) continue;
    byRule.get(match.rule)!.push(row);
    found.set(row, match.found);
  }
  return ENVIRONMENT_RULES.map((rule) => {
    const rows = byRule.get(rule.id)!;
    return {
      rule: rule.id,
      what: rule.what,
      entries: rows.map((r) => ({
        id: r.id.slice(0, 12),
        name: r.name,
        url: r.url,
        detail: `found ${JSON.stringify(found.get(r))}`,
      })),
      names: [...new Set(rows.flatMap((r) => (r.name === null ? [] : [r.name])))].sort(),
    };
  });
}

/** PRODUCTION_NAMES as whole words of a name, case-insensitive. */
const PRODUCTION_NAME = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${PRODUCTION_NAMES.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})(?![\\p{L}\\p{N}])`,
  "iu",
);

function productionNames(listed: Row[]): Pick<AuditReport, "productionNamesMarked" | "productionNamesListed"> {
  const named = listed.filter((r) => r.name !== null && PRODUCTION_NAME.test(r.name));
  const marked = named.flatMap((r) => {
    const match = environmentMatch(r.url, r.name);
    return match === null
      ? []
      : [
          {
            id: r.id.slice(0, 12),
            name: r.name,
            url: r.url,
            detail: `${match.rule} found ${JSON.stringify(match.found)}`,
          },
        ];
  });
  return { productionNamesMarked: marked, productionNamesListed: named.length };
}

/** The certified developers' products as the report cards read them (vendors.certifications, from the registry). */
function certificationFigures(sqlite: Database): AuditReport["certification"] {
  // Certified developers only: a health plan has no CHPL block.
  const rows = reportReads(sqlite)
    .vendors()
    .filter((row) => row[3] !== "payer");
  const byVendor = rows.map(([vendorId, , json]) => {
    const products = (json === null ? [] : JSON.parse(json)) as { status: string; standardizedApi: boolean }[];
    return {
      vendorId,
      products: products.length,
      active: products.filter((p) => p.status === "Active").length,
      withdrawn: products.filter((p) => /withdrawn/i.test(p.status)).length,
      standardizedApi: products.some((p) => p.status === "Active" && p.standardizedApi),
    };
  });
  const sum = (key: "products" | "active" | "withdrawn") => byVendor.reduce((n, v) => n + v[key], 0);
  return {
    vendors: byVendor.length,
    withProducts: byVendor.filter((v) => v.products > 0).length,
    products: sum("products"),
    active: sum("active"),
    withdrawn: sum("withdrawn"),
    standardizedApi: byVendor.filter((v) => v.standardizedApi).length,
    byVendor: byVendor.map(({ vendorId, products, active, withdrawn }) => ({ vendorId, products, active, withdrawn })),
  };
}

/** The brands bundle of the database's read model, as the server serves it unfiltered, counted (BrandsFigures). */
function brandsFigures(sqlite: Database): BrandsFigures {
  const data = buildDirectoryData(sqlite);
  const { columns: c, strings: s } = data;
  const vendors = auditVendorPages(sqlite);
  const vendorNames = new Map(vendors.map(([id, name]) => [id, name]));
  const ordinals = brandsEntries(new DirectorySearch(data), brandsFilter({ queryWords: [] }));
  const plan = planBrands(data, ordinals);
  const record = (o: number) => endpointRecordAt(data, o, vendorNames);
  const served = ordinals.filter((o) => plan.inBundle(c.url[o]!));

  const testOrPlaceholder = served.flatMap((o) => {
    const { id, organizationName: name, url } = record(o);
    const environment = environmentMatch(url, name);
    const nameRule = name === null ? undefined : NAME_RULES.find((rule) => rule.pattern.test(name));
    if (environment === null && nameRule === undefined) return [];
    const detail = environment ? `${environment.rule} found ${JSON.stringify(environment.found)}` : nameRule!.kind;
    return [{ id: id.slice(0, 12), name, url, detail }];
  });

  const nameOf = (o: number) => s.organizationNames[c.organizationName[o]!]!;
  const duplicates = duplicateBrandPairs(data, plan, served);
  const inBundleVendors = new Set(served.map((o) => s.vendorIds[c.vendor[o]!]!));
  return {
    entries: served.length,
    endpoints: new Set(served.map((o) => c.url[o]!)).size,
    brands: plan.brands.size,
    merged: [...plan.aliasOf.values()].filter((root) => plan.brands.has(root)).length,
    developers: plan.developers.size,
    testOrPlaceholder,
    duplicatesByUrl: duplicates.byUrl,
    duplicatesByPlace: duplicates.byPlace,
    sharedNpi: [...plan.sharedNpi].map(([key, others]) => {
      const o = plan.brands.get(key)!;
      const { div } = sharedNpiNarrative(data, vendorNames, o, others);
      return {
        npi: String(c.npi[o]),
        name: nameOf(o),
        vendorId: s.vendorIds[c.vendor[o]!]!,
        why: div
          .replace(/<[^>]+>/g, "")
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&amp;/g, "&"),
      };
    }),
    pagesAbsent: vendors
      .filter(([id, , page]) => inBundleVendors.has(id) && brandsPage(page) === null)
      .map(([vendorId, , page]) => ({ vendorId, page })),
  };
}

/**
 * Pairs of one developer's brands (of `plan`) whose names differ only in letter case,
 * punctuation or spacing and that share an Endpoint (`byUrl`), or an NPI and an address
 * (`byPlace`): what the bundle's merge must leave none of. `served`: the entries whose Endpoint
 * the bundle publishes; a brand's Endpoints are those of its entries and of its aliases'.
 */
export function duplicateBrandPairs(
  data: DirectoryData,
  plan: Pick<BrandPlan, "brands" | "aliasOf">,
  served: readonly number[],
): { byUrl: [string, string][]; byPlace: [string, string][] } {
  const { columns: c, strings: s } = data;
  // Each brand's Endpoints: those of its own entries and of the organizations merged into it.
  const brandOf = (o: number) => {
    const key = brandKeyOf(data, o);
    const root = plan.aliasOf.get(key) ?? key;
    return plan.brands.has(root) ? root : null;
  };
  const urlsOf = new Map<string, Set<number>>();
  for (const o of served) {
    if (c.organizationName[o]! < 0) continue;
    const brand = brandOf(o);
    if (brand !== null) urlsOf.set(brand, (urlsOf.get(brand) ?? new Set()).add(c.url[o]!));
  }
  const nameOf = (o: number) => s.organizationNames[c.organizationName[o]!]!;
  const pairs = (keysOf: (o: number) => string[]) => {
    const groups = new Map<string, number[]>();
    for (const o of plan.brands.values()) for (const key of keysOf(o)) groups.set(key, [...(groups.get(key) ?? []), o]);
    const found = new Map<string, [string, string]>();
    for (const group of groups.values())
      for (let i = 0; i < group.length; i++)
        for (let j = i + 1; j < group.length; j++)
          found.set(`${group[i]} ${group[j]}`, [nameOf(group[i]!), nameOf(group[j]!)]);
    return [...found.values()];
  };
  const folded = (o: number) => `${c.vendor[o]}\0${brandFold(nameOf(o))}`;

  return {
    byUrl: pairs((o) => [...(urlsOf.get(brandKeyOf(data, o)) ?? [])].map((url) => `${folded(o)}\0${url}`)),
    byPlace: pairs((o) => [`${folded(o)}\0${c.npi[o]}\0${c.city[o]}\0${c.state[o]}\0${c.zipCode[o]}`]),
  };
}

/** A path segment that is exactly a release name (`/r4/`): URLs the rule of segments ending in one adds nothing to. */
const PLAIN_VERSION_SEGMENT = /\/(?:dstu2|dstu3|stu3|r2|r3|r4b|r4|r5)(?=[/?#]|$)/i;
const pathOf = (url: string) => url.replace(/^[a-z]+:\/\/[^/]*/i, "");

/**
 * The matches of the rules that judge names, near-miss domains, internal hosts, version-suffixed
 * path segments and withdrawn certifications, on every stored entry.
 */
function ruleMatches(rows: Row[], registry: VendorDefinition[]): RuleMatches[] {
  const named = (r: Row): NamedEntry => ({ id: r.id.slice(0, 12), name: r.name, url: r.url, detail: r.unusableDetail });
  const present = rows.filter((r) => r.status !== "removed");
  const withdrawn = new Set(registry.flatMap((v) => v.lists.flatMap((l) => (l.certificationWithdrawn ? [l.id] : []))));
  const nameRules = NAME_RULES.map((rule) => {
    const matched = present.filter((r) => r.name !== null && rule.pattern.test(r.name));
    return {
      rule: `name: ${rule.kind}`,
      what: rule.reason,
      entries: matched.map(named),
      names: [...new Set(matched.map((r) => r.name!))].sort(),
    };
  });
  const kind = (k: string, what: string) => ({
    rule: k,
    what,
    entries: present.filter((r) => r.unusable === k).map(named),
  });
  return [
    ...nameRules,
    kind("near-miss-domain", "host on a domain one letter off a longer-named domain the same list uses more"),
    kind("internal-host", "an internal machine the list also names inside its internal domain, without that subdomain"),
    kind("query-or-fragment", "a URL with a query string or fragment, which a FHIR base URL cannot have"),
    {
      rule: "url: version at the end of a segment",
      what: "version read from a path segment ending in it after a separator (`/fhir-R4`), which a plain `/r4/` segment rule misses",
      entries: present
        .filter((r) => fhirVersionFromUrl(r.url) !== null && !PLAIN_VERSION_SEGMENT.test(pathOf(r.url)))
        .map(named),
    },
    {
      rule: "certification withdrawn",
      what: "entries of a list whose every certification is withdrawn: no version from the certification",
      entries: present
        .filter((r) => r.lists.split(",").some((id) => withdrawn.has(id)) && r.versionEvidence === null)
        .map(named),
    },
  ];
}

/** The report as text lines. */
export function formatAudit(report: AuditReport): string[] {
  const lines = [
    `entries: ${report.entries} stored, ${report.listed} listed`,
    "by kind of developer (ehr: certified health IT; payer: health plans' Patient Access APIs):",
    ...report.kinds.map(
      (k) =>
        `  ${k.kind}: ${k.developers} developers, ${k.entries} entries (${k.listed} listed, ${k.unusable} unusable)`,
    ),
    "health plans, per developer (kind payer):",
    ...report.payers.map((p) => `  ${p.vendorId}: ${p.entries} entries (${p.listed} listed, ${p.unusable} unusable)`),
    "unusable (stored, not listed, counted or exported):",
    ...report.unusable.map((u) => `  ${u.kind}: ${u.entries} entries, ${u.urls} URLs`),
    `  total: ${report.unusable.reduce((n, u) => n + u.entries, 0)} entries, ${report.unusable.reduce((n, u) => n + u.urls, 0)} URLs`,
    `non-production listed entries (test, QA, demo, sandbox, development, staging, training, placeholders; still listed, left out of the brands bundle and capability statistics): ${report.environments.reduce((n, e) => n + e.entries.length, 0)}, by rule:`,
    ...report.environments.map((e) => `  ${e.rule}: ${e.entries.length} entries (${e.what})`),
    `real organizations whose names hold a rule's letters (${PRODUCTION_NAMES.length} names): ${report.productionNamesListed} listed entries, ${report.productionNamesMarked.length} marked non-production`,
    ...report.productionNamesMarked.map((e) => `  ${e.id}  ${JSON.stringify(e.name)}  ${e.url}  (${e.detail})`),
    `report cards: ${report.certification.vendors} developers, ${report.certification.withProducts} with CHPL products (${report.certification.products} products: ${report.certification.active} active, ${report.certification.withdrawn} withdrawn); (g)(10) active for ${report.certification.standardizedApi}`,
    ...report.certification.byVendor
      .filter((v) => ["epic", "meditech", "athenahealth"].includes(v.vendorId))
      .map((v) => `  ${v.vendorId}: ${v.products} products, ${v.active} active, ${v.withdrawn} withdrawn`),
    ...formatBrands(report.brands),
    "fhirVersion of listed entries, by evidence:",
    ...report.versions.map((v) => `  ${v.evidence.padEnd(9)} ${v.version.padEnd(7)} ${v.entries}`),
    "state of listed entries, by evidence:",
    ...report.states.map((s) => `  ${s.evidence.padEnd(9)} ${s.entries}`),
    "rules, with every entry each matches (id prefix, name, URL; unusable ones with what was found):",
    ...report.ruleMatches.flatMap((m) => [
      `  ${m.rule} (${m.what}): ${m.entries.length} entries`,
      ...(m.names ? m.names.map((name) => `    name: ${JSON.stringify(name)}`) : []),
      ...m.entries.map((e) => `    ${e.id}  ${JSON.stringify(e.name)}  ${e.url}${e.detail ? `  (${e.detail})` : ""}`),
    ]),
    "non-production listed entries by rule, with every organization name and entry each matches (id prefix, name, URL, what was found):",
    ...report.environments.flatMap((e) => [
      `  ${e.rule}: ${e.entries.length} entries`,
      ...e.names.map((name) => `    name: ${JSON.stringify(name)}`),
      ...e.entries.map((x) => `    ${x.id}  ${JSON.stringify(x.name)}  ${x.url}  (${x.detail})`),
    ]),
    "URL of listed entries, as published or by kind of repair:",
    ...report.urls.map((u) => `  ${u.evidence.padEnd(14)} ${u.entries}`),
    `listed entries whose URL says DSTU2 but served as R4: ${report.dstu2UrlServedR4}`,
    `sample of ${report.sample.size} of the ${report.sample.population} entries the old rules gave the certified version, re-judged:`,
    ...report.sample.outcomes.map((o) => `  ${o.outcome}: ${o.entries}`),
  ];
  return lines;
}

function formatBrands(b: BrandsFigures): string[] {
  const pair = ([a, b]: [string, string]) => `    ${JSON.stringify(a)} / ${JSON.stringify(b)}`;
  return [
    `brands bundle (GET /api/v1/brands: production entries): ${b.endpoints} Endpoints of ${b.entries} entries; ${b.brands} brands (${b.merged} organizations merged into them as aliases) and ${b.developers} developers as brands`,
    `  test or placeholder entries in it (environment rules, name rules): ${b.testOrPlaceholder.length}`,
    ...b.testOrPlaceholder.map((e) => `    ${e.id}  ${JSON.stringify(e.name)}  ${e.url}  (${e.detail})`),
    `  duplicate brand pairs (one developer, names equal but for case, punctuation and spacing): ${b.duplicatesByUrl.length} sharing an Endpoint, ${b.duplicatesByPlace.length} sharing an NPI and address`,
    ...b.duplicatesByUrl.map(pair),
    ...b.duplicatesByPlace.map(pair),
    `  brands carrying an NPI another brand carries under another name, each saying why in its narrative: ${b.sharedNpi.length}`,
    ...b.sharedNpi.map((n) => `    ${n.npi}  ${JSON.stringify(n.name)} (${n.vendorId}): ${n.why}`),
    `  developers whose page for app developers is not https://, given as absent (no http:// link): ${b.pagesAbsent.length}`,
    ...b.pagesAbsent.map((p) => `    ${p.vendorId}  ${p.page}`),
  ];
}

/**
 * What ingest did to published URLs, from the summaries of the lists it read: every URL repaired
 * (as published, as stored, the repair) and every item dropped because its URL cannot be stored
 * (as published, why). Dropped items are not in the database, so only an ingest can tell.
 */
export function formatUrlFindings(summaries: ListSummary[]): string[] {
  const repairs = summaries.flatMap((s) => s.repairs.map((r) => ({ list: s.listId, ...r })));
  const dropped = summaries.flatMap((s) => s.dropped.map((d) => ({ list: s.listId, ...d })));
  const name = (n: string | null) => JSON.stringify(n);
  return [
    `published URLs repaired at ingest (stored with the URL after the arrow): ${repairs.length} entries`,
    ...repairs.map(
      (r) =>
        `  ${r.list}  ${name(r.organizationName)}  ${JSON.stringify(r.published)} → ${r.url}  (${r.kind}: ${r.repair})`,
    ),
    `published items dropped at ingest (not stored: their URL cannot be): ${dropped.length}`,
    ...dropped.map((d) => `  ${d.list}  ${name(d.organizationName)}  ${JSON.stringify(d.published)}  (${d.reason})`),
    ...formatNameRepairs(summaries),
  ];
}

/** How many organization names of each kind ingest repaired, by kind, then each (as published → as served). */
export function nameRepairCounts(summaries: ListSummary[]): Record<NameRepairKind, number> {
  const counts = Object.fromEntries(NAME_REPAIRS.map((kind) => [kind, 0])) as Record<NameRepairKind, number>;
  for (const repair of summaries.flatMap((s) => s.nameRepairs)) counts[repair.kind]++;
  return counts;
}

function formatNameRepairs(summaries: ListSummary[]): string[] {
  const repairs = summaries.flatMap((s) => s.nameRepairs.map((r) => ({ list: s.listId, ...r })));
  const counts = nameRepairCounts(summaries);
  return [
    `organization names repaired at ingest (served repaired; the entry's id stays the published name's): ${repairs.length} entries, ${NAME_REPAIRS.map((kind) => `${kind} ${counts[kind]}`).join(", ")}`,
    ...repairs.map((r) => `  ${r.list}  ${JSON.stringify(r.published)} → ${JSON.stringify(r.name)}  (${r.kind})`),
  ];
}
