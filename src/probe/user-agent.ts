import pkg from "../../package.json";

/** Where a server operator who sees our requests in their logs can find out who we are. */
const DEFAULT_CONTACT_URL = "https://github.com/endpoint-directory/endpoint-directory";

export function contactUrl(env: Record<string, string | undefined> = process.env): string {
  const fromPackage = (pkg as { homepage?: unknown }).homepage;
  return env.PROBE_CONTACT_URL || (typeof fromPackage === "string" && fromPackage ? fromPackage : DEFAULT_CONTACT_URL);
}

/** `EndpointDirectory/<version> (+<contact URL>)` */
export function defaultUserAgent(env: Record<string, string | undefined> = process.env): string {
  return `EndpointDirectory/${pkg.version} (+${contactUrl(env)})`;
}
