import { blob, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One row per developer: an EHR vendor or a health plan. Filled from the vendor registry (`db/vendors.json`). */
export const vendors = sqliteTable("vendors", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  endpointListUrl: text("endpoint_list_url").notNull(),
  lastScrapedAt: text("last_scraped_at"),
  /** JSON array of its certified products (model/report-card.ts, CertificationSchema `products`); null until its lists are read again. */
  certifications: text("certifications"),
  /** `ehr` or `payer` (src/model/vendors.ts, VENDOR_KINDS), from the registry's `kind`. */
  kind: text("kind").notNull().default("ehr"),
});

/** One row per published endpoint list; a vendor may publish several (per audience, per FHIR version). */
export const vendorLists = sqliteTable("vendor_lists", {
  id: text("id").primaryKey(),
  vendorId: text("vendor_id")
    .notNull()
    .references(() => vendors.id),
  url: text("url").notNull(),
  format: text("format").notNull(),
  audience: text("audience"),
  fhirVersion: text("fhir_version"),
  lastScrapedAt: text("last_scraped_at"),
  lastEntryCount: integer("last_entry_count"),
  /** Where the developer publishes the list, when `url` reads a copy of it (Lantern's); else null. */
  publishedUrl: text("published_url"),
  /**
   * What the last successful scrape actually read: the URL fetched, or for a bundled copy the JSON
   * object `{repository, path, commit}` of Lantern's file. Null before the first scrape.
   */
  readFrom: text("read_from"),
  /** SHA-256 (hex) of the bytes the last successful scrape read. */
  sha256: text("sha256"),
});

/**
 * One directory entry: the pair (base URL, organization) as a vendor publishes it.
 * `fhirVersion`, `access` and `status` are the effective values the API serves: list hints
 * first, overwritten by probe results (see docs/api.md, "Records").
 */
export const entries = sqliteTable(
  "entries",
  {
    rowId: integer("row_id").primaryKey(),
    id: text("id").notNull().unique(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id),
    url: text("url").notNull(),
    organizationName: text("organization_name"),
    npi: text("npi"),
    tenantId: text("tenant_id"),
    city: text("city"),
    state: text("state"),
    zipCode: text("zip_code"),
    listFhirVersion: text("list_fhir_version").notNull().default("UNKNOWN"),
    /** JSON array of the audiences of the lists that carry the entry. */
    listAccess: text("list_access").notNull().default("[]"),
    fhirVersion: text("fhir_version").notNull().default("UNKNOWN"),
    /** JSON array, always in the order patient, provider. */
    access: text("access").notNull().default("[]"),
    status: text("status").notNull().default("listed"),
    lastUpdated: text("last_updated").notNull(),
    /** How listFhirVersion is known: list, url or developer; null while it is UNKNOWN. */
    versionEvidence: text("version_evidence"),
    /** How state is known: list, zip or name; null while it is unknown. */
    stateEvidence: text("state_evidence"),
    /** published, or the kind of repair: cleaned, scheme-assumed or host-guessed (URL_EVIDENCE). */
    urlEvidence: text("url_evidence").notNull().default("published"),
    /** The URL text as the list published it, when url is a repair of it; else null. */
    urlPublished: text("url_published"),
    /** Why the entry is kept out of listings, counts, exports and /fhir (src/pipeline/ingest/unusable.ts), or null. */
    unusable: text("unusable"),
    /** What the unusable rule found (served as `meta.unusable.detail`); null when usable, or stored before it was recorded. */
    unusableDetail: text("unusable_detail"),
    /** When a list first carried the entry; null for entries stored before this was recorded. */
    firstSeen: text("first_seen"),
    /** Its URL's probe's verdict statuses (probes.verdict), for the change feed; null while unprobed. */
    verdict: text("verdict"),
  },
  (table) => [index("entries_url").on(table.url), index("entries_vendor").on(table.vendorId)],
);

/** Which list carries which entry; an entry is `removed` once no list that carried it still does. */
export const entrySources = sqliteTable(
  "entry_sources",
  {
    entryRowId: integer("entry_row_id")
      .notNull()
      .references(() => entries.rowId),
    listId: text("list_id")
      .notNull()
      .references(() => vendorLists.id),
    present: integer("present", { mode: "boolean" }).notNull().default(true),
    /** The list's scrape time when it last carried the entry, written when a scrape no longer does. */
    lastSeen: text("last_seen"),
  },
  (table) => [
    primaryKey({ columns: [table.listId, table.entryRowId] }),
    index("entry_sources_entry").on(table.entryRowId),
  ],
);

/**
 * Each distinct raw body a probe kept (CapabilityStatement, SMART configuration), stored once,
 * exactly as received, and looked up by its SHA-256 (hex of the UTF-8 bytes). Ids are never
 * reused (AUTOINCREMENT), so an id always names the same bytes. The probe run deletes bodies no
 * probe refers to any more.
 */
export const probeBodies = sqliteTable("probe_bodies", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  /** Null only between the migration that moved bodies here and the next openDatabase, which fills it. */
  sha256: text("sha256").unique(),
  body: text("body").notNull(),
});

/** The latest probe of one distinct base URL; every entry with that URL shares it. */
export const probes = sqliteTable(
  "probes",
  {
    url: text("url").primaryKey(),
    probedAt: text("probed_at").notNull(),
    probeStatus: text("probe_status").notNull(),
    metadataHttpStatus: integer("metadata_http_status"),
    /** The /metadata body (in probe_bodies), when it was a CapabilityStatement JSON object; else null. */
    metadataBodyId: integer("metadata_body_id").references(() => probeBodies.id),
    smartHttpStatus: integer("smart_http_status"),
    /** The /.well-known/smart-configuration body (in probe_bodies), when it was a JSON object. */
    smartBodyId: integer("smart_body_id").references(() => probeBodies.id),
    errorKind: text("error_kind"),
    durationMs: integer("duration_ms"),
    fhirVersion: text("fhir_version").notNull().default("UNKNOWN"),
    softwareName: text("software_name"),
    softwareVersion: text("software_version"),
    /** JSON array of distinct resource type names, sorted. */
    supportedResources: text("supported_resources").notNull().default("[]"),
    smartSupported: integer("smart_supported", { mode: "boolean" }).notNull().default(false),
    /** JSON array of audiences derived from SMART capabilities; null when SMART data gives none. */
    access: text("access"),
    smartCapabilities: text("smart_capabilities").notNull().default("[]"),
    grantTypes: text("grant_types").notNull().default("[]"),
    /** JSON array of the `supports=` values the bodies hold (src/model/capability-rules.ts); null until derived. */
    supports: text("supports"),
    /** JSON object of the verdict's three statuses; null until derived. */
    verdict: text("verdict"),
    /** The https host's negotiated TLS protocol (e.g. TLSv1.3), read once per host and run; null for http or unknown. */
    tlsProtocol: text("tls_protocol"),
    /** Its leaf certificate's notAfter (ISO 8601). */
    tlsCertificateExpiresAt: text("tls_certificate_expires_at"),
    /** Its leaf certificate's issuer (organization, else common name). */
    tlsIssuer: text("tls_issuer"),
    /** Whether its chain verified for the host's name. */
    tlsVerified: integer("tls_verified", { mode: "boolean" }),
    /** The URL /metadata finally answered from, after redirects; null when nothing answered. */
    finalUrl: text("final_url"),
    /** Redirects followed to reach it. */
    redirectCount: integer("redirect_count"),
  },
  (table) => [index("probes_metadata_body").on(table.metadataBodyId), index("probes_smart_body").on(table.smartBodyId)],
);

/** Key/value facts about the dataset: `dataset_version` (bumped by every write), `last_refresh_at`. */
export const datasetMeta = sqliteTable("dataset_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** API keys, stored only as SHA-256 hashes of the key. */
export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  keyHash: text("key_hash").notNull().unique(),
  rateLimit: integer("rate_limit"),
  createdAt: text("created_at").notNull(),
  revokedAt: text("revoked_at"),
});

/**
 * Availability history, one row per probed URL (src/db/history-format.ts has the
 * layout): the raw record of every probe of the last 30 days, packed, and daily figures for the
 * 400 days before them, packed. Written with the probes, pruned by the probe run.
 */
export const probeHistory = sqliteTable(
  "probe_history",
  {
    /** A 64-bit hash of the URL (signed), also the rowid. */
    urlKey: integer("url_key").primaryKey(),
    /** Newest probe, in ms since the epoch. */
    lastAt: integer("last_at").notNull(),
    /** Newest probe whose /metadata returned a CapabilityStatement (ms), within the kept history. */
    lastUpAt: integer("last_up_at"),
    /** Newest probe whose /metadata did not (ms), within the kept history. */
    lastDownAt: integer("last_down_at"),
    /** The UTC day (days since the epoch) the row was last rolled up and pruned as of. */
    prunedDay: integer("pruned_day").notNull(),
    /** Raw records, 14 bytes each, in the order written. */
    records: blob("records").notNull(),
    /** The UTC day of the first daily figure. */
    firstDay: integer("first_day"),
    /** Daily figures, 4 bytes per day from firstDay. */
    days: blob("days"),
  },
  (table) => [index("probe_history_pruned_day").on(table.prunedDay)],
);

/** When each dataset version was written (markDatasetChanged), for the versions whose changes are kept. */
export const datasetVersions = sqliteTable("dataset_versions", {
  version: integer("version").primaryKey(),
  at: text("at").notNull(),
});

/**
 * The change feed (src/db/changes.ts): per dataset version, each entry it added to the list,
 * removed from it, or changed (`fields`: JSON `{field: {from, to}}` of the Endpoint record).
 * Kept 400 days; `dataset_meta.changes_from` is the oldest version a client may start after.
 */
export const entryChanges = sqliteTable(
  "entry_changes",
  {
    version: integer("version").notNull(),
    entryRowId: integer("entry_row_id").notNull(),
    change: text("change").notNull(),
    fields: text("fields"),
  },
  (table) => [primaryKey({ columns: [table.version, table.entryRowId] })],
);

/**
 * Filled by triggers during a write (db/migrations/0005_entry_changes.sql): an entry's served
 * values before the write first changed them; emptied by the same write's markDatasetChanged.
 */
export const entryChangesPending = sqliteTable("entry_changes_pending", {
  entryRowId: integer("entry_row_id").primaryKey(),
  wasListed: integer("was_listed", { mode: "boolean" }).notNull(),
  url: text("url"),
  vendorId: text("vendor_id"),
  vendorName: text("vendor_name"),
  organizationName: text("organization_name"),
  npi: text("npi"),
  tenantId: text("tenant_id"),
  fhirVersion: text("fhir_version"),
  access: text("access"),
  city: text("city"),
  state: text("state"),
  zipCode: text("zip_code"),
  status: text("status"),
  verdict: text("verdict"),
});

/**
 * Report-card history (src/db/report-history.ts): per UTC day (days since the epoch), the flattened
 * figures (model/report-card.ts `historyFigures`) of each developer, and of the whole
 * directory under vendor_id ''. Written when an index is built on a writable database; one row a
 * day at most, kept as long as the change feed.
 */
/** The names of the figures a `report_history` row holds, once per distinct list (JSON array). */
export const reportFigureNames = sqliteTable("report_figure_names", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  names: text("names").notNull().unique(),
});

export const reportHistory = sqliteTable(
  "report_history",
  {
    vendorId: text("vendor_id").notNull(),
    day: integer("day").notNull(),
    /** The names of its values (report_figure_names). */
    namesId: integer("names_id")
      .notNull()
      .references(() => reportFigureNames.id),
    /** JSON array of the values, in the order of its names. */
    figures: text("figures").notNull(),
    /** A made-up point of the demo dataset (data:sample), not a recorded one. */
    generated: integer("generated", { mode: "boolean" }).notNull().default(false),
  },
  (table) => [primaryKey({ columns: [table.vendorId, table.day] })],
);

/**
 * One row per refresh run (src/db/refresh-runs.ts). The unfinished row is the lock of the one
 * run allowed at a time, anywhere the database is written from.
 */
export const refreshRuns = sqliteTable("refresh_runs", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  startedAt: text("started_at").notNull(),
  finishedAt: text("finished_at"),
  /** ok | lists-failed | outage | failed (model/freshness.ts RunOutcome); null while unfinished. */
  outcome: text("outcome"),
  /** What went wrong, in words; null when nothing did. */
  detail: text("detail"),
  /** lists | probe | index. */
  phase: text("phase").notNull().default("lists"),
  urlsDone: integer("urls_done").notNull().default(0),
  urlsTotal: integer("urls_total"),
  /** "host pid" of the process running it; null when finished or released by an interrupted run. */
  owner: text("owner"),
  heartbeatAt: text("heartbeat_at"),
  /** How many times a later process took it over to resume it. */
  resumes: integer("resumes").notNull().default(0),
});
