/**
 * bun run data:national-bundle --lantern <dir>
 *
 * Regenerates, from a copy of ONC Lantern's lists (a folder holding MANIFEST.json and
 * prod_resources/): db/vendors.json (every certified developer
 * with a list file; the vendors already registered keep their ids and lists) and the bundled
 * lists db/national/lists.json.zst with db/national/provenance.json.
 * Exit status: 0 done, 1 failed, 2 usage error.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCli } from "../../cli/args";
import type { LanternManifest } from "../ingest/national-lists";
import type { ChplListItem, ChplProductsItem } from "./lantern";

function options() {
  const { values, fail } = parseCli({
    command: "bun run data:national-bundle",
    synopsis: ["--lantern <dir>"],
    description: "Regenerates db/vendors.json and the bundled national lists (db/national/) from Lantern's lists.",
    options: { lantern: { type: "string" } },
    optionHelp: [
      ["--lantern <dir>", "the folder with MANIFEST.json and prod_resources/ (a copy of Lantern's resources)"],
    ],
    exitStatus: [[1, "failed"]],
  });
  return values.lantern ?? fail("--lantern is required");
}

async function main() {
  const lantern = options();
  // Loaded once the arguments are read: `--help` and a bad argument answer without them.
  const { LISTS_FILE, NATIONAL_DIR, PROVENANCE_FILE, packBundle } = await import("../ingest/national-lists");
  const { DEFAULT_REGISTRY_PATH, loadRegistry } = await import("../ingest/registry");
  const { formatRegistry, generateRegistry } = await import("./registry-generator");
  const resources = join(lantern, "prod_resources");
  const read = <T>(file: string) => JSON.parse(readFileSync(file, "utf8")) as T;
  const manifest = read<LanternManifest>(join(lantern, "MANIFEST.json"));
  const present = new Set(readdirSync(resources));
  const registry = generateRegistry({
    chplLists: read<ChplListItem[]>(join(resources, "CHPLEndpointResourcesList.json")),
    chplProducts: read<ChplProductsItem[]>(join(resources, "CHPLProductsInfo.json")),
    files: present,
    current: loadRegistry(DEFAULT_REGISTRY_PATH),
  });
  writeFileSync(DEFAULT_REGISTRY_PATH, formatRegistry(registry));
  loadRegistry(DEFAULT_REGISTRY_PATH);
  // The health plans' lists are a bundle of their own (bun run data:payer-bundle).
  const developers = registry.filter((v) => v.kind !== "payer");
  const bundled = developers.flatMap((v) => v.lists.flatMap((l) => (l.bundledFile ? [l.bundledFile] : [])));
  const files = new Map(bundled.map((name) => [name, readFileSync(join(resources, name), "utf8")]));
  const { archive, provenance } = packBundle(files, manifest);
  mkdirSync(NATIONAL_DIR, { recursive: true });
  writeFileSync(join(NATIONAL_DIR, LISTS_FILE), archive);
  writeFileSync(join(NATIONAL_DIR, PROVENANCE_FILE), `${JSON.stringify(provenance, null, 1)}\n`);
  const lists = registry.reduce((n, v) => n + v.lists.length, 0);
  console.log(`db/vendors.json: ${registry.length} vendors, ${lists} lists`);
  console.log(`db/national/${LISTS_FILE}: ${files.size} files, ${archive.length} bytes, as of ${provenance.asOf}`);
}

await main();
