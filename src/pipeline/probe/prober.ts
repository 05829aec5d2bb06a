import type { ProbeResult, TlsFacts } from "../../model/probe";
import { BodyBudget } from "./body-budget";
import { derive } from "./derive";
import { type FetcherConfig, fetchDocument } from "./fetch";
import { DnsCache, type LookupFn } from "./guard";
import { HostLimiter } from "./limiter";
import { readTlsFacts } from "./tls";
import { defaultUserAgent } from "./user-agent";

export interface ProbeOptions {
  /** Per-request time-out in ms, covering DNS, connect, headers and the whole body. Default 10 000. */
  timeoutMs?: number;
  /** Body cap in bytes; a larger body fails the document. Default 5 MB. */
  maxBodyBytes?: number;
  /** Requests in flight in all. Default 32. */
  concurrency?: number;
  /** Requests in flight per host (host:port). Default 2. */
  perHostConcurrency?: number;
  /**
   * Let requests reach loopback/private/link-local/... addresses. Default false; the CLIs pass
   * `allowPrivateNetwork` of loadConfig() (ALLOW_PRIVATE_NETWORK=true).
   */
  allowPrivate?: boolean;
  /** Default `EndpointDirectory/<version> (+<contact URL>)`. */
  userAgent?: string;
  /**
   * Rewrites where a request is actually sent (e.g. https://fhir.vendor.com/x →
   * http://127.0.0.1:PORT/fhir.vendor.com/x) while results are stored under the original URL.
   * The guard checks the rewritten address, so loopback targets need `allowPrivate`.
   */
  connectTo?: (url: URL) => URL;
}

/** Knobs for tests and special runs; not needed in normal use. */
export interface ProbeAdvancedOptions {
  /** Addresses let through even with the guard on. */
  allowAddresses?: readonly string[];
  /** Hostname resolution (default node:dns lookup, all addresses). */
  lookup?: LookupFn;
  /** Extra trusted CA certificates (PEM). */
  ca?: string | string[];
  /** Longest Retry-After honoured for the one retry of a 429/503. Default 30 000 ms. */
  maxRetryAfterMs?: number;
  /** Wait before that retry when no Retry-After is sent. Default 1 000 ms. */
  defaultRetryDelayMs?: number;
  /** Room for large bodies' bytes in the whole run (body-budget.ts); at least `maxBodyBytes`. Default 32 MB. */
  largeBodyRoomBytes?: number;
  /**
   * The pace a large body must keep (PROBE_DEFAULTS' largeBodyBytesPerSecond and largeBodyGraceMs
   * by default); a test whose local servers share a loaded machine's cores may allow more time.
   */
  largeBodyPace?: { bytesPerSecond: number; graceMs: number };
  /** Maximum redirects followed. Default 3. */
  maxRedirects?: number;
  /** Aborts every request in flight. */
  signal?: AbortSignal;
}

export const PROBE_DEFAULTS = {
  timeoutMs: 10_000,
  maxBodyBytes: 5 * 1024 * 1024,
  /**
   * Bodies up to this size are read freely; a larger one holds room for its bytes out of
   * `largeBodyRoomBytes` for the whole run (at least one body at the cap; body-budget.ts).
   */
  freeBodyBytes: 1024 * 1024,
  largeBodyRoomBytes: 32 * 1024 * 1024,
  /**
   * A large body is read only while it keeps pace: from the moment it is large (declared or
   * read past `freeBodyBytes`), after a grace of `largeBodyGraceMs`, it must have arrived at
   * `largeBodyBytesPerSecond` at least, or it is cut (`body_timeout`). A server that declares
   * 4 MB, sends 1.2 MB and drips the rest is cut after about 0.55 s, not the whole time-out; a
   * 5 MB body may take up to 1.75 s (every real statement is under `freeBodyBytes`).
   */
  largeBodyBytesPerSecond: 4 * 1024 * 1024,
  largeBodyGraceMs: 500,
  concurrency: 32,
  perHostConcurrency: 2,
  maxRedirects: 3,
  maxRetryAfterMs: 30_000,
  defaultRetryDelayMs: 1_000,
} as const;

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return value;
}

/**
 * A probing session: one limiter and one DNS cache shared by every URL probed through it, and the
 * TLS facts of each https host, read once.
 */
export class Prober {
  readonly config: FetcherConfig;
  private readonly tlsOfHost = new Map<string, Promise<TlsFacts>>();

  constructor(options: ProbeOptions & ProbeAdvancedOptions = {}) {
    const concurrency = Math.floor(positive(options.concurrency, PROBE_DEFAULTS.concurrency, "concurrency"));
    const perHost = Math.floor(
      positive(options.perHostConcurrency, PROBE_DEFAULTS.perHostConcurrency, "perHostConcurrency"),
    );
    const maxBodyBytes = positive(options.maxBodyBytes, PROBE_DEFAULTS.maxBodyBytes, "maxBodyBytes");
    this.config = {
      timeoutMs: positive(options.timeoutMs, PROBE_DEFAULTS.timeoutMs, "timeoutMs"),
      maxBodyBytes,
      maxRedirects: options.maxRedirects ?? PROBE_DEFAULTS.maxRedirects,
      userAgent: options.userAgent ?? defaultUserAgent(),
      allowPrivate: options.allowPrivate ?? false,
      allowAddresses: options.allowAddresses,
      lookup: options.lookup,
      connectTo: options.connectTo,
      limiter: new HostLimiter(concurrency, perHost),
      dns: new DnsCache(),
      hostsAnswered: new Set(),
      hostsSilent: new Set(),
      hostsFirstContact: new Map(),
      maxRetryAfterMs: options.maxRetryAfterMs ?? PROBE_DEFAULTS.maxRetryAfterMs,
      defaultRetryDelayMs: options.defaultRetryDelayMs ?? PROBE_DEFAULTS.defaultRetryDelayMs,
      ca: options.ca,
      signal: options.signal,
      bodies: new BodyBudget(
        PROBE_DEFAULTS.freeBodyBytes,
        Math.max(options.largeBodyRoomBytes ?? PROBE_DEFAULTS.largeBodyRoomBytes, maxBodyBytes),
        maxBodyBytes,
        options.largeBodyPace ?? {
          bytesPerSecond: PROBE_DEFAULTS.largeBodyBytesPerSecond,
          graceMs: PROBE_DEFAULTS.largeBodyGraceMs,
        },
      ),
    };
  }

  /**
   * Fetches both documents of one base URL (in parallel) and derives the result. Never throws.
   * `onWaitForRoom` is called when a document has to wait its turn for room for a large body.
   */
  async probe(url: string, onWaitForRoom?: () => void): Promise<ProbeResult> {
    const startedAt = new Date().toISOString();
    const started = performance.now();
    const [metadata, smart, tls] = await Promise.all([
      fetchDocument(url, "metadata", this.config, onWaitForRoom),
      fetchDocument(url, "smart", this.config, onWaitForRoom),
      this.tls(url),
    ]);
    const derived = derive(metadata, smart);
    return {
      url,
      startedAt,
      durationMs: Math.round(performance.now() - started),
      probeStatus: derived.probeStatus,
      entryStatus: derived.entryStatus,
      errorKind: derived.errorKind,
      metadata,
      smart,
      summary: derived.summary,
      access: derived.access,
      tls,
    };
  }

  /** The TLS facts of an https URL's host (one handshake per host and run); null for http. */
  private tls(url: string): Promise<TlsFacts | null> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return Promise.resolve(null);
    }
    if (parsed.protocol !== "https:") return Promise.resolve(null);
    let facts = this.tlsOfHost.get(parsed.host);
    if (!facts) {
      facts = readTlsFacts(parsed, this.config);
      this.tlsOfHost.set(parsed.host, facts);
    }
    return facts;
  }
}
