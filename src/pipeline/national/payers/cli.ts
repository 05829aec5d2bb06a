/**
 * bun run data:payer-bundle --lantern-git <git dir> [--commit <ref>]
 *
 * Regenerates, from a clone of ONC Lantern's repository (onc-healthit/lantern-back-end, bare or
 * not): the payer vendors of db/vendors.json (kind `payer`; every other vendor is kept as it is)
 * and the health plans' bundle db/national/payers/ (lists.json.zst, provenance.json: the commit,
 * each file's last change and SHA-256), read at `--commit` (default HEAD).
 * Exit status: 0 done, 1 failed, 2 usage error.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCli } from "../../../cli/args";
import type { LanternManifest } from "../../ingest/national-lists";
import { parseCsvRows } from "../../ingest/parsers/csv";

const REPOSITORY = "onc-healthit/lantern-back-end";
const FOLDER = "resources/prod_resources";

function options() {
  const { values, fail } = parseCli({
    command: "bun run data:payer-bundle",
    synopsis: ["--lantern-git <git dir> [--commit <ref>]"],
    description: "Regenerates the payer vendors of db/vendors.json and the health plans' bundle (db/national/payers/).",
    options: { "lantern-git": { type: "string" }, commit: { type: "string" } },
    optionHelp: [
      ["--lantern-git <dir>", "a clone of onc-healthit/lantern-back-end (its .git folder, or a bare repository)"],
      ["--commit <ref>", "the commit to read (default HEAD)"],
    ],
    exitStatus: [[1, "failed"]],
  });
  return { git: values["lantern-git"] ?? fail("--lantern-git is required"), ref: values.commit ?? "HEAD" };
}

function git(dir: string, ...args: string[]): string {
  const run = Bun.spawnSync(["git", "-C", dir, ...args], { stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString().trim()}`);
  return run.stdout.toString();
}

/** Items of a JSON list (`{Endpoints: [...]}` or an array), data rows of a CSV. */
function rowsOf(name: string, text: string): number {
  if (name.endsWith(".csv")) return Math.max(0, parseCsvRows(text).length - 1);
  const json = JSON.parse(text) as unknown[] | { Endpoints?: unknown[] };
  return Array.isArray(json) ? json.length : (json.Endpoints?.length ?? 0);
}

async function main() {
  const { git: dir, ref } = options();
  // Loaded once the arguments are read: `--help` and a bad argument answer without them.
  const { LISTS_FILE, PAYERS_DIR, PROVENANCE_FILE, packBundle } = await import("../../ingest/national-lists");
  const { DEFAULT_REGISTRY_PATH, loadRegistry } = await import("../../ingest/registry");
  const { formatRegistry } = await import("../registry-generator");
  const { generatePayerRegistry, MEDICARE_LIST, payerFiles } = await import("./registry");
  const commit = git(dir, "rev-parse", `${ref}^{commit}`).trim();
  const names = git(dir, "ls-tree", "--name-only", commit, `${FOLDER}/`)
    .split("\n")
    .map((path) => path.slice(FOLDER.length + 1))
    .filter((name) =>
      /^(Medicare_|MedicaidState_)|^(medicaid-state-endpoints|oneupdata|payer-patient-access)\.csv$/.test(name),
    );
  names.push(MEDICARE_LIST);
  const all = new Map(names.map((name) => [name, git(dir, "show", `${commit}:${FOLDER}/${name}`)]));
  const payers = generatePayerRegistry(all);
  const files = new Map(payerFiles(payers).map((name) => [name, all.get(name)!]));
  const manifest: LanternManifest = { repository: REPOSITORY, path: FOLDER, commit, files: {} };
  for (const [name, text] of files) {
    const [lastChangedCommit, lastChangedAt] = git(
      dir,
      "log",
      "-1",
      "--format=%H %cI",
      commit,
      "--",
      `${FOLDER}/${name}`,
    )
      .trim()
      .split(" ");
    manifest.files[name] = {
      lastChangedCommit: lastChangedCommit!,
      lastChangedAt: lastChangedAt!,
      rows: rowsOf(name, text),
    };
  }
  const registry = [...loadRegistry(DEFAULT_REGISTRY_PATH).filter((v) => v.kind !== "payer"), ...payers].sort((a, b) =>
    a.id < b.id ? -1 : 1,
  );
  writeFileSync(DEFAULT_REGISTRY_PATH, formatRegistry(registry));
  loadRegistry(DEFAULT_REGISTRY_PATH);
  const { archive, provenance } = packBundle(files, manifest);
  mkdirSync(PAYERS_DIR, { recursive: true });
  writeFileSync(join(PAYERS_DIR, LISTS_FILE), archive);
  writeFileSync(join(PAYERS_DIR, PROVENANCE_FILE), `${JSON.stringify(provenance, null, 1)}\n`);
  const lists = payers.reduce((n, v) => n + v.lists.length, 0);
  console.log(`db/vendors.json: ${payers.length} payers, ${lists} payer lists (${registry.length} vendors in all)`);
  console.log(
    `db/national/payers/${LISTS_FILE}: ${files.size} files, ${archive.length} bytes, as of ${provenance.asOf}`,
  );
}

await main();
