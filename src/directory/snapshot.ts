import type { Database } from "bun:sqlite";
import { closeReader } from "../db/client";
import { readLastRefreshAt } from "../db/dataset-meta";
import { dayNumber, dayText, NATIONAL, readReportHistory } from "../db/report-history";
import { type ProbeRefRow, snapshotReads } from "../db/snapshot-reads";
import {
  type CapabilityReport,
  capabilityReport,
  type ProbeFailure,
  parseDocument,
  READY,
  type Ready,
  schemeOf,
} from "../model/capability-rules";
import type { CapabilityCounts } from "../model/capability-schemas";
import type { EndpointRecord, ListSort } from "../model/endpoints";
import { type EnvironmentMatch, environmentMatch } from "../model/environment";
import type { FhirVersionBasis, UnusableReason } from "../model/evidence";
import { type TlsFacts, UNKNOWN_TLS } from "../model/probe";
import { type HistoryPoint, historyFigures, type ReportCards } from "../model/report-card";
import type { StatsRecord } from "../model/stats";
import { FHIR_VERSIONS, type FhirVersion, type ProbeStatus } from "../model/types";
import type { VendorRecord } from "../model/vendors";
import type { AvailabilityData } from "./availability-data";
import { countBits, hasBit } from "./bitset";
import { statedVersionAt } from "./capability-stats";
import type { DirectoryData } from "./directory-data";
import { IdLookup } from "./id-lookup";
import type { EntryLookups } from "./lookups";
import { Lru } from "./lru";
import { RelevanceSearch } from "./relevance";
import {
  endpointRecordAt,
  endpointRecordsAt,
  environmentRuleAt,
  fhirVersionBasisAt,
  lookup,
  type RecordSource,
  wideRecordsAt,
} from "./render";
import { DirectorySearch, type EndpointFilter } from "./search";
import { tlsChecks } from "./tls-checks";

/** A stored JSON list of strings, as canonical JSON text, with its length. */
interface JsonList {
  count: number;
  json: string;
}

/** The capabilities summary; the lists come serialised, as they are only ever sent on. */
interface CapabilitiesSummary {
  fhirVersion: string | null;
  softwareName: string | null;
  softwareVersion: string | null;
  supportedResources: JsonList;
  smartSupported: boolean;
  smartCapabilities: JsonList;
  grantTypes: JsonList;
}

/** What an answer shares with every URL whose probe kept the same two bodies (and states the same version). */
export interface CapabilitiesShared {
  summary: CapabilitiesSummary;
  /** Facets, checks and verdict, read from the two bodies (src/model/capability-rules.ts). */
  report: CapabilityReport;
  /** The raw bodies, exactly the bytes the server sent (UTF-8). */
  capabilityStatementBytes: Uint8Array<ArrayBuffer> | null;
  smartConfigurationBytes: Uint8Array<ArrayBuffer> | null;
}

/**
 * The capabilities of one entry: its own fields, and the part it shares with every URL whose
 * probe kept the same CapabilityStatement and SMART configuration, named by `sharedKey` (the
 * SHA-256 of both bodies and a hash of the stored summary derived from them) and read by
 * `shared()` only when no cached answer has it.
 */
export interface CapabilitiesRecord {
  endpointId: string;
  url: string;
  vendorName: string;
  lastProbed: string | null;
  probeStatus: ProbeStatus;
  /** `url`, `vendorName`, `lastProbed` and `probeStatus` as JSON members (`,"url":…`), kept per URL. */
  ownJson: string;
  /** The summary's `tls` member (`,"tls":{…}`): per host, so not in the shared part. */
  tlsJson: string;
  /** The URL's TLS checks, the items alone (`{…},{…},{…}`): they close the `checks` list. */
  tlsChecksJson: string;
  sharedKey: string;
  shared: () => CapabilitiesShared;
}

/** The capability statistics of a version: in all, and per developer with entries (in vendor order). */
export interface CapabilityStatsRecord {
  overall: CapabilityCounts;
  vendors: ({ vendorId: string; vendorName: string } & CapabilityCounts)[];
}

/** A URL's probe, as a capabilities answer needs it (`rowId` -1: never probed). */
interface UrlProbe {
  rowId: number;
  probedAt: string | null;
  probeStatus: ProbeStatus;
  sharedKey: string;
  metadataBodyId: number | null;
  smartBodyId: number | null;
  /** The release the URL's list or path states, for the `fhir-version-matches` check. */
  statedVersion: FhirVersion | null;
  /** The base URL (the verdict reads its scheme). */
  url: string;
  /** Why /metadata failed, when the probe kept neither body (the `unknown` reason); else null. */
  failure: ProbeFailure | null;
  /** The URL's TLS checks, the items alone. */
  tlsChecksJson: string;
  /** `,"tls":{…}` of the URL's host. */
  tlsJson: string;
  /** `ownJson` for entries of vendor `ownVendor` (entries of one URL almost always share a vendor). */
  ownJson?: string;
  ownVendor?: number;
}

const UNPROBED_KEY = "unprobed";
const UNPROBED: CapabilitiesShared = {
  report: capabilityReport({ probed: false, statement: null, smart: null, statedVersion: null, url: null }),
  summary: {
    fhirVersion: null,
    softwareName: null,
    softwareVersion: null,
    supportedResources: { count: 0, json: "[]" },
    smartSupported: false,
    smartCapabilities: { count: 0, json: "[]" },
    grantTypes: { count: 0, json: "[]" },
  },
  capabilityStatementBytes: null,
  smartConfigurationBytes: null,
};
const json = (value: string | null) => (value === null ? "null" : JSON.stringify(value));
const decoder = new TextDecoder();

/**
 * A URL's own parts of its capabilities answer, from its probe's stored facts: its TLS checks (the
 * items alone: they close the `checks` list, after the checks read from the documents) and its
 * summary's `tls` member.
 */
function placeJson(
  url: string,
  probedAt: string | null,
  tls: TlsFacts,
  finalUrl: string | null,
  redirectCount: number | null,
): { tlsChecksJson: string; tlsJson: string } {
  return {
    tlsChecksJson: JSON.stringify(tlsChecks({ url, probedAt, tls, finalUrl, redirectCount })).slice(1, -1),
    tlsJson: `,"tls":${JSON.stringify({
      protocol: tls.protocol,
      certificateExpiresAt: tls.certificateExpiresAt,
      issuer: tls.issuer,
      verified: tls.verified,
    })}`,
  };
}

/**
 * One dataset version, frozen: the list operation answers from its in-memory DirectoryData, and
 * its own connection holds the read transaction the data was read in (or one pinned at the same
 * version), so records read by id come from the very same version.
 */
export class DatasetSnapshot {
  readonly version: number;
  readonly search: DirectorySearch;
  /** The list in `sort=relevance` order, beside the default one. */
  private readonly relevance: RelevanceSearch;
  readonly vendors: VendorRecord[];
  readonly stats: StatsRecord;
  private readonly vendorNames: Map<string, string>;
  private readonly ids: IdLookup;
  private readonly reads: ReturnType<typeof snapshotReads>;
  /** Per URL (index into the URL table), filled on first use: its probe, null when never probed. */
  private readonly urlProbes: (UrlProbe | undefined)[];
  /** Per row id: the entry's ordinal, -1 for none; built by the first idOfRow. */
  private ordinalOfRow: Int32Array | undefined;
  private capabilityStatsCache: CapabilityStatsRecord | undefined;
  /** One string per distinct body pair. */
  private readonly sharedKeys = new Map<string, string>();
  /** One string per distinct `checks` and `tls` member: URLs of one host mostly share them. */
  private readonly places = new Map<string, string>();

  /**
   * `sqlite` must hold an open read transaction at `data.version`; the snapshot owns it from now
   * on. `lookups`: the version's lookup indexes when built ahead, else they are built now.
   */
  constructor(
    private readonly sqlite: Database,
    private readonly data: DirectoryData,
    lookups?: EntryLookups,
  ) {
    this.version = data.version;
    this.search = new DirectorySearch(data, lookups);
    this.relevance = new RelevanceSearch(data, this.search);
    this.ids = new IdLookup(data.columns.id, data.ids);
    this.reads = snapshotReads(sqlite);
    this.vendors = this.readVendors();
    this.vendorNames = new Map(this.vendors.map((vendor) => [vendor.id, vendor.name]));
    this.stats = this.computeStats(readLastRefreshAt(sqlite));
    this.urlProbes = new Array(data.strings.urls.length);
  }

  /** Runs `query` on this snapshot's dataset version: the one its ETag names. */
  read<T>(query: (sqlite: Database) => T): T {
    return query(this.sqlite);
  }

  close() {
    closeReader(this.sqlite);
  }

  /**
   * A page of the listings: its records, and how each one's fhirVersion is known; in the list's
   * default order, or by how well names match the query (`relevance`).
   */
  list(
    filter: EndpointFilter,
    offset: number,
    limit: number,
    sort?: ListSort,
  ): {
    total: number;
    records: EndpointRecord[];
    /** Whether each record holds a character past U+00FF (src/server/http/json.ts, dataPageText). */
    wide: boolean[];
    bases: FhirVersionBasis[];
    ready: Ready[][];
    /** With `near`: each record's miles from its point, to 0.01 mile. */
    distance?: number[];
  } {
    const { total, ordinals } =
      sort === "relevance" ? this.relevance.page(filter, offset, limit) : this.search.search(filter, offset, limit);
    const { near } = filter;
    // Each set read over the whole page, as the records are (endpointRecordsAt): the reads overlap.
    const ready: Ready[][] = ordinals.map(() => []);
    for (const kind of READY) {
      const set = this.data.facets.ready.get(kind);
      if (set !== undefined)
        for (let i = 0; i < ordinals.length; i++) if (hasBit(set, ordinals[i]!)) ready[i]!.push(kind);
    }
    return {
      total,
      records: endpointRecordsAt(this.data, ordinals, this.vendorNames),
      wide: wideRecordsAt(this.data, ordinals, this.vendorNames),
      bases: ordinals.map((ordinal) => fhirVersionBasisAt(this.data, ordinal)),
      ready,
      ...(near
        ? {
            distance: this.search.lookups
              .milesOfEach(ordinals, near.latitude, near.longitude)
              .map((miles) => Math.round((miles ?? 0) * 100) / 100),
          }
        : {}),
    };
  }

  /**
   * The columns and vendor names records are made of, for renderers that write many records
   * without building them (the export pages through `search` and renders from these).
   */
  get recordSource(): RecordSource {
    return { data: this.data, vendorNames: this.vendorNames };
  }

  /** The record of an id, from the in-memory columns. */
  endpoint(id: string): EndpointRecord | null {
    const ordinal = this.ids.find(id);
    return ordinal === -1 ? null : endpointRecordAt(this.data, ordinal, this.vendorNames, id);
  }

  /**
   * The id of the entry stored under `rowId` (the database's row id), or null when this version
   * has none: for the change feed, whose rows name entries by row id. The inverse of the rowId
   * column is built on first use (4 bytes per row id: 4 MB at 1M entries).
   */
  idOfRow(rowId: number): string | null {
    if (this.ordinalOfRow === undefined) {
      const rows = this.data.columns.rowId;
      let max = 0;
      for (let i = 0; i < rows.length; i++) if (rows[i]! > max) max = rows[i]!;
      this.ordinalOfRow = new Int32Array(max + 1).fill(-1);
      for (let i = 0; i < rows.length; i++) this.ordinalOfRow[rows[i]!] = i;
    }
    const ordinal = rowId < this.ordinalOfRow.length ? this.ordinalOfRow[rowId]! : -1;
    if (ordinal === -1) return null;
    const ids = this.data.columns.id;
    return Buffer.from(ids.buffer, ids.byteOffset + ordinal * 32, 32).toString("hex");
  }

  /**
   * Why an entry is kept out of the listings, and what its rule found; null for an entry the
   * listings show (no read: only entries after `listed` in the list order can be unusable).
   */
  unusable(id: string): { reason: UnusableReason; detail: string | null } | null {
    const ordinal = this.ids.find(id);
    if (ordinal === -1 || ordinal < this.data.listed) return null;
    const row = this.reads.unusableById(id);
    return row === undefined ? null : { reason: row[0] as UnusableReason, detail: row[1] };
  }

  /**
   * The environment rule that makes an entry non-production, its code and what it found; null for
   * a production entry or an unknown id (src/model/environment.ts).
   */
  environment(id: string): EnvironmentMatch | null {
    const ordinal = this.ids.find(id);
    if (ordinal === -1 || environmentRuleAt(this.data, ordinal) === null) return null;
    const { columns: c, strings: s } = this.data;
    return environmentMatch(s.urls[c.url[ordinal]!]!, lookup(s.organizationNames, c.organizationName[ordinal]!));
  }

  /** The index of an entry's URL in the URL table; -1 for an unknown id. */
  urlIndexOf(id: string): number {
    const ordinal = this.ids.find(id);
    return ordinal === -1 ? -1 : this.data.columns.url[ordinal]!;
  }

  /** The URL at `index` of the URL table. */
  urlAt(index: number): string {
    return this.data.strings.urls[index]!;
  }

  /** The availability answers of this version, per URL (src/directory/availability-data.ts). */
  get availability(): AvailabilityData {
    return this.data.availability;
  }

  /**
   * The capabilities of an entry: its own fields from the in-memory columns and its URL's probe
   * (read once per URL and version, then kept), the shared part only named (see CapabilitiesRecord).
   */
  capabilities(id: string): CapabilitiesRecord | null {
    const ordinal = this.ids.find(id);
    if (ordinal === -1) return null;
    const { columns, strings } = this.data;
    const urlIndex = columns.url[ordinal]!;
    const url = strings.urls[urlIndex]!;
    const vendorId = strings.vendorIds[columns.vendor[ordinal]!]!;
    const vendorName = this.vendorNames.get(vendorId) ?? vendorId;
    let probe = this.urlProbes[urlIndex];
    if (probe === undefined) {
      probe = this.probeOf(url, urlIndex, this.data.probeRowIds[urlIndex]!);
      this.urlProbes[urlIndex] = probe;
    }
    const vendor = columns.vendor[ordinal]!;
    let ownJson = probe.ownVendor === vendor ? probe.ownJson : undefined;
    if (ownJson === undefined) {
      ownJson = `,"url":${json(url)},"vendorName":${json(vendorName)},"lastProbed":${json(probe.probedAt)},"probeStatus":${json(probe.probeStatus)}`;
      if (probe.ownVendor === undefined) {
        probe.ownJson = ownJson;
        probe.ownVendor = vendor;
      }
    }
    const known = probe;
    return {
      endpointId: id,
      url,
      vendorName,
      lastProbed: known.probedAt,
      probeStatus: known.probeStatus,
      ownJson,
      tlsJson: known.tlsJson,
      tlsChecksJson: known.tlsChecksJson,
      sharedKey: known.sharedKey,
      shared: () => this.sharedOf(known),
    };
  }

  /**
   * A URL's probe, read by the row id the index recorded for this version (no URL index walk);
   * the URL is checked, and read by it instead if they differ (VACUUM may renumber rows).
   */
  private probeOf(url: string, urlIndex: number, rowId: number): UrlProbe {
    let row: ProbeRefRow | undefined;
    if (rowId !== -1) {
      row = this.reads.probeByRowId(rowId);
      if (row?.[0] !== url) row = undefined;
    }
    row ??= this.reads.probeByUrl(url);
    if (row === undefined)
      return {
        rowId: -1,
        probedAt: null,
        probeStatus: "unchecked",
        sharedKey: UNPROBED_KEY,
        metadataBodyId: null,
        smartBodyId: null,
        statedVersion: null,
        url,
        failure: null,
        ...this.intern(placeJson(url, null, UNKNOWN_TLS, null, null)),
      };
    const [
      ,
      probedAt,
      probeStatus,
      metadataBodyId,
      smartBodyId,
      metadataSha256,
      smartSha256,
      probeRowId,
      protocol,
      certificateExpiresAt,
      issuer,
      verified,
      finalUrl,
      redirectCount,
      errorKind,
      metadataHttpStatus,
      ...summary
    ] = row;
    const tls = { protocol, certificateExpiresAt, issuer, verified: verified === null ? null : verified === 1 };
    // The shared part is a function of the two bodies and the summary stored with them (derived
    // from them alone, but by the code of the day the probe ran), so all three name it: the
    // summary by a 64-bit hash, which keeps keys short when many URLs have their own bodies. A
    // body's SHA-256 is filled when the database is opened after the migration that introduced
    // it; until then its id (never reused in a file) names it.
    const name = (id: number | null, sha256: string | null) =>
      id === null ? "-" : (sha256 ?? `#${id}@${this.sqlite.filename}`);
    // The version the list or URL states is an input of one check, and the URL's scheme of the
    // verdict, so they name the part too.
    const statedVersion = statedVersionAt(this.data, urlIndex);
    // Without either body the verdict's reason is the probe's cause, so the cause names the part too.
    const failure =
      metadataBodyId === null && smartBodyId === null ? { error: errorKind, httpStatus: metadataHttpStatus } : null;
    const key = `${name(metadataBodyId, metadataSha256)}:${name(smartBodyId, smartSha256)}:${Bun.hash(JSON.stringify(summary)).toString(36)}:${statedVersion ?? "-"}:${schemeOf(url)}${failure === null ? "" : `:${failure.error}:${failure.httpStatus}`}`;
    let sharedKey = this.sharedKeys.get(key);
    if (sharedKey === undefined) {
      sharedKey = key;
      this.sharedKeys.set(key, key);
    }
    // The probe writes only PROBE_STATUSES; the schema types the column as text.
    return {
      rowId: probeRowId,
      probedAt,
      probeStatus: probeStatus as ProbeStatus,
      sharedKey,
      metadataBodyId,
      smartBodyId,
      statedVersion,
      url,
      failure,
      ...this.intern(placeJson(url, probedAt, tls, finalUrl, redirectCount)),
    };
  }

  private intern({ tlsChecksJson, tlsJson }: { tlsChecksJson: string; tlsJson: string }) {
    const one = (text: string) => {
      const found = this.places.get(text);
      if (found !== undefined) return found;
      this.places.set(text, text);
      return text;
    };
    return { tlsChecksJson: one(tlsChecksJson), tlsJson: one(tlsJson) };
  }

  /**
   * Facets, checks and verdicts counted over the listed entries, in all and per developer: computed
   * on first use, then kept for this version.
   */
  get capabilityStats(): CapabilityStatsRecord {
    if (this.capabilityStatsCache === undefined) {
      const { overall, vendors } = this.data.capabilityStats;
      const byId = new Map(this.data.strings.vendorIds.map((id, i) => [id, vendors[i] ?? null]));
      this.capabilityStatsCache = {
        overall,
        vendors: this.vendors.flatMap((vendor) => {
          const counts = byId.get(vendor.id);
          return counts ? [{ vendorId: vendor.id, vendorName: vendor.name, ...counts }] : [];
        }),
      };
    }
    return this.capabilityStatsCache;
  }

  /** Each developer's report card and the directory's figures, as of this version. */
  get reportCards(): ReportCards {
    return this.data.reportCards;
  }

  /**
   * The history of one developer (or, with `vendorId` null, of the directory) from day `from` to
   * day `to` (days since the epoch, both included), oldest first: the kept points of earlier days,
   * and for the day of this version's last write its own figures (kept or not yet kept).
   */
  reportHistory(vendorId: string | null, from: number, to: number): HistoryPoint[] {
    const { asOf, national, vendors } = this.data.reportCards;
    const today = asOf === null ? null : dayNumber(asOf);
    const points: HistoryPoint[] = [];
    for (const { day, figures, generated } of readReportHistory(this.sqlite, vendorId ?? NATIONAL, from, to))
      if (day !== today)
        points.push({ day: dayText(day), figures, ...(generated ? { generated: true as const } : {}) });
    const card = vendorId === null ? national : vendors.find((v) => v.vendorId === vendorId);
    if (today !== null && card !== undefined && today >= from && today <= to) {
      const at = points.findIndex((point) => point.day > dayText(today));
      points.splice(at === -1 ? points.length : at, 0, { day: dayText(today), figures: historyFigures(card) });
    }
    return points;
  }

  /** The summary and raw bodies of a probe: read only when no cached answer has them. */
  private sharedOf(probe: UrlProbe): CapabilitiesShared {
    if (probe.rowId === -1) return UNPROBED;
    const [fhirVersion, softwareName, softwareVersion, resources, smartSupported, smartCapabilities, grantTypes] =
      this.reads.summaryByRowId(probe.rowId);
    const body = (id: number | null) => (id === null ? null : this.reads.bodyById(id));
    const statement = body(probe.metadataBodyId);
    const smart = body(probe.smartBodyId);
    const parse = (bytes: Uint8Array | null) => parseDocument(bytes === null ? null : decoder.decode(bytes));
    return {
      report: capabilityReport({
        probed: true,
        statement: parse(statement),
        smart: parse(smart),
        statedVersion: probe.statedVersion,
        url: probe.url,
        failure: probe.failure,
      }),
      summary: {
        fhirVersion: probe.metadataBodyId !== null ? fhirVersion : null,
        softwareName,
        softwareVersion,
        supportedResources: jsonList(resources),
        smartSupported: smartSupported === 1,
        smartCapabilities: jsonList(smartCapabilities),
        grantTypes: jsonList(grantTypes),
      },
      capabilityStatementBytes: statement,
      smartConfigurationBytes: smart,
    };
  }

  private readVendors(): VendorRecord[] {
    const rows = this.reads.vendors();
    const { vendor } = this.data.facets;
    return rows.map(([id, name, endpointListUrl, lastScrapedAt, kind]) => {
      const bits = vendor.get(id);
      return {
        id,
        name,
        kind: kind === "payer" ? "payer" : "ehr",
        endpointCount: bits ? countBits(bits) : 0,
        endpointListUrl,
        lastScrapedAt,
      };
    });
  }

  private computeStats(lastUpdated: string | null): StatsRecord {
    const fhirVersionCounts = Object.fromEntries(
      FHIR_VERSIONS.map((version) => {
        const bits = this.data.facets.fhirVersion.get(version);
        return [version, bits ? countBits(bits) : 0];
      }),
    ) as Record<FhirVersion, number>;
    return { totalEndpoints: this.data.listed, vendorCount: this.vendors.length, fhirVersionCounts, lastUpdated };
  }
}

/**
 * Stored JSON string lists (resource types, SMART capabilities, grant types) parsed and
 * re-serialised once per distinct text: servers of one vendor and version mostly publish the
 * same lists.
 */
const jsonLists = new Lru<JsonList>(4_096, { maxWeight: 16 * 1024 * 1024, weigh: (list) => list.json.length * 2 + 64 });
const EMPTY: JsonList = { count: 0, json: "[]" };

function jsonList(text: string | null): JsonList {
  if (text === null || text === "[]") return EMPTY;
  return jsonLists.getOrCompute(text, () => {
    const list = JSON.parse(text) as string[];
    return { count: list.length, json: JSON.stringify(list) };
  });
}
