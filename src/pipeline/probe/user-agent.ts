import pkg from "../../../package.json";
import { loadConfig } from "../../config";

/** Where a server operator who sees our requests in their logs can find out who we are. */
const DEFAULT_CONTACT_URL = "https://github.com/endpoint-directory/endpoint-directory";

function contactUrl(configured: string | null): string {
  const fromPackage = (pkg as { homepage?: unknown }).homepage;
  return configured || (typeof fromPackage === "string" && fromPackage ? fromPackage : DEFAULT_CONTACT_URL);
}

/** `EndpointDirectory/<version> (+<contact URL>)`; the contact URL is `PROBE_CONTACT_URL`, else the package's homepage. */
export function defaultUserAgent(configured = loadConfig().probeContactUrl): string {
  return `EndpointDirectory/${pkg.version} (+${contactUrl(configured)})`;
}
