/**
 * `bun tools/structure-report.ts [root]`: the numbers of docs/architecture.md's structure table for
 * the tree at `root` (default: this checkout): folder cycles, lines reachable from src/index.ts,
 * files with SQL text outside src/db/, and test files per source folder.
 *
 * The import graph is dependency-cruiser's (type-only imports included); a "folder" is a first-level
 * folder of src/, or a second-level one under src/server/ and src/pipeline/ (its sub-folders
 * belong to it). SQL text: a string literal that starts (after blanks) with an SQL verb.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parseCli } from "../src/cli/args";

const { positionals } = parseCli({
  command: "bun run structure:report",
  synopsis: ["[<root>]"],
  description:
    "The numbers of docs/architecture.md's structure table for the checkout at <root> (default: this one): folder cycles, lines reachable from src/index.ts, files with SQL text outside src/db/, test files per source folder.",
  options: {},
  optionHelp: [],
  allowPositionals: true,
});

const root = positionals[0] ?? join(import.meta.dir, "..");
const cruiser = join(import.meta.dir, "..", "node_modules", ".bin", "depcruise");

interface Module {
  source: string;
  dependencies: { resolved: string; coreModule?: boolean; couldNotResolve?: boolean }[];
}

const run = Bun.spawnSync(
  [cruiser, "src", "--no-config", "--ts-pre-compilation-deps", "--ts-config", "tsconfig.json", "-T", "json"],
  { cwd: root, stderr: "inherit" },
);
if (run.exitCode !== 0) throw new Error(`depcruise failed (${run.exitCode})`);
const modules = (JSON.parse(run.stdout.toString()) as { modules: Module[] }).modules.filter((m) =>
  m.source.startsWith("src/"),
);

function folderOf(file: string): string {
  const parts = file.split("/");
  if ((parts[1] === "server" || parts[1] === "pipeline") && parts.length > 3) return parts.slice(0, 3).join("/");
  return parts.length > 2 ? parts.slice(0, 2).join("/") : file;
}

// Folder graph and its strongly connected components (Tarjan).
const edges = new Map<string, Set<string>>();
for (const m of modules)
  for (const d of m.dependencies) {
    if (!d.resolved.startsWith("src/")) continue;
    const [a, b] = [folderOf(m.source), folderOf(d.resolved)];
    if (a !== b) (edges.get(a) ?? edges.set(a, new Set()).get(a)!).add(b);
  }
const nodes = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])])];
const index = new Map<string, number>();
const low = new Map<string, number>();
const stack: string[] = [];
const onStack = new Set<string>();
const knots: string[][] = [];
let counter = 0;
function connect(v: string) {
  index.set(v, counter);
  low.set(v, counter++);
  stack.push(v);
  onStack.add(v);
  for (const w of edges.get(v) ?? []) {
    if (!index.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v)!, low.get(w)!));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
  }
  if (low.get(v) === index.get(v)) {
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) knots.push(component.sort());
  }
}
for (const v of nodes) if (!index.has(v)) connect(v);

// Lines reachable from the server's entry point.
const bySource = new Map(modules.map((m) => [m.source, m]));
const reached = new Set<string>();
const todo = ["src/index.ts"];
while (todo.length) {
  const file = todo.pop()!;
  if (reached.has(file) || !bySource.has(file)) continue;
  reached.add(file);
  for (const d of bySource.get(file)!.dependencies) if (d.resolved.startsWith("src/")) todo.push(d.resolved);
}
const lines = (file: string) => readFileSync(join(root, file), "utf8").split("\n").length;
const reachedLines = [...reached].reduce((n, f) => n + lines(f), 0);
const outsideSrc = [...reached].filter((f) => /^src\/(sample|generate)\//.test(f));

// SQL text in string literals.
const SQL =
  /(["'`])\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|WITH|BEGIN|COMMIT|ROLLBACK|VACUUM|ANALYZE|REPLACE)\s[^"'`]*/g;
function walk(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out = out.concat(walk(path));
    else if (path.endsWith(".ts")) out.push(path);
  }
  return out;
}
const sqlFiles = new Map<string, number>();
for (const file of walk("src")) {
  if (file.startsWith("src/db/")) continue;
  const n = readFileSync(join(root, file), "utf8").match(SQL)?.length ?? 0;
  if (n > 0) sqlFiles.set(file, n);
}

// Test files per source folder: a test file counts for the folder its path mirrors (test/<folder>/<file>.test.ts
// mirrors src/<folder>/<file>.ts, test/tools/<folder>/<file>.test.ts mirrors tools/<folder>/<file>.ts); test/support and test/fixtures
// are not tests.
const testFiles = walk("test").filter((f) => f.endsWith(".test.ts"));
const sourceFolders = new Set(modules.map((m) => folderOf(m.source)));
const perFolder = new Map<string, number>();
for (const file of testFiles) {
  const path = relative("test", file);
  const mirrored = path.startsWith("tools/") ? path : `src/${path}`;
  const folder = path.startsWith("tools/") ? mirrored.split("/").slice(0, 2).join("/") : folderOf(mirrored);
  const rootFile = mirrored.split("/").length === 2;
  const known = rootFile || sourceFolders.has(folder) || folder.startsWith("tools/");
  const key = rootFile ? "src/ (root files)" : known ? folder : `(no such source folder) ${folder}`;
  perFolder.set(key, (perFolder.get(key) ?? 0) + 1);
}

console.log(`root: ${root}`);
console.log(`folder cycles: ${knots.length}${knots.map((k) => `\n  ${k.length} folders: ${k.join(" ")}`).join("")}`);
console.log(
  `reachable from src/index.ts: ${reached.size} files, ${reachedLines} lines; dev tools among them: ${outsideSrc.length}`,
);
console.log(
  `files with SQL text outside src/db/: ${sqlFiles.size} (${[...sqlFiles.values()].reduce((a, b) => a + b, 0)} strings)`,
);
for (const [file, n] of [...sqlFiles].sort()) console.log(`  ${file} ${n}`);
console.log(`test files: ${testFiles.length}`);
for (const [folder, n] of [...perFolder].sort()) console.log(`  ${folder} ${n}`);
