import { INTERNAL_DOMAINS, type Unusable } from "./unusable";

/**
 * Rules that judge a URL's host by the other hosts of the same list:
 *
 * - **near-miss-domain**: the host's registered domain is one edit (a letter added, dropped,
 *   changed, or two neighbours swapped: Damerau–Levenshtein distance 1) from a domain the list
 *   uses for more of its entries, with the same public suffix, and that other domain's name is at
 *   least NEAR_MISS_MIN_LENGTH letters long (`inscmqaes41.rd.allscriprts.com` beside 263 entries
 *   on `allscripts.com`; `….ficintergrations.com` beside 174 on `ficintegrations.com`). A
 *   misspelt domain is somebody else's, or nobody's: at best dead, at worst a stranger's server
 *   a client would send its requests to. Short names are left alone: hospitals' acronyms are one
 *   letter apart by chance (`krh.org` and `arh.org`, `cpsmdit.com` and `npsmdit.com` are all
 *   real, distinct organizations on the national lists).
 * - **internal-host**: the host is a machine the list also names inside a developer's internal
 *   network (INTERNAL_DOMAINS), published without that subdomain: `incdautoes4.allscripts.com`
 *   beside `incdautoes4.rd.allscripts.com`, the same QA machine under the same name.
 */
const NEAR_MISS_MIN_LENGTH = 8;

/**
 * Two-letter country codes whose registries hand out names under a generic second level
 * (`co.uk`, `com.au`, `ca.us`): a second level of at most three letters under one of them is
 * taken as part of the suffix. A heuristic, not the Public Suffix List: near-miss only compares
 * domains that share this suffix, so a wrong split there cannot make two domains look alike.
 */
const SHORT_SECOND_LEVEL = /^[a-z]{1,3}$/;

/** The registered domain of a host, split into its name and its public suffix: `a.rd.allscripts.com` → `allscripts` + `com`. */
export function registeredDomain(host: string): { name: string; suffix: string } | null {
  const labels = host.toLowerCase().replace(/\.$/, "").split(".");
  if (labels.length < 2 || /^\d+$/.test(labels.at(-1)!)) return null;
  const top = labels.at(-1)!;
  const suffixLabels = labels.length >= 3 && top.length === 2 && SHORT_SECOND_LEVEL.test(labels.at(-2)!) ? 2 : 1;
  if (labels.length <= suffixLabels) return null;
  return { name: labels.at(-1 - suffixLabels)!, suffix: labels.slice(-suffixLabels).join(".") };
}

/** Damerau–Levenshtein distance (optimal string alignment): inserts, deletes, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d = new Int32Array(rows * cols);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++)
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[(i - 2) * cols + j - 2]! + 1);
      d[i * cols + j] = best;
    }
  return d[rows * cols - 1]!;
}

const hostOf = (url: string) => new URL(url).hostname.toLowerCase().replace(/\.$/, "");

/**
 * The host rules of one list (see above), from the URLs of all its entries: a function giving,
 * for one of those URLs, why it is unusable, or null.
 */
export function listHostRules(urls: readonly string[]): (url: string) => Unusable | null {
  const entriesOn = new Map<string, number>();
  const internalMachines = new Map<string, Set<string>>();
  for (const url of urls) {
    const host = hostOf(url);
    const domain = registeredDomain(host);
    if (domain !== null) {
      const key = `${domain.name}.${domain.suffix}`;
      entriesOn.set(key, (entriesOn.get(key) ?? 0) + 1);
    }
    for (const internal of INTERNAL_DOMAINS)
      if (host.endsWith(`.${internal}`)) {
        const machine = host.slice(0, host.indexOf("."));
        const outside = internal.slice(internal.indexOf(".") + 1);
        if (!internalMachines.has(outside)) internalMachines.set(outside, new Set());
        internalMachines.get(outside)!.add(machine);
      }
  }
  const domains = [...entriesOn.keys()];
  /** Per registered domain: the more used domain it is a near miss of, or null (each judged once). */
  const nearMiss = new Map<string, string | null>();
  const nearMissOf = (key: string, own: { name: string; suffix: string }) => {
    let found = nearMiss.get(key);
    if (found !== undefined) return found;
    const count = entriesOn.get(key) ?? 0;
    found =
      domains.find((other) => {
        const theirs = registeredDomain(other)!;
        return (
          theirs.suffix === own.suffix &&
          theirs.name.length >= NEAR_MISS_MIN_LENGTH &&
          Math.abs(theirs.name.length - own.name.length) <= 1 &&
          entriesOn.get(other)! > count &&
          editDistance(own.name, theirs.name) === 1
        );
      }) ?? null;
    nearMiss.set(key, found);
    return found;
  };
  return (url) => {
    const host = hostOf(url);
    const dot = host.indexOf(".");
    const machine = host.slice(0, dot);
    const parent = host.slice(dot + 1);
    if (dot > 0 && internalMachines.get(parent)?.has(machine)) {
      const internal = INTERNAL_DOMAINS.find((d) => d.endsWith(`.${parent}`))!;
      return {
        kind: "internal-host",
        reason: `host ${host} is the internal machine ${machine}.${internal} (the list names it there too) published without its internal subdomain`,
      };
    }
    const own = registeredDomain(host);
    if (own === null) return null;
    const key = `${own.name}.${own.suffix}`;
    const other = nearMissOf(key, own);
    if (other === null) return null;
    return {
      kind: "near-miss-domain",
      reason: `host's domain ${key} is one letter off ${other}, which the same list uses for ${entriesOn.get(other)} entries: a misspelt domain is somebody else's, or nobody's`,
    };
  };
}
