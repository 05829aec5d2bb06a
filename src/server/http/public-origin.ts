import { Elysia } from "elysia";
import type { TrustProxy } from "../../config";
import type { Exchange } from "./exchange";
import { exchanges } from "./exchange";

/** A proxy header element longer than this is not one we wrote: it is ignored, so any header costs the same. */
const LONGEST_ELEMENT = 256;

/** `http` or `https` from a header element, else null. */
function scheme(text: string | undefined): "http" | "https" | null {
  if (text === undefined || text.length > LONGEST_ELEMENT) return null;
  const value = text.trim().replace(/^"|"$/g, "").toLowerCase();
  return value === "https" || value === "http" ? value : null;
}

/** The last element of a comma-separated header (the one our proxy added), or undefined. */
function lastElement(request: Request, name: string): string | undefined {
  const header = request.headers.get(name);
  return header === null ? undefined : header.slice(header.lastIndexOf(",") + 1);
}

/** `proto=` of the last element of `Forwarded` (RFC 7239), or undefined. */
function forwardedProto(request: Request): string | undefined {
  const element = lastElement(request, "forwarded");
  if (element === undefined || element.length > LONGEST_ELEMENT) return undefined;
  for (const pair of element.split(";")) {
    const equals = pair.indexOf("=");
    if (pair.slice(0, equals).trim().toLowerCase() === "proto") return pair.slice(equals + 1);
  }
  return undefined;
}

/**
 * The scheme the client used to reach the trusted proxy in front of us, or null when there is no
 * trusted proxy (TRUST_PROXY unset: every such header is the client's own text) or it says
 * nothing usable. `fly`: Fly-Forwarded-Proto, which Fly's proxy sets, else X-Forwarded-Proto.
 * `true`: `proto=` of the last `Forwarded` element, else the last X-Forwarded-Proto value (the
 * hop our proxy added, as for X-Forwarded-For in client-ip.ts).
 */
function forwardedScheme(request: Request, trustProxy: TrustProxy): "http" | "https" | null {
  if (trustProxy === null) return null;
  if (trustProxy === "fly")
    return (
      scheme(request.headers.get("fly-forwarded-proto") ?? undefined) ??
      scheme(lastElement(request, "x-forwarded-proto"))
    );
  return scheme(forwardedProto(request)) ?? scheme(lastElement(request, "x-forwarded-proto"));
}

/**
 * Behind a trusted proxy, records in each request's exchange the origin its absolute URLs (FHIR
 * `fullUrl`s and links, the FHIR export's) are written under: the scheme the proxy reports, the
 * host and port the request named (never a forwarded host). Without TRUST_PROXY it adds no hook.
 */
export const publicOrigins = (trustProxy: TrustProxy) => {
  const plugin = new Elysia({ name: "public-origins" });
  if (trustProxy === null) return plugin;
  return plugin.use(exchanges).onRequest(({ exchange }) => {
    const request = exchange.request;
    const reported = forwardedScheme(request, trustProxy);
    if (reported === null || request.url.startsWith(`${reported}:`)) return;
    const origin = new URL(request.url).origin;
    exchange.origin = `${reported}${origin.slice(origin.indexOf(":"))}`;
  });
};

/** The origin absolute URLs of this request's answer are written under (see publicOrigins). */
export const originOf = (exchange: Exchange): string => exchange.origin ?? new URL(exchange.request.url).origin;
