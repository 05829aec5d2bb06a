import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");
/** ONC Lantern's lists as copied next to the repository (development only; tests skip without it). */
export const LANTERN = join(ROOT, "..", "shared", "data", "lantern");
export const LANTERN_FILES = join(LANTERN, "prod_resources");
export const hasLantern = existsSync(join(LANTERN, "MANIFEST.json"));

export const readJson = <T>(path: string) => JSON.parse(readFileSync(path, "utf8")) as T;

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
export function publishedKey(item: { URL?: string; OrganizationName?: string; NPIID?: string }): string | null {
  let url = (item.URL ?? "").trim();
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
