import { Database } from "bun:sqlite";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { loadConfig } from "../../src/config";
import { buildDatabaseOnce } from "../../src/db/build-file";
import { readDatasetVersion } from "../../src/db/dataset-meta";
import { type AuditReport, auditDatabase } from "../../src/pipeline/national/audit";
import { buildNationalDatabase, type NationalBuildResult } from "../../src/pipeline/national/build";
import { type GenerateOptions, generateDataset } from "../../tools/generate/generator";
import { buildSampleDatabase } from "../../tools/sample/build";

/**
 * Expensive databases (the national directory, the demo, generated datasets) built once and shared
 * by every test file of a run, and by later runs: each is built into a cache folder under the
 * system's temporary folder, named by a hash of what it is built from (the modules the builds run,
 * the data of src/, db/, tools/generate/ and tools/sample/, and the build's options), and copied
 * to the path a test asks for. A test gets a
 * file of its own that it may write; the cached one is only ever read. Test processes running at
 * once build a missing one once: the others wait for it (buildDatabaseOnce's lock). Cached files
 * unused for an hour are removed (each is tens of megabytes).
 */
const CACHE = join(tmpdir(), "endpoint-directory-test-builds");
const ROOT = join(import.meta.dir, "..", "..");
const UNUSED_MS = 3600_000;

/** The modules the builds start from: this file (which imports the builders) and the index build it runs as a child. */
const BUILD_ENTRIES = ["test/support/built-once.ts", "src/directory/build-cli.ts"];

/** A quoted path to a TypeScript file (a Worker's or a child process's script, named relative to its module). */
const SCRIPT_PATH = /["'`]((?:\.{1,2}\/)?[\w./-]+\.ts)["'`]/g;

/**
 * The repository's TypeScript files the builds run: BUILD_ENTRIES and everything they import,
 * statically or dynamically, and the scripts they name to start as a Worker or a child process,
 * transitively. A change elsewhere (the server's routes, the search page, a CLI no build runs)
 * leaves every build current.
 */
export function buildModules(): string[] {
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const seen = new Set<string>();
  const pending = BUILD_ENTRIES.map((file) => join(ROOT, file));
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(file, "utf8");
    const dir = dirname(file);
    const named = [...code.matchAll(SCRIPT_PATH)]
      .map((match) => join(dir, match[1]!))
      .filter((path) => existsSync(path));
    for (const { path } of transpiler.scanImports(code)) {
      if (!path.startsWith(".")) continue; // a package or a built-in module
      named.push(Bun.resolveSync(path, dir));
    }
    for (const path of named)
      if (path.startsWith(`${ROOT}/`) && !path.includes("/node_modules/") && /\.tsx?$/.test(path)) pending.push(path);
  }
  return [...seen].map((file) => relative(ROOT, file)).sort();
}

let inputsHash: string | undefined;
/**
 * A hash of every file the builds read: the modules they run (buildModules), the data under src/
 * (every file there that is not TypeScript), and everything under db/, tools/generate/ and
 * tools/sample/.
 */
function hashOfInputs(): string {
  if (inputsHash) return inputsHash;
  const hasher = new Bun.CryptoHasher("sha256");
  const files = new Set(buildModules());
  // Hidden folders are other tests' scratch space (test/repo/sql-lint.test.ts writes one under
  // src/db while it runs): never read by a build, and gone at any moment.
  for (const folder of ["src", "db", "tools/generate", "tools/sample"])
    for (const file of new Bun.Glob(`${folder}/**/*`).scanSync({ cwd: ROOT, dot: true }))
      if (
        !/\.sqlite(-wal|-shm|-journal)?$|\.build-lock$|(^|\/)\.[^/]+\//.test(file) &&
        !(folder === "src" && /\.tsx?$/.test(file))
      )
        files.add(file);
  for (const file of [...files].sort())
    hasher
      .update(`${file}\0`)
      .update(readFileSync(join(ROOT, file)))
      .update("\0");
  inputsHash = hasher.digest("hex");
  return inputsHash;
}

function removeUnused(): void {
  const now = Date.now();
  for (const name of readdirSync(CACHE)) {
    const path = join(CACHE, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat && now - stat.mtimeMs > UNUSED_MS) rmSync(path, { recursive: true, force: true });
  }
}

/** The cache's name for what is built or computed for `name` from the current inputs. */
const keyOf = (name: string) =>
  new Bun.CryptoHasher("sha256").update(`${hashOfInputs()}\n${name}`).digest("hex").slice(0, 24);

/**
 * The database `build` writes at the path it is given, built once for `name` (which names the
 * build and its options) and the current inputs, copied to `out`; what `build` returned (as JSON).
 */
async function builtOnce<T>(name: string, out: string, build: (path: string) => T | Promise<T>): Promise<T> {
  mkdirSync(CACHE, { recursive: true });
  const key = keyOf(name);
  const cached = join(CACHE, `${key}.sqlite`);
  const result = `${cached}.json`;
  await buildDatabaseOnce(cached, async () => {
    removeUnused();
    const staging = join(CACHE, `${key}.${process.pid}.staging.sqlite`);
    rmSync(staging, { force: true });
    const value = await build(staging);
    await Bun.write(result, JSON.stringify(value ?? null));
    // One self-contained file: what `build` left beside it is not part of the database.
    for (const suffix of ["-wal", "-shm", "-journal"]) rmSync(`${staging}${suffix}`, { force: true });
    renameSync(staging, cached);
  });
  const now = new Date();
  utimesSync(cached, now, now);
  if (existsSync(result)) utimesSync(result, now, now);
  mkdirSync(join(out, ".."), { recursive: true });
  copyFileSync(cached, out);
  return existsSync(result) ? (JSON.parse(readFileSync(result, "utf8")) as T) : (undefined as T);
}

/**
 * What `compute` returns (as JSON), computed once for `name` and the current inputs and kept in
 * the cache folder beside the builds: for results as costly as a build, read from a build or made
 * by the code the builds run. `name` says whatever else the result depends on (a query's text).
 */
export async function computedOnce<T>(name: string, compute: () => T | Promise<T>): Promise<T> {
  mkdirSync(CACHE, { recursive: true });
  const cached = join(CACHE, `${keyOf(name)}.json`);
  await buildDatabaseOnce(cached, async () => {
    removeUnused();
    const staging = `${cached}.${process.pid}.staging`;
    await Bun.write(staging, JSON.stringify(await compute()));
    renameSync(staging, cached);
  });
  const now = new Date();
  utimesSync(cached, now, now);
  return JSON.parse(readFileSync(cached, "utf8")) as T;
}

/**
 * What a server's first start adds to a database too large to index in its own process: the
 * directory index its child process builds (src/directory/build-cli.ts, run here the same way),
 * kept in the database with the figures of the dataset's day. A server on a copy then reads that
 * copy instead of building it again (a CPU second or more each time); what it serves is the same.
 */
function indexAsAFirstStartDoes(path: string): void {
  // In WAL mode, as a server keeps it; then one self-contained file again, as the build left it.
  const journal = (mode: string) => {
    const sqlite = new Database(path);
    sqlite.exec(`PRAGMA journal_mode = ${mode}`);
    const version = readDatasetVersion(sqlite);
    sqlite.close();
    return version;
  };
  const version = journal("WAL");
  const file = `${path}.first-start-index.bin`;
  const child = Bun.spawnSync(
    [process.execPath, join(ROOT, "src/directory/build-cli.ts"), path, file, String(version)],
    {
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  rmSync(file, { force: true });
  if (child.exitCode !== 0) throw new Error(`the index build failed (${child.exitCode}): ${child.stderr.toString()}`);
  journal("DELETE");
}

/** Entries from which a server builds its index in a child process (INDEX_IN_PROCESS_BELOW's default). */
const INDEXED_APART_FROM = loadConfig({}).indexInProcessBelow;

/** What buildNationalDatabase returned, and what else it left in the folder of the file it built. */
export interface NationalBuild extends NationalBuildResult {
  /** The files beside the database named after it (its temporary file, a lock, a WAL): none when it cleans up. */
  leftBeside: string[];
}

/**
 * The national directory as buildNationalDatabase builds it from the bundled lists, with the index
 * its first start adds (indexAsAFirstStartDoes), at `path`.
 */
export function nationalDatabase(path: string): Promise<NationalBuild> {
  return builtOnce("national", path, async (at) => {
    const result = await buildNationalDatabase(at);
    const name = basename(at);
    const leftBeside = readdirSync(dirname(at)).filter((file) => file !== name && file.includes(name));
    indexAsAFirstStartDoes(at);
    return { ...result, leftBeside };
  });
}

/**
 * auditDatabase's report (what `data:audit` prints) on the national directory as
 * nationalDatabase builds it: the same for every untouched copy, so computed once (about two CPU
 * seconds) rather than by each test that reads it.
 */
export function nationalAudit(): Promise<AuditReport> {
  return computedOnce("national audit", async () => {
    const copy = join(CACHE, `national-audit.${process.pid}.sqlite`);
    await nationalDatabase(copy);
    const sqlite = new Database(copy, { readonly: true });
    try {
      return auditDatabase(sqlite);
    } finally {
      sqlite.close();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${copy}${suffix}`, { force: true });
    }
  });
}

/** The demo dataset as `bun run data:sample` builds it, at `path`. */
export function sampleDatabase(path: string): Promise<void> {
  return builtOnce("sample", path, async (at) => {
    await buildSampleDatabase(at);
  });
}

/**
 * A generated dataset as generateDataset writes it with `options` (with the index a first start
 * adds when it has that many entries), at `options.out`.
 */
export async function generatedDatabase(options: GenerateOptions): Promise<void> {
  const { out, log: _log, ...rest } = options;
  await builtOnce(`generated ${JSON.stringify(rest)}`, out, async (at) => {
    generateDataset({ ...rest, out: at });
    if (rest.endpoints >= INDEXED_APART_FROM) indexAsAFirstStartDoes(at);
  });
}
