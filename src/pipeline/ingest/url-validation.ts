import { isIP } from "node:net";

/** A URL fit to store, or why the item is skipped. */
export type UrlCheck = { url: string } | { reason: string };

const MAX_URL_LENGTH = 2048;
const MAX_HOST_LENGTH = 253;
/** One DNS label as a host name allows it (letters, digits, hyphens; no hyphen at either end). */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** Whitespace, control characters and invisible format characters (bidi overrides, zero-width…). */
const INVISIBLE = /[\s\p{Cc}\p{Cf}]/u;

/**
 * Checks one published endpoint URL before it is stored. Surrounding whitespace is trimmed; then
 * the URL must be `http://` or `https://` followed by a host name of at most 253 characters made
 * of valid labels (or an IP literal), an optional valid port, and no credentials, whitespace,
 * control characters or backslashes anywhere, in at most 2,048 characters. Returns the trimmed
 * URL, or the reason it is refused. Repairs (a missing scheme…) belong before this check.
 */
export function validateEndpointUrl(raw: string): UrlCheck {
  const text = raw.trim();
  if (text === "") return { reason: "empty URL" };
  if (text.length > MAX_URL_LENGTH)
    return { reason: `URL longer than ${MAX_URL_LENGTH.toLocaleString("en-US")} characters` };
  if (INVISIBLE.test(text)) return { reason: "whitespace or control characters inside the URL" };
  const authority = /^https?:\/\/([^/?#]*)/i.exec(text)?.[1];
  if (authority === undefined) return { reason: "not an http(s) URL" };
  if (text.includes("\\")) return { reason: "backslash in the URL" };
  if (authority.includes("@")) return { reason: "credentials in the URL" };
  if (authority === "" || authority.startsWith(":")) return { reason: "no host" };
  if (authority.includes("%")) return { reason: "percent-encoded host" };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { reason: "not a valid URL" };
  }
  if (url.port !== "" && Number(url.port) === 0) return { reason: "invalid port 0" };
  const hostReason = hostProblem(url.hostname);
  return hostReason ? { reason: hostReason } : { url: text };
}

/** Why a URL's (WHATWG-parsed, so lowercase ASCII) host name is not valid, or null. */
function hostProblem(hostname: string): string | null {
  if (hostname.startsWith("[") || isIP(hostname) === 4) return null;
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (name.length > MAX_HOST_LENGTH) return `host name longer than ${MAX_HOST_LENGTH} characters`;
  const bad = name.split(".").find((label) => !LABEL.test(label));
  if (bad !== undefined)
    return bad === "" ? "empty label in the host name" : `invalid host name label "${bad.slice(0, 70)}"`;
  return null;
}
