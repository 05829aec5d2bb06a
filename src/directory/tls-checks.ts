/**
 * The TLS checks of a capabilities answer, from what the probe stored: pure functions, each
 * `{ id, ok, detail }`, `ok` null when the rule cannot apply (an http URL, a URL never probed, a
 * handshake that did not complete). docs/api.md, "Checks".
 */
import type { TlsFacts } from "../model/probe";

export interface Check {
  id: string;
  ok: boolean | null;
  detail: string;
}

/** What the checks read: the entry's URL and its probe's stored facts. */
export interface TlsCheckInput {
  url: string;
  /** When the URL was probed (ISO 8601); null when never. */
  probedAt: string | null;
  tls: TlsFacts;
  /** Where /metadata finally answered; null when nothing answered. */
  finalUrl: string | null;
  redirectCount: number | null;
}

const DAY_MS = 86_400_000;
const MODERN = new Set(["TLSv1.2", "TLSv1.3"]);

const isHttps = (url: string) => url.toLowerCase().startsWith("https:");

/** The host (with port) of a URL; null when it does not parse. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/** `tls-1.2-or-later`: the https host negotiated TLS 1.2 or 1.3. */
export function tls12OrLater({ url, tls }: TlsCheckInput): Check {
  const id = "tls-1.2-or-later";
  if (!isHttps(url)) return { id, ok: null, detail: "not an https URL" };
  if (tls.protocol === null) return { id, ok: null, detail: "no TLS handshake completed yet" };
  return MODERN.has(tls.protocol)
    ? { id, ok: true, detail: `negotiated ${tls.protocol}` }
    : { id, ok: false, detail: `negotiated ${tls.protocol}, older than TLS 1.2` };
}

/** `certificate-valid-30-days`: the chain verified and the certificate was valid 30 days past the probe. */
export function certificateValid30Days({ url, probedAt, tls }: TlsCheckInput): Check {
  const id = "certificate-valid-30-days";
  if (!isHttps(url)) return { id, ok: null, detail: "not an https URL" };
  if (probedAt === null || tls.certificateExpiresAt === null || tls.verified === null)
    return { id, ok: null, detail: "no certificate read yet" };
  const expires = tls.certificateExpiresAt.slice(0, 10);
  if (!tls.verified) return { id, ok: false, detail: `the certificate (expires ${expires}) did not verify` };
  const days = Math.floor((Date.parse(tls.certificateExpiresAt) - Date.parse(probedAt)) / DAY_MS);
  if (days < 0) return { id, ok: false, detail: `the certificate expired on ${expires}, before the probe` };
  return days >= 30
    ? { id, ok: true, detail: `verified; expires ${expires}, ${days} days after the probe` }
    : { id, ok: false, detail: `verified, but expires ${expires}, ${days} days after the probe` };
}

/** `metadata-on-same-host`: /metadata answered on the URL's own host, not after a redirect elsewhere. */
export function metadataOnSameHost({ url, finalUrl, redirectCount }: TlsCheckInput): Check {
  const id = "metadata-on-same-host";
  if (finalUrl === null) return { id, ok: null, detail: "/metadata has not answered yet" };
  const from = hostOf(url);
  const to = hostOf(finalUrl);
  const hops = redirectCount ?? 0;
  const after = hops === 0 ? "without a redirect" : `after ${hops} redirect${hops === 1 ? "" : "s"}`;
  if (from !== null && from === to) return { id, ok: true, detail: `/metadata answered on ${from} ${after}` };
  return { id, ok: false, detail: `/metadata answered on ${to ?? finalUrl}, not ${from ?? url}, ${after}` };
}

/** The three TLS checks, in this order. */
export function tlsChecks(input: TlsCheckInput): Check[] {
  return [tls12OrLater(input), certificateValid30Days(input), metadataOnSameHost(input)];
}
