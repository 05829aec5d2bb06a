import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import type { UnusableReason } from "../../model/evidence";
import { blockedAddressReason } from "../probe/ip";

/**
 * Host suffixes that never name a server on the public internet: mDNS (`.local`), the names
 * home and office networks give themselves (`.lan`, `.home`, `.internal`, `.intranet`, `.corp`,
 * `.localdomain`, `.home.arpa`), and the names RFC 6761 reserves so that they never resolve
 * (`.localhost`, `.invalid`). A published URL on one of them only works inside the publisher's
 * own network. `.test` and `.example` (RFC 2606) are not among them: they are the names for
 * documentation and tests, no published list uses them, and the project's tests and sample data
 * stand them in for public servers.
 */
const INTERNAL_SUFFIXES = [
  "local",
  "lan",
  "home",
  "internal",
  "intranet",
  "corp",
  "localdomain",
  "home.arpa",
  "localhost",
  "invalid",
] as const;

/** Top-level names for documentation and tests, taken as public (see INTERNAL_SUFFIXES). */
const DOCUMENTATION_TLDS = new Set(["test", "example"]);

/**
 * Public domains whose hosts are a developer's internal network, not servers its customers'
 * apps can reach: Allscripts' research and development network (`*.rd.allscripts.com`: build and
 * test machines such as `dts-t03-scmweb2.rd.allscripts.com`), which Lantern's own notes on these
 * lists call internal host names.
 */
export const INTERNAL_DOMAINS = ["rd.allscripts.com"] as const;

/** public-tlds.txt (generated from the Public Suffix List by tools/data/tld-list.ts), read on first use. */
let publicTlds: Set<string> | null = null;
function isPublicTld(label: string): boolean {
  publicTlds ??= new Set(readFileSync(join(import.meta.dir, "hosts", "public-tlds.txt"), "utf8").split("\n"));
  return publicTlds.has(label) || DOCUMENTATION_TLDS.has(label);
}

/**
 * Organization names that tell readers not to use the entry, each rule matching a word on its own
 * (letters on neither side), so no organization's name is caught by a word inside it
 * (`Fredonia`, `McDonough`, `Carondelet`, `Brandon` stay listed):
 * - `do-not-use`: `**DO NOT USE**`, `Do not use - test`, `DONOTUSE`, `testing-dont use`, `don't use`;
 * - `deleted`: `DELETE`, `Deleted`, and `zzzDelete-…` (z's sort a name to the end of a list);
 * - `inactive`: `Bon Secours Inactive`, `… - Inactive`;
 * - `dummy`: `G4 Dummy Response - Prod`.
 * Names that only look like test or demo ones are not matched here: they are reported, not
 * hidden (looksLikeTestOrDemo). `npm run data:audit` lists every national name each rule matches.
 */
export const NAME_RULES = [
  {
    kind: "do-not-use",
    pattern: /(?:^|[^a-z])(?:do[\s_-]*not|don['’]?t)[\s_-]*use(?:[^a-z]|$)/i,
    reason: "the organization name says not to use it",
  },
  {
    kind: "deleted",
    pattern: /(?:^z*|[^a-z])deleted?(?:[^a-z]|$)/i,
    reason: "the organization name marks it deleted",
  },
  {
    kind: "inactive",
    pattern: /(?:^|[^a-z])inactive(?:[^a-z]|$)/i,
    reason: "the organization name marks it inactive",
  },
  {
    kind: "dummy",
    pattern: /(?:^|[^a-z])dummy(?:[^a-z]|$)/i,
    reason: "the organization name says it is a dummy",
  },
] as const;

/** A name or host that looks like a test or demo entry ("Test Clinic", `testclinic.com`, "Sandbox"). */
const TEST_OR_DEMO = /(?:^|[^a-z])(?:test|demo|sandbox|training|dummy)|test(?:clinic|site|practice|env)/i;

export interface Unusable {
  kind: UnusableReason;
  /** What exactly ("host is a private IPv4 address"): stored, served as `meta.unusable.detail`, reported by ingest. */
  reason: string;
}

/**
 * Why an entry must not be listed, or null when it may be. An entry is unusable when its URL's
 * host is an IP address in a private, loopback, link-local or other non-public range, is
 * `localhost`, is a single label (`http://fhirserver/…`), ends in an internal or reserved
 * suffix (INTERNAL_SUFFIXES) or in any other top-level label that is not a public top-level
 * domain (`*.hos`, `*.m`: names of a hosting provider's own network); when the URL is a
 * document (a path ending in `.html`, `.htm` or `.pdf`: a specification page, not a server); when
 * it has a query string or fragment (`…/fhir-OCC-FhirPoint-Echo?cust=10344843`: a FHIR base URL
 * has neither, since `[base]/metadata` and every request are formed by appending a path, and
 * dropping it would serve a URL nobody published that may be another customer's); or
 * when its organization name says not to use it (NAME_RULES). Rules that need the rest of the
 * list (a misspelt domain, an internal machine outside its domain) are in list-hosts.ts. `url` is a
 * validated, canonical http(s) URL. `allowPrivate` (ALLOW_PRIVATE_NETWORK, for local development
 * and tests, where the probe may reach such servers too) takes private, loopback and `localhost`
 * hosts as usable.
 */
export function unusableReason(url: string, organizationName: string | null, allowPrivate = false): Unusable | null {
  const hostname = new URL(url).hostname;
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname.replace(/\.$/, "");
  if (isIP(bare) !== 0) {
    const blocked = allowPrivate ? null : blockedAddressReason(bare);
    if (blocked !== null) return { kind: "non-public-address", reason: `host is a ${blocked}` };
  } else if (bare === "localhost") {
    if (!allowPrivate) return { kind: "localhost", reason: "host is localhost" };
  } else if (!bare.includes(".")) return { kind: "single-label-host", reason: "host is a single label" };
  else {
    const suffix = INTERNAL_SUFFIXES.find((s) => bare.endsWith(`.${s}`));
    if (suffix !== undefined)
      return { kind: "internal-suffix", reason: `host ends in .${suffix} (an internal or reserved name)` };
    const domain = INTERNAL_DOMAINS.find((d) => bare.endsWith(`.${d}`));
    if (domain !== undefined)
      return { kind: "internal-suffix", reason: `host is in ${domain}, a developer's internal network` };
    const top = bare.slice(bare.lastIndexOf(".") + 1);
    if (!isPublicTld(top))
      return { kind: "internal-suffix", reason: `host ends in .${top}, not a public top-level domain` };
  }
  const { pathname, search, hash } = new URL(url);
  if (/\.(?:html?|pdf)$/i.test(pathname))
    return { kind: "web-page", reason: "the URL is a document (.html, .pdf), not a FHIR server's base" };
  if (search !== "" || hash !== "")
    return {
      kind: "query-or-fragment",
      reason: `the URL has a ${search !== "" ? `query string (${search})` : `fragment (${hash})`}: a FHIR base URL has neither, as [base]/metadata cannot be formed from it, so which server is meant is unknown`,
    };
  const name = organizationName === null ? undefined : NAME_RULES.find((rule) => rule.pattern.test(organizationName));
  if (name !== undefined) return { kind: name.kind, reason: `${name.reason} ("${organizationName}")` };
  return null;
}

/** Whether a listed entry looks like a test or demo one, by its organization name or URL host (reported only). */
export function looksLikeTestOrDemo(url: string, organizationName: string | null): boolean {
  return TEST_OR_DEMO.test(organizationName ?? "") || TEST_OR_DEMO.test(new URL(url).hostname);
}
