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
  if (/TLS|SSL|CERT|SELF_SIGNED|UNABLE_TO_|HANDSHAKE|DEPTH_ZERO/i.test(code) || /certificate|TLS|SSL/i.test(message))
    return "tls";
  return "network";
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
