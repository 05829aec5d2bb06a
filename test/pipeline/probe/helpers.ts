import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../../../src/db/client";
import type { DocumentResult, ProbeSummary } from "../../../src/model/probe";
import type { FhirVersion } from "../../../src/model/types";
import { LANTERN_TEST_CAPABILITIES } from "../../support/real-data";
import { tempDatabase } from "../../support/temp-db";

const FIXTURES = join(import.meta.dir, "../../fixtures/probe");

export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), "utf8");
}
/** A real statement or SMART configuration from test/fixtures/real/capabilities. */
export function realCapability(name: string): string {
  return readFileSync(join(LANTERN_TEST_CAPABILITIES, name), "utf8");
}

interface SeenRequest {
  path: string;
  headers: Headers;
  at: number;
}

export type Route = (request: Request, seen: SeenRequest) => Response | Promise<Response>;

/**
 * A real HTTP server on 127.0.0.1 (port 0) answering by path. Records every request; tracks
 * the most requests it ever had in flight at once.
 */
export function serve(routes: Record<string, Route | string>, fallback?: Route) {
  const requests: SeenRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const seen = { path, headers: request.headers, at: performance.now() };
      requests.push(seen);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const route = routes[path];
        if (typeof route === "string")
          return new Response(route, { headers: { "content-type": "application/fhir+json" } });
        if (route) return await route(request, seen);
        if (fallback) return await fallback(request, seen);
        return new Response("not found", { status: 404 });
      } finally {
        inFlight--;
      }
    },
  });
  return {
    server,
    url: `http://127.0.0.1:${server.port}`,
    port: server.port,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    stop: () => server.stop(true),
  };
}

/**
 * A real HTTPS server on 127.0.0.1 under the fixture certificate's name `fhir.tls.test`
 * (test/fixtures/probe/tls), answering by `fallback`. `probeOptions` make the probe resolve that
 * name to 127.0.0.1 and trust the certificate, so a probe of `url` runs TLS end to end locally.
 */
export function serveTls(fallback: Route) {
  const cert = fixture("tls/cert.pem");
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    tls: { cert, key: fixture("tls/key.pem") },
    fetch: (request) => fallback(request, { path: new URL(request.url).pathname, headers: request.headers, at: 0 }),
  });
  return {
    url: `https://fhir.tls.test:${server.port}`,
    probeOptions: {
      allowPrivate: true,
      ca: cert,
      lookup: async (hostname: string) =>
        hostname === "fhir.tls.test" ? [{ address: "127.0.0.1", family: 4 as const }] : [],
    },
    stop: () => server.stop(true),
  };
}

/** A TCP server that accepts connections and never says a word. */
export const silentListener = () => Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {}, open() {} } });

/** A port that was open a moment ago and is now closed. */
export function closedPort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = s.port!;
  s.stop(true);
  return port;
}

export function json(body: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "application/json", ...headers } });
}

/** The summary of a probe that found no SMART configuration and no resources. */
export const bareSummary = (fhirVersion: FhirVersion): ProbeSummary => ({
  fhirVersion,
  softwareName: null,
  softwareVersion: null,
  supportedResourceCount: 0,
  supportedResources: [],
  smartSupported: false,
  smartCapabilities: [],
  grantTypes: [],
});

/** A temporary SQLite file with every migration applied, and one vendor. */
export function tempDb(): { db: Db; path: string; cleanup: () => void } {
  const temp = tempDatabase();
  temp.db.sqlite
    .prepare(
      "INSERT INTO vendors (id, name, endpoint_list_url) VALUES ('epic', 'Epic', 'https://example.org/epic'), ('other', 'Other', 'https://example.org/other')",
    )
    .run();
  return temp;
}

let seq = 0;
export interface EntryInput {
  url: string;
  vendorId?: string;
  status?: string;
  lastUpdated?: string;
  listFhirVersion?: string;
  listAccess?: string;
  /** Why the entry is kept out of the directory (src/pipeline/ingest/unusable.ts), when it is. */
  unusable?: string;
}

export function insertEntry(db: Db, e: EntryInput): string {
  const id = (++seq).toString(16).padStart(64, "0");
  db.sqlite
    .prepare(
      `INSERT INTO entries (id, vendor_id, url, organization_name, list_fhir_version, list_access, fhir_version, access, status, last_updated, unusable)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?5, ?6, ?7, ?8, ?9)`,
    )
    .run(
      id,
      e.vendorId ?? "epic",
      e.url,
      `Org ${seq}`,
      e.listFhirVersion ?? "UNKNOWN",
      e.listAccess ?? "[]",
      e.status ?? "listed",
      e.lastUpdated ?? "2026-01-01T00:00:00.000Z",
      e.unusable ?? null,
    );
  return id;
}

export function entry(db: Db, id: string) {
  return db.sqlite
    .prepare(
      "SELECT status, last_updated AS lastUpdated, fhir_version AS fhirVersion, access FROM entries WHERE id = ?1",
    )
    .get(id) as {
    status: string;
    lastUpdated: string;
    fhirVersion: string;
    access: string;
  };
}

/** The SQL of a probe row with its two bodies (from probe_bodies) as `metadata_body` and `smart_body`. */
export const PROBE_WITH_BODIES = `SELECT p.*, m.body AS metadata_body, s.body AS smart_body FROM probes p
  LEFT JOIN probe_bodies m ON m.id = p.metadata_body_id LEFT JOIN probe_bodies s ON s.id = p.smart_body_id`;

export function probeRow(db: Db, url: string) {
  return db.sqlite.prepare(`${PROBE_WITH_BODIES} WHERE p.url = ?1`).get(url) as Record<string, unknown> | null;
}

export function datasetVersion(db: Db): number {
  const row = db.sqlite.prepare("SELECT value FROM dataset_meta WHERE key = 'dataset_version'").get() as {
    value: string;
  };
  return Number(row.value);
}

/**
 * `count` local FHIR servers that answer /metadata and the SMART configuration after `delayMs`
 * (the prober sends at most 2 requests per host, so several hosts let a run go in parallel, and
 * the delay makes it last long enough to be interrupted). Each is a host of `siteUrl(i)`.
 */
export function slowFhirServers(capabilityStatement: string, smartConfiguration: string, count = 8, delayMs = 25) {
  const servers = Array.from({ length: count }, () =>
    Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        await Bun.sleep(delayMs);
        const path = new URL(request.url).pathname;
        if (path.endsWith("/metadata"))
          return new Response(capabilityStatement, { headers: { "content-type": "application/fhir+json" } });
        if (path.endsWith("/.well-known/smart-configuration"))
          return new Response(smartConfiguration, { headers: { "content-type": "application/json" } });
        return new Response("not found", { status: 404 });
      },
    }),
  );
  return {
    /** The base URL of site `i`, spread over the servers. */
    siteUrl: (i: number) => `http://127.0.0.1:${servers[i % servers.length]!.port}/fhir/site${i}/r4`,
    stop: () => {
      for (const server of servers) server.stop(true);
    },
  };
}

/** A fetched document's result for tests: nothing fetched yet, one request, unless `partial` says otherwise. */
export function documentResult(partial: Partial<DocumentResult>): DocumentResult {
  return {
    ok: false,
    httpStatus: null,
    body: null,
    json: null,
    errorKind: null,
    errorMessage: null,
    finalUrl: "",
    redirects: 0,
    requests: 1,
    durationMs: 1,
    ...partial,
  };
}
