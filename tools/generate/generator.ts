import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { fillCapabilityColumns } from "../../src/db/capability-columns";
import { discardPendingChanges } from "../../src/db/changes";
import { openDatabase } from "../../src/db/client";
import { markDatasetChanged, markGenerated } from "../../src/db/dataset-meta";
import { storeBody } from "../../src/db/probe-bodies";
import { canonicalUrl, entryId } from "../../src/model/identity";
import type { Audience } from "../../src/model/types";
import { SMART_CAPABILITIES, type SmartKind } from "../fhir/capability-documents";
import {
  buildProfile,
  type CapabilityProfile,
  SMART_GRANT_TYPES,
  smartAccess,
  smartBody,
  type Version,
} from "./capabilities";
import { writeChangeHistory } from "./changes";
import { writeHistory } from "./history";
import { practiceName, systemName } from "./names";
import { STATES, type StatePlaces } from "./places";
import { hashLabel, npi as makeNpi, Rng, WeightedPicker } from "./prng";
import { type ListModel, VENDORS, type VendorModel } from "./vendors";

/** Every generated timestamp is relative to this instant, so the same seed gives the same bytes. */
const GENERATED_AT = "2026-11-20T06:00:00.000Z";
const GENERATED_AT_MS = Date.parse(GENERATED_AT);

export interface GenerateOptions {
  endpoints: number;
  out: string;
  seed?: number;
  /** Replace an existing file at `out`. */
  force?: boolean;
  /** Days of availability history per probed URL (0: none). */
  historyDays?: number;
  /** Days of change-feed history before the generated version (0: none; the load itself is no change). */
  changeDays?: number;
  log?: (line: string) => void;
}

export interface GenerateResult {
  entries: number;
  urls: number;
  probes: number;
  /** Distinct CapabilityStatement and SMART configuration bodies (probe_bodies rows). */
  bodies: number;
  entrySources: number;
  seconds: number;
  bytes: number;
}

type Outcome = "success" | "partial-metadata" | "partial-smart" | "failed-http" | "failed-network" | "unchecked";
const OUTCOMES: Outcome[] = [
  "success",
  "partial-metadata",
  "partial-smart",
  "failed-http",
  "failed-network",
  "unchecked",
];
const OUTCOME_WEIGHTS = [0.55, 0.15, 0.03, 0.07, 0.08, 0.12];

/** Everything about one distinct base URL; entries that share the URL share its probe. */
interface UrlFacts {
  url: string;
  canonical: string;
  /** The FHIR version a path segment names (`/r4/`, `/DSTU2/`…), a list hint before any probe. */
  pathVersion: Version | null;
  tenantId: string | null;
  version: Version;
  primaryAudience: Audience | null;
  outcome: Outcome;
  smartKind: SmartKind;
  variant: number;
  home: StatePlaces;
  probedAtMs: number;
  used: boolean;
}

interface VendorPlan {
  model: VendorModel;
  count: number;
  /** Lazily filled: index → facts. */
  urls: (UrlFacts | undefined)[];
  urlCount: number;
  sharedPicker: WeightedPicker<number> | null;
  profiles: Map<Version, CapabilityProfile>;
  smartBodies: Map<SmartKind, string>;
  listChoices: Map<string, ListChoice>;
}

/** The list an entry of a given version and audience comes from, and the other-audience list of the same version. */
interface ListChoice {
  primary: ListModel;
  other: ListModel | undefined;
  primaryIds: string[];
  bothIds: string[];
  primaryAccess: string;
  bothAccess: string;
}

function accessOf(lists: ListModel[]): string {
  const patient = lists.some((l) => l.audience === "patient");
  const provider = lists.some((l) => l.audience === "provider");
  return patient ? (provider ? '["patient","provider"]' : '["patient"]') : provider ? '["provider"]' : "[]";
}

function listChoice(plan: VendorPlan, version: Version, audience: Audience | null): ListChoice {
  const key = `${version}|${audience}`;
  let choice = plan.listChoices.get(key);
  if (!choice) {
    const { model } = plan;
    const primary = listFor(model, version, audience);
    const other = otherAudienceList(model, primary);
    const id = (list: ListModel) => `${model.id}-${list.suffix}`;
    choice = {
      primary,
      other,
      primaryIds: [id(primary)],
      bothIds: other ? [id(primary), id(other)] : [id(primary)],
      primaryAccess: accessOf([primary]),
      bothAccess: accessOf(other ? [primary, other] : [primary]),
    };
    plan.listChoices.set(key, choice);
  }
  return choice;
}

const statePicker = new WeightedPicker(
  STATES,
  STATES.map((s) => s.weight),
);
const outcomePicker = new WeightedPicker(OUTCOMES, OUTCOME_WEIGHTS);

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function versionFromPath(url: string): Version | null {
  const match = /\/(dstu2|stu3|r4b|r4|r5)(?:\/|$)/i.exec(url.replace(/^https?:\/\/[^/]+/, ""));
  if (!match) return null;
  const v = match[1]!.toUpperCase();
  return v as Version;
}

function listFor(model: VendorModel, version: Version, audience: Audience | null): ListModel {
  const sameVersion = model.lists.filter((list) => list.fhirVersion === version);
  const candidates = sameVersion.length > 0 ? sameVersion : model.lists.filter((list) => list.fhirVersion === null);
  const pool = candidates.length > 0 ? candidates : model.lists;
  return pool.find((list) => list.audience === audience) ?? pool[0]!;
}

function otherAudienceList(model: VendorModel, list: ListModel): ListModel | undefined {
  if (list.audience === null) return undefined;
  return model.lists.find(
    (other) =>
      other !== list &&
      other.fhirVersion === list.fhirVersion &&
      other.audience !== null &&
      other.audience !== list.audience,
  );
}

function audiencesOf(model: VendorModel, version: Version): Audience[] {
  const list = listFor(model, version, null);
  const audiences = model.lists
    .filter((l) => l.fhirVersion === list.fhirVersion && l.audience !== null)
    .map((l) => l.audience!);
  return [...new Set(audiences)];
}

function urlFacts(seed: number, plan: VendorPlan, index: number, takenUrls: Set<string>): UrlFacts {
  const cached = plan.urls[index];
  if (cached) return cached;
  const { model } = plan;
  const rng = new Rng(hashLabel(`${seed}:url:${model.id}:${index}`));
  let url: string;
  let tenantId: string | null = null;
  let version: Version;
  let primaryAudience: Audience | null;
  if (model.urls.kind === "shared") {
    const shared = model.urls.urls[index]!;
    url = shared.url;
    version = shared.version;
    primaryAudience = null;
  } else {
    version = rng.weighted(model.versions);
    const audiences = audiencesOf(model, version);
    primaryAudience =
      audiences.length === 0
        ? null
        : audiences.length === 1
          ? audiences[0]!
          : rng.chance(0.55)
            ? "patient"
            : "provider";
    // Tenant URLs are random; draw again on the rare clash with a URL already handed out.
    let shape = model.urls.make(rng, version, primaryAudience);
    while (takenUrls.has(shape.url)) shape = model.urls.make(rng, version, primaryAudience);
    url = shape.url;
    tenantId = shape.tenantId;
  }
  takenUrls.add(url);
  // A URL that thousands of practices share is a production platform: it answers.
  const outcome = model.urls.kind === "shared" && index === 0 ? "success" : outcomePicker.pick(rng);
  const facts: UrlFacts = {
    url,
    canonical: canonicalUrl(url),
    pathVersion: versionFromPath(url),
    tenantId,
    version,
    primaryAudience,
    outcome,
    smartKind: model.smart(rng, primaryAudience),
    variant: rng.int(3),
    home: statePicker.pick(rng),
    probedAtMs: GENERATED_AT_MS - rng.int(7 * 24 * 3600) * 1000,
    used: false,
  };
  plan.urls[index] = facts;
  return facts;
}

function planVendors(seed: number, endpoints: number): VendorPlan[] {
  const totalShare = VENDORS.reduce((sum, v) => sum + v.share, 0);
  let assigned = 0;
  return VENDORS.map((model, i) => {
    const count =
      i === VENDORS.length - 1
        ? endpoints - assigned
        : Math.min(endpoints - assigned, Math.round((model.share / totalShare) * endpoints));
    assigned += count;
    const urlCount =
      model.urls.kind === "shared" ? model.urls.urls.length : Math.max(1, Math.round(count / model.urls.entriesPerUrl));
    const profiles = new Map<Version, CapabilityProfile>();
    for (const spec of model.profiles)
      profiles.set(spec.version, buildProfile(seed, model.id, model.name, model.oauthHost, spec));
    const smartBodies = new Map<SmartKind, string>();
    for (const kind of ["patient", "provider", "both", "backend"] as SmartKind[])
      smartBodies.set(kind, smartBody(kind, model.oauthHost));
    return {
      model,
      count,
      urls: new Array<UrlFacts | undefined>(urlCount),
      urlCount,
      sharedPicker:
        model.urls.kind === "shared"
          ? new WeightedPicker(
              model.urls.urls.map((_, j) => j),
              model.urls.urls.map((u) => u.weight),
            )
          : null,
      profiles,
      smartBodies,
      listChoices: new Map(),
    };
  });
}

function hasMetadata(outcome: Outcome): boolean {
  return outcome === "success" || outcome === "partial-metadata";
}
function hasSmart(outcome: Outcome): boolean {
  return outcome === "success" || outcome === "partial-smart";
}

const ZIP_ALPHABET = "0123456789";

/**
 * Writes a deterministic synthetic dataset of `endpoints` entries into a new SQLite file at
 * `out` (through a `.partial` file renamed at the end, so a crash never leaves a half dataset).
 */
export function generateDataset(options: GenerateOptions): GenerateResult {
  const started = performance.now();
  const elapsed = () =>
    `${((performance.now() - started) / 1000).toFixed(1)} s, RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`;
  const seed = options.seed ?? 1;
  const log = options.log ?? (() => {});
  const { out, endpoints } = options;
  if (!Number.isInteger(endpoints) || endpoints < 1)
    throw new Error(`endpoints must be a positive integer, got ${endpoints}`);
  if (existsSync(out) && !options.force) throw new Error(`${out} exists (use --force to replace it)`);
  const partial = `${out}.partial`;
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(partial + suffix, { force: true });

  const db = openDatabase(partial);
  const sqlite = db.sqlite;
  // Bulk load: journal in memory (Bun refuses OFF), no fsync, no FK checks; indexes dropped and rebuilt once at the end.
  sqlite.exec("PRAGMA journal_mode = DELETE");
  sqlite.exec("PRAGMA journal_mode = MEMORY");
  sqlite.exec("PRAGMA synchronous = OFF");
  sqlite.exec("PRAGMA foreign_keys = OFF");
  sqlite.exec("PRAGMA cache_size = -65536");
  sqlite.exec("PRAGMA threads = 2");
  const indexes = sqlite
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('entries', 'entry_sources', 'probes')",
    )
    .all() as { name: string; sql: string }[];
  for (const { name } of indexes) sqlite.exec(`DROP INDEX "${name.replaceAll('"', '""')}"`);

  const plans = planVendors(seed, endpoints);

  const insertVendor = sqlite.prepare(
    "INSERT INTO vendors (id, name, endpoint_list_url, last_scraped_at) VALUES (?, ?, ?, ?)",
  );
  const insertList = sqlite.prepare(
    "INSERT INTO vendor_lists (id, vendor_id, url, format, audience, fhir_version, last_scraped_at, last_entry_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const insertEntry = sqlite.prepare(
    `INSERT INTO entries (row_id, id, vendor_id, url, organization_name, npi, tenant_id, city, state, zip_code,
      list_fhir_version, list_access, fhir_version, access, status, last_updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertSource = sqlite.prepare("INSERT INTO entry_sources (entry_row_id, list_id, present) VALUES (?, ?, ?)");
  const insertProbe = sqlite.prepare(
    `INSERT INTO probes (url, probed_at, probe_status, metadata_http_status, metadata_body_id, smart_http_status, smart_body_id, error_kind,
      duration_ms, fhir_version, software_name, software_version, supported_resources, smart_supported, access, smart_capabilities, grant_types)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  // Each distinct body once (as the probe stores them); probes refer to it by id.
  const bodyIds = new Map<string, number>();
  const bodyId = (body: string) => {
    let id = bodyIds.get(body);
    if (id === undefined) {
      id = storeBody(sqlite, body);
      bodyIds.set(body, id);
    }
    return id;
  };

  const listCounts = new Map<string, number>();
  const seenIds = new Set<number>();
  const takenUrls = new Set<string>();
  const rng = new Rng(hashLabel(`${seed}:entries`));
  let rowId = 0;
  let sources = 0;
  const BATCH = 25_000;

  sqlite.exec("BEGIN");
  for (const plan of plans) {
    const { model } = plan;
    insertVendor.run(
      model.id,
      model.name,
      model.endpointListUrl,
      iso(GENERATED_AT_MS - 3600_000 - (hashLabel(model.id) % 3600_000)),
    );
    for (const list of model.lists) listCounts.set(`${model.id}-${list.suffix}`, 0);
  }
  sqlite.exec("COMMIT");

  sqlite.exec("BEGIN");
  for (const plan of plans) {
    const { model } = plan;
    for (let n = 0; n < plan.count; n++) {
      const urlIndex = plan.sharedPicker ? plan.sharedPicker.pick(rng) : Math.floor(plan.urlCount * rng.next() ** 2);
      const facts = urlFacts(seed, plan, Math.min(urlIndex, plan.urlCount - 1), takenUrls);
      facts.used = true;

      // Lists that carry the entry, and the hints they give.
      const audience = facts.primaryAudience ?? (plan.sharedPicker ? (rng.chance(0.6) ? "patient" : "provider") : null);
      const choice = listChoice(plan, facts.version, audience);
      const both = choice.other !== undefined && rng.chance(model.bothListsChance);
      const lists = both ? choice.bothIds : choice.primaryIds;
      const listAccess = both ? choice.bothAccess : choice.primaryAccess;
      const listFhirVersion = choice.primary.fhirVersion ?? facts.pathVersion ?? "UNKNOWN";

      // Where: mostly the URL's home state (a health system's sites cluster), some unknown.
      let state: StatePlaces | null = rng.chance(0.7) ? facts.home : statePicker.pick(rng);
      if (rng.chance(0.035)) state = null;
      const place = state ? state.cities[rng.int(state.cities.length)]! : null;
      const city = place && !rng.chance(0.02) ? place[0] : null;
      const zip = place
        ? rng.chance(0.15)
          ? `${place[1]}${rng.chars(ZIP_ALPHABET, 2)}-${rng.chars(ZIP_ALPHABET, 4)}`
          : `${place[1]}${rng.chars(ZIP_ALPHABET, 2)}`
        : null;
      const ctx = { city: place ? place[0] : "Springfield", stateName: state ? state.name : "America" };

      // Who: a name unique on this URL (the id must be unique), an NPI on some.
      let organizationName: string | null = null;
      let npi: string | null = null;
      let id = "";
      for (let attempt = 0; ; attempt++) {
        organizationName = rng.chance(model.systemNameShare) ? systemName(rng, ctx) : practiceName(rng, ctx);
        if (attempt > 3) organizationName += ` – ${ctx.city} ${attempt}`;
        else if (attempt === 0 && rng.chance(0.006)) organizationName = null;
        npi = rng.chance(model.npiRate) ? makeNpi(rng) : null;
        id = entryId(model.id, facts.canonical, npi, organizationName);
        const key = parseInt(id.slice(0, 13), 16);
        if (!seenIds.has(key)) {
          seenIds.add(key);
          break;
        }
      }

      // What it serves: probe results first, list hints otherwise (docs/api.md, "Records").
      const meta = hasMetadata(facts.outcome);
      const smart = hasSmart(facts.outcome);
      const fhirVersion = meta ? facts.version : listFhirVersion;
      const access = (smart ? smartAccess(facts.smartKind) : null) ?? listAccess;
      const removed = rng.chance(0.015);
      const status = removed
        ? "removed"
        : meta
          ? "verified"
          : facts.outcome === "failed-network"
            ? "unresponsive"
            : "listed";
      const lastUpdated = iso(GENERATED_AT_MS - rng.int(30 * 24 * 3600) * 1000);

      rowId++;
      insertEntry.run(
        rowId,
        id,
        model.id,
        facts.url,
        organizationName,
        npi,
        facts.tenantId,
        city,
        state ? state.code : null,
        zip,
        listFhirVersion,
        listAccess,
        fhirVersion,
        access,
        status,
        lastUpdated,
      );
      for (const listId of lists) {
        insertSource.run(rowId, listId, removed ? 0 : 1);
        if (!removed) listCounts.set(listId, listCounts.get(listId)! + 1);
        sources++;
      }
      if (rowId % BATCH === 0) {
        sqlite.exec("COMMIT");
        sqlite.exec("BEGIN");
        if (rowId % 200_000 === 0) log(`  ${rowId.toLocaleString("en-US")} entries (${elapsed()})`);
      }
    }
  }
  sqlite.exec("COMMIT");
  log(`  entries written (${elapsed()})`);
  seenIds.clear();
  takenUrls.clear();

  // Lists and probes (one per distinct URL that was probed).
  let urls = 0;
  let probes = 0;
  sqlite.exec("BEGIN");
  for (const plan of plans) {
    const { model } = plan;
    for (const list of model.lists) {
      const listId = `${model.id}-${list.suffix}`;
      insertList.run(
        listId,
        model.id,
        list.url,
        list.format,
        list.audience,
        list.fhirVersion,
        iso(GENERATED_AT_MS - 3600_000),
        listCounts.get(listId)!,
      );
    }
    for (let index = 0; index < plan.urlCount; index++) {
      const facts = plan.urls[index];
      if (!facts?.used) continue;
      urls++;
      if (facts.outcome === "unchecked") continue;
      probes++;
      const profile = plan.profiles.get(facts.version)!;
      const variant = profile.variants[facts.variant]!;
      const meta = hasMetadata(facts.outcome);
      const smart = hasSmart(facts.outcome);
      const rng = new Rng(hashLabel(`${seed}:probe:${facts.url}`));
      const network = facts.outcome === "failed-network";
      const httpError = rng.pick([401, 403, 500, 503]);
      insertProbe.run(
        facts.url,
        iso(facts.probedAtMs),
        facts.outcome === "success" ? "success" : facts.outcome.startsWith("partial") ? "partial" : "failed",
        network ? null : meta ? 200 : httpError,
        meta ? bodyId(variant.body) : null,
        network ? null : smart ? 200 : meta ? 404 : httpError,
        smart ? bodyId(plan.smartBodies.get(facts.smartKind)!) : null,
        network ? rng.pick(["dns", "timeout", "refused", "tls"]) : meta && smart ? null : "http",
        network ? 10_000 : 80 + rng.int(1500),
        meta ? facts.version : "UNKNOWN",
        meta ? profile.softwareName : null,
        meta ? profile.softwareVersion : null,
        meta ? JSON.stringify(variant.resources) : "[]",
        smart ? 1 : 0,
        smart ? smartAccess(facts.smartKind) : null,
        smart ? JSON.stringify(SMART_CAPABILITIES[facts.smartKind]) : "[]",
        smart ? JSON.stringify(SMART_GRANT_TYPES[facts.smartKind]) : "[]",
      );
      if (probes % BATCH === 0) {
        sqlite.exec("COMMIT");
        sqlite.exec("BEGIN");
      }
    }
    plan.urls.length = 0;
  }
  sqlite.exec("COMMIT");
  log(
    `  ${rowId.toLocaleString("en-US")} entries, ${urls.toLocaleString("en-US")} URLs, ${probes.toLocaleString("en-US")} probes, ${bodyIds.size.toLocaleString("en-US")} distinct bodies (${elapsed()}); building indexes`,
  );

  if (options.historyDays) {
    const rows = writeHistory(sqlite, { days: options.historyDays, seed, now: GENERATED_AT_MS });
    log(`  ${rows.toLocaleString("en-US")} URLs with ${options.historyDays} days of history (${elapsed()})`);
  }

  for (const { name, sql } of indexes) {
    sqlite.exec(sql);
    log(`  index ${name} (${elapsed()})`);
  }
  // The capability columns the probe derives as it writes (supports, verdicts), derived here
  // once, as openDatabase would at every start on a copy of this file (2.4 s at 150,000 entries).
  const derived = fillCapabilityColumns(sqlite);
  log(`  capability columns of ${derived.toLocaleString("en-US")} probes (${elapsed()})`);
  discardPendingChanges(sqlite);
  if (options.changeDays) {
    const written = writeChangeHistory(sqlite, {
      days: options.changeDays,
      seed,
      endMs: GENERATED_AT_MS - 3_600_000,
      rows: rowId,
    });
    log(
      `  ${written.changes.toLocaleString("en-US")} changes in ${written.versions.toLocaleString("en-US")} versions over ${options.changeDays} days (${elapsed()})`,
    );
  }
  sqlite.exec("BEGIN");
  markDatasetChanged(sqlite, GENERATED_AT);
  // Invented hosts: the server never refreshes this dataset.
  markGenerated(sqlite, "data:generate-1m");
  sqlite.exec("COMMIT");
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.close();
  for (const suffix of ["-wal", "-shm"]) rmSync(partial + suffix, { force: true });
  for (const suffix of ["", "-wal", "-shm"]) rmSync(out + suffix, { force: true });
  renameSync(partial, out);
  const bytes = statSync(out).size;
  return {
    entries: rowId,
    urls,
    probes,
    bodies: bodyIds.size,
    entrySources: sources,
    seconds: (performance.now() - started) / 1000,
    bytes,
  };
}
