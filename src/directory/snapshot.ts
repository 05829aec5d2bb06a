import type { Database, Statement } from "bun:sqlite";
import { readLastRefreshAt } from "../db/dataset-meta";
import { countBits } from "./bitset";
import type { DirectoryData } from "./directory-data";
import { ENDPOINT_COLUMNS, toEndpointRecord, type EndpointRow } from "./records";
import { Lru } from "./lru";
import { recordAt } from "./render";
import { DirectorySearch, type EndpointFilter } from "./search";
import { FHIR_VERSIONS, type EndpointRecord, type FhirVersion, type ProbeStatus } from "./types";

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

export interface CapabilitiesSummary {
  fhirVersion: string | null;
  softwareName: string | null;
  softwareVersion: string | null;
  supportedResourceCount: number;
  supportedResources: string[];
  smartSupported: boolean;
  smartCapabilities: string[];
  grantTypes: string[];
}

/** The capabilities record, with the two raw bodies kept as the exact text the server sent. */
export interface CapabilitiesRecord {
  endpointId: string;
  url: string;
  vendorName: string;
  lastProbed: string | null;
  probeStatus: ProbeStatus;
  summary: CapabilitiesSummary;
  capabilityStatementText: string | null;
  smartConfigurationText: string | null;
}

type CapabilitiesRow = [
  id: string,
  url: string,
  vendorId: string,
  probedAt: string | null,
  probeStatus: string | null,
  fhirVersion: string | null,
  softwareName: string | null,
  softwareVersion: string | null,
  supportedResources: string | null,
  smartSupported: number | null,
  smartCapabilities: string | null,
  grantTypes: string | null,
  metadataBody: string | null,
  smartBody: string | null,
];

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
  /** Encoded response bodies already sent from this version, by request URL and encoding. */
  readonly bodies = new Lru<Uint8Array>(1_000);
  /** The vendors and stats response bodies: fixed for the whole version. */
  readonly vendorsBody: string;
  readonly statsBody: string;
  private readonly vendorNames: Map<string, string>;
  private readonly byId: Statement;
  private readonly capabilitiesById: Statement;

  /** `sqlite` must hold an open read transaction at `data.version`; the snapshot owns it from now on. */
  constructor(
    private readonly sqlite: Database,
    private readonly data: DirectoryData,
  ) {
    this.version = data.version;
    this.search = new DirectorySearch(data);
    this.vendors = this.readVendors();
    this.vendorNames = new Map(this.vendors.map((vendor) => [vendor.id, vendor.name]));
    this.stats = this.computeStats(readLastRefreshAt(sqlite));
    this.vendorsBody = JSON.stringify({ success: true, data: this.vendors });
    this.statsBody = JSON.stringify({ success: true, data: this.stats });
    this.byId = sqlite.prepare(`SELECT ${ENDPOINT_COLUMNS} FROM entries e WHERE e.id = ?`);
    this.capabilitiesById = sqlite.prepare(
      `SELECT e.id, e.url, e.vendor_id, p.probed_at, p.probe_status, p.fhir_version, p.software_name, p.software_version,
        p.supported_resources, p.smart_supported, p.smart_capabilities, p.grant_types, p.metadata_body, p.smart_body
       FROM entries e LEFT JOIN probes p ON p.url = e.url WHERE e.id = ?`,
    );
  }

  close() {
    this.sqlite.close();
  }

  list(filter: EndpointFilter, offset: number, limit: number): { total: number; records: EndpointRecord[] } {
    const { total, ordinals } = this.search.search(filter, offset, limit);
    return { total, records: ordinals.map((ordinal) => recordAt(this.data, ordinal, this.vendorNames)) };
  }

  endpoint(id: string): EndpointRecord | null {
    const row = this.byId.values(id)[0] as EndpointRow | undefined;
    return row ? this.toRecord(row) : null;
  }

  capabilities(id: string): CapabilitiesRecord | null {
    const row = this.capabilitiesById.values(id)[0] as CapabilitiesRow | undefined;
    if (!row) return null;
    const [endpointId, url, vendorId, probedAt, probeStatus, fhirVersion, softwareName, softwareVersion] = row;
    const supportedResources = parseList(row[8]);
    return {
      endpointId,
      url,
      vendorName: this.vendorNames.get(vendorId) ?? vendorId,
      lastProbed: probedAt,
      probeStatus: (probeStatus ?? "unchecked") as ProbeStatus,
      summary: {
        fhirVersion: row[12] !== null ? fhirVersion : null,
        softwareName,
        softwareVersion,
        supportedResourceCount: supportedResources.length,
        supportedResources,
        smartSupported: row[9] === 1,
        smartCapabilities: parseList(row[10]),
        grantTypes: parseList(row[11]),
      },
      capabilityStatementText: row[12],
      smartConfigurationText: row[13],
    };
  }

  private toRecord(row: EndpointRow): EndpointRecord {
    return toEndpointRecord(row, this.vendorNames.get(row[2]) ?? row[2]);
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
    return { totalEndpoints: this.data.size, vendorCount: this.vendors.length, fhirVersionCounts, lastUpdated };
  }
}

function parseList(text: string | null): string[] {
  return text === null ? [] : (JSON.parse(text) as string[]);
}
