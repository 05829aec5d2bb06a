/**
 * bun run data:tld-list [<public_suffix_list.dat>] — writes src/pipeline/ingest/hosts/public-tlds.txt: the
 * top-level domains of the ICANN section of the Public Suffix List (default the system's copy,
 * /usr/share/publicsuffix/public_suffix_list.dat, from https://publicsuffix.org/list/), one per
 * line, ASCII (punycode), sorted. Ingest reads that file to tell a public host name from an
 * internal one (src/pipeline/ingest/unusable.ts); no network at run time.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { domainToASCII } from "node:url";
import { parseCli } from "../../src/cli/args";

const { positionals, fail } = parseCli({
  command: "bun run data:tld-list",
  synopsis: ["[<public_suffix_list.dat>]"],
  description:
    "Writes src/pipeline/ingest/hosts/public-tlds.txt (tracked): the top-level domains of the ICANN section of the Public Suffix List (default /usr/share/publicsuffix/public_suffix_list.dat), one per line, sorted.",
  options: {},
  optionHelp: [],
  allowPositionals: true,
});
if (positionals.length > 1) fail("at most one list file");
const source = positionals[0] ?? "/usr/share/publicsuffix/public_suffix_list.dat";
const text = readFileSync(source, "utf8");
const icann = text.slice(text.indexOf("===BEGIN ICANN DOMAINS==="), text.indexOf("===END ICANN DOMAINS==="));
const tlds = new Set<string>();
for (const line of icann.split("\n")) {
  const rule = line.trim().replace(/^[!*.]+/, "");
  if (rule === "" || rule.startsWith("//")) continue;
  const top = domainToASCII(rule.split(".").at(-1)!);
  if (top !== "") tlds.add(top);
}
const out = join(import.meta.dir, "../../src/pipeline/ingest/hosts/public-tlds.txt");
writeFileSync(out, `${[...tlds].sort().join("\n")}\n`);
console.log(`${out}: ${tlds.size} top-level domains from ${source}`);
