import { type Db, openDatabase } from "../../src/db/client";
import { markDatasetChanged } from "../../src/db/dataset-meta";
import { storeBody } from "../../src/db/probe-bodies";
import { canonicalUrl, entryId } from "../../src/model/identity";

export interface SeedEntry {
  vendorId: string;
  url: string;
  organizationName?: string | null;
  npi?: string | null;
  tenantId?: string | null;
  city?: string | null;
  state?: string | null;
  zipCode?: string | null;
  fhirVersion?: string;
  access?: string[];
  status?: string;
  lastUpdated?: string;
}

export interface SeedProbe {
  url: string;
  probeStatus: string;
  fhirVersion?: string;
  metadataBody?: string | null;
  smartBody?: string | null;
  resources?: string[];
  smartSupported?: boolean;
  smartCapabilities?: string[];
  grantTypes?: string[];
  softwareName?: string | null;
  softwareVersion?: string | null;
  probedAt?: string;
  /** Why /metadata gave no CapabilityStatement (the probe's error kind) and the HTTP status it answered. */
  errorKind?: string | null;
  metadataHttpStatus?: number | null;
}

export interface SeedVendor {
  id: string;
  name: string;
  endpointListUrl?: string;
  lastScrapedAt?: string | null;
}

/** Writes rows straight into a real SQLite file, independently of ingest and probe. */
export function seedDatabase(
  path: string,
  data: { vendors: SeedVendor[]; entries: SeedEntry[]; probes?: SeedProbe[]; at?: string },
): Db {
  const db = openDatabase(path);
  const at = data.at ?? "2026-11-01T00:00:00.000Z";
  const insertVendor = db.sqlite.prepare(
    "INSERT INTO vendors (id, name, endpoint_list_url, last_scraped_at) VALUES (?, ?, ?, ?)",
  );
  const insertEntry = db.sqlite.prepare(
    `INSERT INTO entries (id, vendor_id, url, organization_name, npi, tenant_id, city, state, zip_code, fhir_version, access, status, last_updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertProbe = db.sqlite.prepare(
    `INSERT INTO probes (url, probed_at, probe_status, metadata_body_id, smart_body_id, fhir_version, software_name, software_version, supported_resources, smart_supported, smart_capabilities, grant_types, error_kind, metadata_http_status)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.sqlite.transaction(() => {
    for (const v of data.vendors)
      insertVendor.run(
        v.id,
        v.name,
        v.endpointListUrl ?? `https://${v.id}.example.com/endpoints`,
        v.lastScrapedAt ?? null,
      );
    for (const e of data.entries) {
      const url = canonicalUrl(e.url);
      const org = e.organizationName ?? null;
      const id = entryId(e.vendorId, url, e.npi ?? null, org);
      insertEntry.run(
        id,
        e.vendorId,
        url,
        org,
        e.npi ?? null,
        e.tenantId ?? null,
        e.city ?? null,
        e.state ?? null,
        e.zipCode ?? null,
        e.fhirVersion ?? "UNKNOWN",
        JSON.stringify(e.access ?? []),
        e.status ?? "listed",
        e.lastUpdated ?? at,
      );
    }
    for (const p of data.probes ?? []) {
      insertProbe.run(
        canonicalUrl(p.url),
        p.probedAt ?? at,
        p.probeStatus,
        p.metadataBody == null ? null : storeBody(db.sqlite, p.metadataBody),
        p.smartBody == null ? null : storeBody(db.sqlite, p.smartBody),
        p.fhirVersion ?? "UNKNOWN",
        p.softwareName ?? null,
        p.softwareVersion ?? null,
        JSON.stringify(p.resources ?? []),
        p.smartSupported ? 1 : 0,
        JSON.stringify(p.smartCapabilities ?? []),
        JSON.stringify(p.grantTypes ?? []),
        p.errorKind ?? null,
        p.metadataHttpStatus ?? null,
      );
    }
    markDatasetChanged(db.sqlite, at);
  })();
  return db;
}
