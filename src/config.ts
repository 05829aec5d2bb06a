import { join } from "node:path";
import type { RefreshTimings } from "./model/freshness";
import { OUTAGE_DEFAULTS, type OutageRule } from "./model/probe";

/**
 * The one place that reads the environment: the server and every CLI call `loadConfig()`
 * (Biome's `noProcessEnv` rule keeps it so). Each variable is described in docs/api.md,
 * "Configuration".
 */

/** The vendor registry shipped with the code. */
export const DEFAULT_REGISTRY_PATH = join(import.meta.dir, "..", "db", "vendors.json");

export type TrustProxy = "fly" | "true" | null;
export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Config {
  port: number;
  host: string;
  databasePath: string;
  rateLimit: { max: number; maxWithKey: number; windowSeconds: number };
  redisUrl: string | null;
  trustProxy: TrustProxy;
  logLevel: LogLevel;
  /** How often the server looks for a newer dataset version written by a refresh. */
  datasetPollMs: number;
  /** Where built directory index files are kept (default `<DATABASE_PATH>.index`). */
  indexDir: string | null;
  /** Datasets smaller than this are indexed in the server process and not written to disk. */
  indexInProcessBelow: number;
  /**
   * Lets ingest and probe reach loopback, private, link-local… addresses (tests and offline
   * builds only): `ALLOW_PRIVATE_NETWORK=true`. Off, both refuse such addresses before connecting.
   */
  allowPrivateNetwork: boolean;
  /** The most bytes ingest reads of one list (every page together) or file; larger lists fail. */
  ingestMaxBytes: number;
  /** The vendor registry the ingest reads (`INGEST_REGISTRY`; default db/vendors.json). */
  registryPath: string;
  /** Filtered exports running at a time in the whole server (`EXPORT_MAX_RUNNING`); beyond it, 503 with Retry-After. */
  exportMaxRunning: number;
  /** Where the unfiltered exports' download files are kept (`EXPORT_DIR`; default `<DATABASE_PATH>.exports`). */
  exportDir: string | null;
  /**
   * The origin the FHIR and brands download files name in their absolute URLs (`PUBLIC_ORIGIN`,
   * e.g. `https://endpoint-directory.fly.dev`; default `http://localhost:<PORT>`): one per
   * server, so that no request's Host header decides what is written to disk.
   */
  publicOrigin: string;
  /** Seconds a connection may stay idle before it is closed (`IDLE_TIMEOUT_SECONDS`, 1–255; 30). */
  idleTimeoutSeconds: number;
  /** Named in the probe's User-Agent so that server operators can find us (`PROBE_CONTACT_URL`). */
  probeContactUrl: string | null;
  /**
   * The probe's outage rule (docs/deploy.md, "The outage rule"): `PROBE_CANARY_URLS` (comma
   * separated), `PROBE_OUTAGE_WINDOW_SECONDS`, `PROBE_OUTAGE_MIN_HOSTS`,
   * `PROBE_OUTAGE_FAILED_PERCENT`, `PROBE_OUTAGE_PREVIOUSLY_UP_PERCENT`.
   */
  probeOutage: OutageRule;
  /**
   * The server's own refresh schedule (docs/deploy.md, "The refresh schedule"): `REFRESH=on|off`
   * (default on), then every `REFRESH_EVERY_SECONDS`, the first `REFRESH_FIRST_DELAY_SECONDS`
   * after a start, after an outage or failure `REFRESH_RETRY_SECONDS` doubling up to
   * `REFRESH_RETRY_MAX_SECONDS`; a run whose heartbeat is `REFRESH_LOCK_SECONDS` old is taken over.
   */
  refresh: RefreshConfig;
}

export interface RefreshConfig extends RefreshTimings {
  enabled: boolean;
}

function integer(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  min: number,
  max = Number.POSITIVE_INFINITY,
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const range = Number.isFinite(max) ? `from ${min} to ${max}` : `≥ ${min}`;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new Error(`${name} must be a whole number ${range}, got "${raw}"`);
  return Number(raw);
}

function oneOf<T extends string>(
  env: Record<string, string | undefined>,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw new Error(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`);
  return raw as T;
}

/** An http(s) origin (scheme, host, port; no path), or `fallback` when unset. */
function origin(env: Record<string, string | undefined>, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const url = URL.parse(raw);
  if (url === null || !/^https?:$/.test(url.protocol) || url.origin !== raw.replace(/\/$/, "").toLowerCase())
    throw new Error(`${name} must be an http or https origin such as https://example.org, got "${raw}"`);
  return url.origin;
}

function boolean(env: Record<string, string | undefined>, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

function urlList(env: Record<string, string | undefined>, name: string): string[] {
  const urls = (env[name] ?? "")
    .split(",")
    .map((u) => u.trim())
    .filter((u) => u !== "");
  for (const url of urls)
    if (!/^https?:\/\//.test(url) || !URL.canParse(url)) throw new Error(`${name}: "${url}" is not an http(s) URL`);
  return urls;
}

function percent(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const value = integer(env, name, Math.round(fallback * 100), 0);
  if (value > 100) throw new Error(`${name} must be at most 100, got "${env[name]}"`);
  return value / 100;
}

function probeOutage(env: Record<string, string | undefined>): OutageRule {
  const d = OUTAGE_DEFAULTS;
  return {
    windowMs: integer(env, "PROBE_OUTAGE_WINDOW_SECONDS", d.windowMs / 1000, 1) * 1000,
    minHosts: integer(env, "PROBE_OUTAGE_MIN_HOSTS", d.minHosts, 1),
    failedShare: percent(env, "PROBE_OUTAGE_FAILED_PERCENT", d.failedShare),
    previouslyUpShare: percent(env, "PROBE_OUTAGE_PREVIOUSLY_UP_PERCENT", d.previouslyUpShare),
    canaryUrls: urlList(env, "PROBE_CANARY_URLS"),
  };
}

function refresh(env: Record<string, string | undefined>): RefreshConfig {
  const seconds = (name: string, fallback: number, min = 1) => integer(env, name, fallback, min) * 1000;
  const retryMs = seconds("REFRESH_RETRY_SECONDS", 600);
  const retryMaxMs = seconds("REFRESH_RETRY_MAX_SECONDS", 6 * 3600);
  if (retryMaxMs < retryMs) throw new Error("REFRESH_RETRY_MAX_SECONDS must be at least REFRESH_RETRY_SECONDS");
  return {
    enabled: oneOf(env, "REFRESH", ["on", "off"] as const, "on") === "on",
    everyMs: seconds("REFRESH_EVERY_SECONDS", 24 * 3600),
    firstDelayMs: seconds("REFRESH_FIRST_DELAY_SECONDS", 30, 0),
    retryMs,
    retryMaxMs,
    lockMs: seconds("REFRESH_LOCK_SECONDS", 120, 2),
  };
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const trustProxy =
    env.TRUST_PROXY === undefined || env.TRUST_PROXY === ""
      ? null
      : oneOf(env, "TRUST_PROXY", ["fly", "true"] as const, "true");
  const port = integer(env, "PORT", 3000, 0);
  return {
    port,
    host: env.HOST || "0.0.0.0",
    databasePath: env.DATABASE_PATH || "db/directory.sqlite",
    rateLimit: {
      max: integer(env, "RATE_LIMIT_MAX", 60, 0),
      maxWithKey: integer(env, "RATE_LIMIT_MAX_WITH_KEY", 1000, 1),
      windowSeconds: integer(env, "RATE_LIMIT_WINDOW_SECONDS", 60, 1),
    },
    redisUrl: env.REDIS_URL || null,
    trustProxy,
    logLevel: oneOf(env, "LOG_LEVEL", ["debug", "info", "warn", "error"] as const, "info"),
    datasetPollMs: integer(env, "DATASET_POLL_MS", 2000, 10),
    indexDir: env.INDEX_DIR || null,
    indexInProcessBelow: integer(env, "INDEX_IN_PROCESS_BELOW", 20_000, 0),
    allowPrivateNetwork: boolean(env, "ALLOW_PRIVATE_NETWORK"),
    ingestMaxBytes: integer(env, "INGEST_MAX_BYTES", 100_000_000, 1),
    registryPath: env.INGEST_REGISTRY || DEFAULT_REGISTRY_PATH,
    probeContactUrl: env.PROBE_CONTACT_URL || null,
    exportMaxRunning: integer(env, "EXPORT_MAX_RUNNING", 20, 1),
    exportDir: env.EXPORT_DIR || null,
    publicOrigin: origin(env, "PUBLIC_ORIGIN", `http://localhost:${port}`),
    // Bun's most.
    idleTimeoutSeconds: integer(env, "IDLE_TIMEOUT_SECONDS", 30, 1, 255),
    probeOutage: probeOutage(env),
    refresh: refresh(env),
  };
}
