import { readFileSync } from "node:fs";
import { join } from "node:path";
import { lanternFiles } from "../../support/real-data";

export const ROOT = join(import.meta.dir, "../..", "..");
/** ONC Lantern's lists (test/fixtures/real/lantern): MANIFEST.json here, the files in LANTERN_FILES. */
export { LANTERN } from "../../support/real-data";
export const LANTERN_FILES = lanternFiles();

export const readJson = <T>(path: string) => JSON.parse(readFileSync(path, "utf8")) as T;

interface PublishedItem {
  URL?: string;
  OrganizationName?: string;
  NPIID?: string;
}

/**
 * The keys of a whole list's items (publishedKey), where a relative path (`api/x/R4`) takes the
 * origin of at least 9 in 10 (and at least 5) of the list's absolute URLs with as many segments
 * and the same first and last segment; without one it has no key.
 */
export function publishedKeys(items: PublishedItem[]): (string | null)[] {
  const shape = (path: string) => {
    const segments = path.replace(/^\/+|\/+$/g, "").split("/");
    return segments.length < 2 ? null : `${segments.length} ${segments[0]} ${segments.at(-1)}`;
  };
  const origins = new Map<string, Map<string, number>>();
  for (const item of items) {
    const match = /^(https?:\/\/[^/?#\s]+)(\/[^?#\s]*)$/i.exec((item.URL ?? "").trim());
    const key = match ? shape(match[2]!) : null;
    if (!match || key === null) continue;
    const counts = origins.get(key) ?? new Map<string, number>();
    const origin = match[1]!.toLowerCase();
    counts.set(origin, (counts.get(origin) ?? 0) + 1);
    origins.set(key, counts);
  }
  return items.map((item) => {
    const text = (item.URL ?? "").trim();
    if (!/^[a-z0-9_~%-]+(\/[a-z0-9._~%-]+)+\/?$/i.test(text)) return publishedKey(item);
    const counts = origins.get(shape(text) ?? "");
    if (!counts) return null;
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const [origin, n] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    return n >= 5 && n >= 0.9 * total ? publishedKey({ ...item, URL: `${origin}/${text}` }) : null;
  });
}

export interface ChplItem {
  URL: string;
  EndpointName: string;
  FileName: string;
}

/** Files that are not one EHR developer's list (an aggregator, payers). */
export const notADeveloper = (file: string) => /^(1Up|Medicare_|MedicaidState)/.test(file);

/**
 * The (URL, organization) key of a published Lantern item, computed here without the code under
 * test: the URL trimmed, tabs and spaces beside a `/`, `:`, `?` or `#` dropped when that leaves no
 * other whitespace, junk before the scheme dropped, `https://` added to a bare host name;
 * scheme and host lowercased, trailing `/` dropped; the organization is the 10-digit NPI when
 * published, else the lowercased name with whitespace collapsed. Null when there is no http(s) URL,
 * or when it holds whitespace, a control character or a backslash (parsers disagree on those).
 */
function publishedKey(item: PublishedItem): string | null {
  let url = (item.URL ?? "").trim();
  // A loopback address left before the real host name: `https://127.0.0.1<TAB>clinic.example.com/…`.
  url = url.replace(/^(https?:\/\/)(?:127\.\d+\.\d+\.\d+|localhost)[ \t]+(?=[a-z0-9.-]+\.[a-z]{2,}[:/])/i, "$1");
  const squeezed = url.replace(/(?<=[/:?#])[ \t]+|[ \t]+(?=[/:?#])/g, "");
  if (!/[ \t]/.test(squeezed)) url = squeezed;
  const at = url.search(/https?:\/\//i);
  if (at > 0 && /^[\s:;,'"]+$/.test(url.slice(0, at))) url = url.slice(at);
  if (at === -1 && /^[a-z0-9.-]+\.[a-z]{2,}(:\d+)?(\/\S*)?$/i.test(url)) url = `https://${url}`;
  const match = /^(https?):\/\/([^/?#\s]+)(.*)$/i.exec(url);
  if (!match || /[\s\p{Cc}\\]/u.test(url)) return null;
  const canonical = `${match[1]!.toLowerCase()}://${match[2]!.toLowerCase()}${match[3]!.replace(/\/+$/, "")}`;
  const npi = (item.NPIID ?? "").trim();
  const name = (item.OrganizationName ?? "").replace(/\s+/g, " ").trim().toLowerCase();
  return `${canonical}\n${/^\d{10}$/.test(npi) ? npi : name}`;
}
