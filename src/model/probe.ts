import type { Audience, FhirVersion } from "./types";

/**
 * Why one document (`/metadata` or `/.well-known/smart-configuration`) could not be used.
 * The first group means the server was never reached; the rest mean it answered, but not
 * with what we asked for, or we refused to go where it pointed.
 */
export const UNREACHABLE_ERROR_KINDS = [
  "dns",
  "refused",
  "tls",
  "timeout",
  "network",
  /** The certificate's validity period is over. */
  "certificate_expired",
  /** The server presented a self-signed certificate (or a chain ending in one nobody trusts). */
  "certificate_self_signed",
  /** The chain does not lead to a trusted CA (missing intermediate, unknown issuer). */
  "certificate_untrusted",
  /** The certificate does not name the host. */
  "certificate_name_mismatch",
] as const;
type UnreachableErrorKind = (typeof UNREACHABLE_ERROR_KINDS)[number];

export type ErrorKind =
  | UnreachableErrorKind
  /** Not an http(s) URL, or a URL that does not parse. */
  | "invalid_url"
  /** The SSRF guard refused the address (loopback, private, link-local, ...). */
  | "blocked"
  /** More redirects than allowed, or a redirect loop. */
  | "too_many_redirects"
  /** A redirect without a usable Location, or to a scheme other than http(s). */
  | "bad_redirect"
  /** The server answered with a non-2xx status. */
  | "http_status"
  /** Headers arrived, the body did not finish within the time-out. */
  | "body_timeout"
  /** The body was larger than the cap. */
  | "body_too_large"
  /** JSON nested deeper, or with more values, distinct keys or a longer string than the probe parses (JSON_BOUNDS). */
  | "body_too_complex"
  /** The body is not JSON. */
  | "invalid_json"
  /** JSON, but not an object. */
  | "not_json_object"
  /** A JSON object, but not a CapabilityStatement / Conformance resource. */
  | "not_capability_statement"
  /** A JSON object without any SMART configuration field. */
  | "not_smart_configuration";

/** Each error kind in words, as a reason completes "/metadata …" (the verdict's `unknown`, the page). */
export const ERROR_KIND_WORDS: Record<ErrorKind, string> = {
  dns: "did not resolve: the host name has no address",
  refused: "was refused: nothing listens on the port",
  tls: "failed in the TLS handshake",
  timeout: "timed out",
  network: "failed on the network",
  certificate_expired: "failed in TLS: the certificate has expired",
  certificate_self_signed: "failed in TLS: the certificate is self-signed, so untrusted",
  certificate_untrusted: "failed in TLS: the certificate is untrusted (its chain leads to no trusted CA)",
  certificate_name_mismatch: "failed in TLS: the certificate does not name the host",
  invalid_url: "could not be requested: the URL is not a valid http(s) URL",
  blocked: "was not requested: the address is not public",
  too_many_redirects: "redirected too many times",
  bad_redirect: "redirected without a usable location",
  http_status: "answered with an error status",
  body_timeout: "sent headers but its body did not arrive in time",
  body_too_large: "sent a body larger than the probe reads",
  body_too_complex: "sent JSON nested or sized beyond what the probe parses",
  invalid_json: "answered with a body that is not JSON",
  not_json_object: "answered JSON that is not an object",
  not_capability_statement: "answered JSON that is not a CapabilityStatement",
  not_smart_configuration: "answered JSON that is not a SMART configuration",
};

/** What fetching one document produced. */
export interface DocumentResult {
  /** The document was fetched and is what we expected (2xx, JSON object of the right kind). */
  ok: boolean;
  /** Status of the last HTTP response, or null when no response arrived. */
  httpStatus: number | null;
  /** The body text exactly as received (decoded, BOM dropped) when `ok`; else null. */
  body: string | null;
  /**
   * What derive.ts reads of the parsed body when `ok`: its top-level scalars, `software`,
   * `rest[].resource[].type` and the SMART lists; the rest of the tree is let go as soon as it is
   * parsed. Not stored.
   */
  json: Record<string, unknown> | null;
  errorKind: ErrorKind | null;
  errorMessage: string | null;
  /** The URL that produced the last response (after redirects). */
  finalUrl: string;
  redirects: number;
  /** HTTP requests sent for this document (redirect hops, Accept fall-backs, the retry). */
  requests: number;
  durationMs: number;
}

export interface ProbeSummary {
  fhirVersion: FhirVersion;
  softwareName: string | null;
  softwareVersion: string | null;
  supportedResourceCount: number;
  supportedResources: string[];
  smartSupported: boolean;
  smartCapabilities: string[];
  grantTypes: string[];
}

export type ProbeOutcomeStatus = "success" | "partial" | "failed";

/**
 * What the TLS handshake with an https host said, read once per host per run (null members when
 * unknown: the handshake did not complete).
 */
export interface TlsFacts {
  /** The negotiated protocol, e.g. `TLSv1.3`. */
  protocol: string | null;
  /** The leaf certificate's notAfter (ISO 8601). */
  certificateExpiresAt: string | null;
  /** The leaf certificate's issuer: its organization (O), else its common name (CN). */
  issuer: string | null;
  /** Whether the chain verified against the trusted CAs for the host's name. */
  verified: boolean | null;
}

/** TLS facts not known (yet): an http URL, or a handshake that did not complete. */
export const UNKNOWN_TLS: TlsFacts = { protocol: null, certificateExpiresAt: null, issuer: null, verified: null };

/** The result of probing one base URL. */
export interface ProbeResult {
  url: string;
  startedAt: string;
  durationMs: number;
  probeStatus: ProbeOutcomeStatus;
  /** What the entries on this URL become: `verified`, `unresponsive`, or null (unchanged). */
  entryStatus: "verified" | "unresponsive" | null;
  /** The error of the metadata document, else of the SMART document, else null. */
  errorKind: ErrorKind | null;
  metadata: DocumentResult;
  smart: DocumentResult;
  summary: ProbeSummary;
  /** Audiences derived from SMART capabilities; null when SMART gives none. */
  access: Audience[] | null;
  /** The TLS facts of the URL's host; null for http URLs. */
  tls: TlsFacts | null;
}

/**
 * When a probe run takes its own failures for an outage of the prober's network rather than of
 * the servers (src/pipeline/probe/outage.ts; docs/deploy.md, "The outage rule").
 */
export interface OutageRule {
  /** How long network failures are held back, and the span the shares are counted over. */
  windowMs: number;
  /** Fewer distinct failing hosts than this in a window never count as an outage. */
  minHosts: number;
  /** Share (0–1) of the distinct hosts heard from in the window that failed at the network level. */
  failedShare: number;
  /** Share (0–1) of those failing hosts that answered at their previous probe. */
  previouslyUpShare: number;
  /** Known-good URLs; any HTTP answer from one of them means the prober's network works. */
  canaryUrls: readonly string[];
}

export const OUTAGE_DEFAULTS: OutageRule = {
  windowMs: 60_000,
  minHosts: 20,
  failedShare: 0.5,
  previouslyUpShare: 0.5,
  canaryUrls: [],
};
