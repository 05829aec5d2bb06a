import type { Database, Statement } from "bun:sqlite";
import { readLastRefreshAt } from "../db/dataset-meta";
import { countBits } from "./bitset";
import type { DirectoryData } from "./directory-data";
import { IdLookup } from "./id-lookup";
import { Lru } from "./lru";
import { recordAt } from "./render";
import { DirectorySearch, type EndpointFilter } from "./search";
import { type EndpointRecord, FHIR_VERSIONS, type FhirVersion, type ProbeStatus } from "./types";

export interface VendorRecord {
  id: string;
  name: string;
  endpointCount: number;
  endpointListUrl: string;
  lastScrapedAt: string | null;
}

export interface StatsRecord {
  totalEndpoints: number;
  vendorCount: number;
  fhirVersionCounts: Record<FhirVersion, number>;
  lastUpdated: string | null;
}

/** A stored JSON list of strings, as canonical JSON text, with its length. */
export interface JsonList {
  count: number;
  json: string;
}

/** The capabilities summary; the lists come serialised, as they are only ever sent on. */
export interface CapabilitiesSummary {
  fhirVersion: string | null;
  softwareName: string | null;
  softwareVersion: string | null;
  supportedResources: JsonList;
  smartSupported: boolean;
  smartCapabilities: JsonList;
  grantTypes: JsonList;
}

/** The capabilities record, with the two raw bodies kept as the exact bytes the server sent (UTF-8). */
export interface CapabilitiesRecord {
  endpointId: string;
  url: string;
  vendorName: string;
  lastProbed: string | null;
  probeStatus: ProbeStatus;
  summary: CapabilitiesSummary;
  capabilityStatementBytes: Uint8Array<ArrayBuffer> | null;
  smartConfigurationBytes: Uint8Array<ArrayBuffer> | null;
}

interface ProbeRow {
  url: string;
  probedAt: string;
  probeStatus: ProbeStatus;
  fhirVersion: string;
  softwareName: string | null;
  softwareVersion: string | null;
  supportedResources: string;
  smartSupported: number;
  smartCapabilities: string;
  grantTypes: string;
  metadataBody: Uint8Array<ArrayBuffer> | null;
  smartBody: Uint8Array<ArrayBuffer> | null;
}

const PROBE_COLUMNS = `url, probed_at AS probedAt, probe_status AS probeStatus, fhir_version AS fhirVersion, software_name AS softwareName,
  software_version AS softwareVersion, supported_resources AS supportedResources, smart_supported AS smartSupported,
  smart_capabilities AS smartCapabilities, grant_types AS grantTypes, CAST(metadata_body AS BLOB) AS metadataBody, CAST(smart_body AS BLOB) AS smartBody`;

/**
 * One dataset version, frozen: the list operation answers from its in-memory DirectoryData, and
 * its own connection holds the read transaction the data was read in (or one pinned at the same
 * version), so records read by id come from the very same version.
 */
export class DatasetSnapshot {
  readonly version: number;
  readonly search: DirectorySearch;
  readonly vendors: VendorRecord[];
  readonly stats: StatsRecord;
  private readonly vendorNames: Map<string, string>;
  private readonly ids: IdLookup;
  private readonly probeByUrl: Statement;
  private readonly probeByRowId: Statement;

  /** `sqlite` must hold an open read transaction at `data.version`; the snapshot owns it from now on. */
  constructor(
    private readonly sqlite: Database,
    private readonly data: DirectoryData,
  ) {
    this.version = data.version;
    this.search = new DirectorySearch(data);
    this.ids = new IdLookup(data.columns.id, data.ids);
    this.vendors = this.readVendors();
    this.vendorNames = new Map(this.vendors.map((vendor) => [vendor.id, vendor.name]));
    this.stats = this.computeStats(readLastRefreshAt(sqlite));
    this.probeByUrl = sqlite.prepare(`SELECT ${PROBE_COLUMNS} FROM probes WHERE url = ?`);
    this.probeByRowId = sqlite.prepare(`SELECT ${PROBE_COLUMNS} FROM probes WHERE rowid = ?`);
  }

  close() {
    this.sqlite.close();
  }

  list(filter: EndpointFilter, offset: number, limit: number): { total: number; records: EndpointRecord[] } {
    const { total, ordinals } = this.search.search(filter, offset, limit);
    return { total, records: ordinals.map((ordinal) => recordAt(this.data, ordinal, this.vendorNames)) };
  }

  /** The record of an id, from the in-memory columns. */
  endpoint(id: string): EndpointRecord | null {
    const ordinal = this.ids.find(id);
    return ordinal === -1 ? null : recordAt(this.data, ordinal, this.vendorNames, id);
  }

  /** The probe result of an entry's URL: the entry from the columns, the probe row from the database. */
  capabilities(id: string): CapabilitiesRecord | null {
    const ordinal = this.ids.find(id);
    if (ordinal === -1) return null;
    const { url, vendorName } = recordAt(this.data, ordinal, this.vendorNames, id);
    const probe = this.probeOf(url, this.data.probeRowIds[this.data.columns.url[ordinal]!]!);
    return {
      endpointId: id,
      url,
      vendorName,
      lastProbed: probe?.probedAt ?? null,
      probeStatus: probe?.probeStatus ?? "unchecked",
      summary: {
        fhirVersion: probe?.metadataBody ? probe.fhirVersion : null,
        softwareName: probe?.softwareName ?? null,
        softwareVersion: probe?.softwareVersion ?? null,
        supportedResources: jsonList(probe?.supportedResources ?? null),
        smartSupported: probe?.smartSupported === 1,
        smartCapabilities: jsonList(probe?.smartCapabilities ?? null),
        grantTypes: jsonList(probe?.grantTypes ?? null),
      },
      capabilityStatementBytes: probe?.metadataBody ?? null,
      smartConfigurationBytes: probe?.smartBody ?? null,
    };
  }

  /**
   * A URL's probe row, read by the row id the index recorded for this version (no URL index
   * walk); the URL is checked, and read by it instead if they differ (VACUUM may renumber rows).
   */
  private probeOf(url: string, rowId: number): ProbeRow | null {
    if (rowId !== -1) {
      const row = this.probeByRowId.get(rowId) as ProbeRow | null;
      if (row?.url === url) return row;
    }
    return this.probeByUrl.get(url) as ProbeRow | null;
  }

  private readVendors(): VendorRecord[] {
    const rows = this.sqlite
      .prepare("SELECT id, name, endpoint_list_url, last_scraped_at FROM vendors ORDER BY lower(name), id")
      .values() as [string, string, string, string | null][];
    const { vendor } = this.data.facets;
    return rows.map(([id, name, endpointListUrl, lastScrapedAt]) => {
      const bits = vendor.get(id);
      return { id, name, endpointCount: bits ? countBits(bits) : 0, endpointListUrl, lastScrapedAt };
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
