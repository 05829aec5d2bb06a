import { isIP } from "node:net";
import { connect, type PeerCertificate } from "node:tls";
import { type TlsFacts, UNKNOWN_TLS } from "../../model/probe";
import type { FetcherConfig } from "./fetch";
import { resolveAndCheck } from "./guard";

/** The issuer's organization, else its common name. */
function issuerOf(certificate: PeerCertificate): string | null {
  const issuer = certificate.issuer as unknown as Record<string, string | string[] | undefined> | undefined;
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  return first(issuer?.O) ?? first(issuer?.CN) ?? null;
}

function expiryOf(certificate: PeerCertificate): string | null {
  const ms = Date.parse(certificate.valid_to ?? "");
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/**
 * One TLS handshake with an https URL's host (through the guard, to the checked address, with the
 * host's name as SNI, inside one of the host's request slots), without verifying, to read what it
 * negotiated and presented: protocol, the leaf certificate's expiry and issuer, and whether the
 * chain verified for the name. Unknown (nulls) when the handshake does not complete. Never throws.
 */
export async function readTlsFacts(url: URL, config: FetcherConfig): Promise<TlsFacts> {
  const target = config.connectTo ? config.connectTo(new URL(url.href)) : url;
  if (target.protocol !== "https:") return UNKNOWN_TLS;
  let address: string;
  try {
    const addresses = await resolveAndCheck(target, config, config.dns);
    address = addresses[0]!.address;
  } catch {
    return UNKNOWN_TLS;
  }
  const hostname = target.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  const hostKey = url.host;
  await config.limiter.acquire(hostKey);
  try {
    return await new Promise<TlsFacts>((resolve) => {
      const socket = connect({
        host: address,
        port: Number(target.port || 443),
        servername: isIP(hostname) ? undefined : hostname,
        ca: config.ca,
        rejectUnauthorized: false,
        ALPNProtocols: ["http/1.1"],
      });
      const done = (facts: TlsFacts) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(facts);
      };
      const timer = setTimeout(() => done(UNKNOWN_TLS), config.timeoutMs);
      const onAbort = () => done(UNKNOWN_TLS);
      config.signal?.addEventListener("abort", onAbort, { once: true });
      socket.once("secureConnect", () => {
        config.signal?.removeEventListener("abort", onAbort);
        const certificate = socket.getPeerCertificate();
        const present = certificate && Object.keys(certificate).length > 0;
        done({
          protocol: socket.getProtocol() ?? null,
          certificateExpiresAt: present ? expiryOf(certificate) : null,
          issuer: present ? issuerOf(certificate) : null,
          verified: socket.authorized === true,
        });
      });
      socket.once("error", () => {
        config.signal?.removeEventListener("abort", onAbort);
        done(UNKNOWN_TLS);
      });
    });
  } finally {
    config.limiter.release(hostKey);
  }
}
