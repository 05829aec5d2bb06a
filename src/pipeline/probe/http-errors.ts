import type { ErrorKind } from "../../model/probe";

/** Maps an error thrown by Bun's fetch (before or while reading the body) to an ErrorKind. */
export function classifyFetchError(error: unknown): ErrorKind {
  const e = error as { code?: unknown; name?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  const name = typeof e?.name === "string" ? e.name : "";
  const message = typeof e?.message === "string" ? e.message : "";
  if (name === "TimeoutError" || name === "AbortError" || code === "ETIMEDOUT" || code === "Timeout") return "timeout";
  if (code === "ECONNREFUSED" || code === "ConnectionRefused") return "refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "DNSResolutionFailed") return "dns";
  const certificate = certificateErrorKind(code);
  if (certificate) return certificate;
  if (/TLS|SSL|CERT|SELF_SIGNED|UNABLE_TO_|HANDSHAKE|DEPTH_ZERO/i.test(code) || /certificate|TLS|SSL/i.test(message))
    return "tls";
  return "network";
}

/** The OpenSSL verification codes (as Bun's fetch and node:tls report them) we name. */
const CERTIFICATE_CODES: Record<string, ErrorKind> = {
  CERT_HAS_EXPIRED: "certificate_expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "certificate_self_signed",
  SELF_SIGNED_CERT_IN_CHAIN: "certificate_self_signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "certificate_untrusted",
  UNABLE_TO_GET_ISSUER_CERT: "certificate_untrusted",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "certificate_untrusted",
  CERT_UNTRUSTED: "certificate_untrusted",
  CERT_SIGNATURE_FAILURE: "certificate_untrusted",
  ERR_TLS_CERT_ALTNAME_INVALID: "certificate_name_mismatch",
  HOSTNAME_MISMATCH: "certificate_name_mismatch",
};

/** The error kind of a certificate verification code; null for any other code. */
function certificateErrorKind(code: string | null | undefined): ErrorKind | null {
  return (code && CERTIFICATE_CODES[code]) || null;
}

export function describeError(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === "string" ? e.message : String(error);
  const code = typeof e?.code === "string" && !message.includes(e.code) ? `${e.code}: ` : "";
  return (code + message).slice(0, 500);
}

/** Seconds or an HTTP date; null when absent or unparseable. Result in milliseconds, ≥ 0. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/^[A-Za-z]{3},? /.test(text)) return null;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}
