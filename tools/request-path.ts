/**
 * `bun tools/request-path.ts [<checkout>]`: which files and folders of src/ a request runs through,
 * for the structure figures of docs/architecture.md. It builds the test fixture's app of the
 * checkout (test/support/fixture.ts), answers each request shape a few thousand times under JSC's
 * sampling profiler (bun:jsc `profile`, a sample every microsecond), and counts the source files
 * seen in the sampled stacks, their folders (as structure-report.ts counts them), and reversals:
 * a folder that calls out to another folder and is called back (A → B → A in one stack).
 *
 * Sampling finds what runs long enough to be sampled: the figures are a lower bound, stable
 * within a file or two from run to run; compare two checkouts by the same command.
 */
import { profile } from "bun:jsc";
import { join, relative } from "node:path";
import { parseCli } from "../src/cli/args";

const { positionals, values } = parseCli({
  command: "bun run structure:request-path",
  synopsis: ["[<root>] [--files]"],
  description:
    "The source files and folders each kind of request runs through in the checkout at <root> (default: this one), sampled by the profiler, and where a request's path goes back into a folder it left.",
  options: { files: { type: "boolean" } },
  optionHelp: [["--files", "list every file each request runs through"]],
  allowPositionals: true,
});

const root = positionals[0] ?? join(import.meta.dir, "..");
const { fixtureApp } = (await import(join(root, "test/support/fixture.ts"))) as {
  fixtureApp: (
    env: Record<string, string>,
    clock: undefined,
    log: unknown,
  ) => { app: { handle(request: Request): Promise<Response> } };
};
const { createLogger } = (await import(join(root, "src/logger.ts"))) as {
  createLogger: (level: string, writer: { write(line: string): void; flush(): void }) => unknown;
};
// Request log lines are made as in production and dropped.
const log = createLogger("info", { write() {}, flush() {} });
const { app } = fixtureApp({ RATE_LIMIT_MAX: "1000000", TRUST_PROXY: "true" }, undefined, log);

/** Each shape varies its paging so that every request is answered afresh, not from a cache. */
const SHAPES: Record<string, (i: number) => string> = {
  "JSON list": (i) => `/api/v1/endpoints?state=MA&limit=${1 + (i % 100)}&page=${1 + Math.floor(i / 100)}`,
  "FHIR search": (i) => `/fhir/Endpoint?name=mass&_count=${1 + (i % 100)}&_offset=${Math.floor(i / 100)}`,
};

function folderOf(file: string): string {
  const parts = file.split("/");
  if ((parts[1] === "server" || parts[1] === "pipeline") && parts.length > 3) return parts.slice(0, 3).join("/");
  return parts.length > 2 ? parts.slice(0, 2).join("/") : file;
}

interface Frame {
  sourceURL?: string;
}

const srcRoot = join(root, "src");
for (const [name, url] of Object.entries(SHAPES)) {
  let n = 0;
  const once = async () => {
    const i = n++;
    const headers = { "x-forwarded-for": `10.0.${(i >> 8) & 255}.${i & 255}` };
    await (await app.handle(new Request(`http://localhost${url(i)}`, { headers }))).arrayBuffer();
  };
  for (let i = 0; i < 300; i++) await once();
  const files = new Set<string>();
  const reversals = new Set<string>();
  for (let round = 0; round < 40; round++) {
    const sampled = (await profile(async () => {
      for (let i = 0; i < 200; i++) await once();
    }, 1)) as unknown as { stackTraces: { traces: { frames: Frame[] }[] } };
    for (const trace of sampled.stackTraces.traces) {
      const ours = trace.frames
        .map((f) => f.sourceURL)
        .filter((u): u is string => u?.startsWith(srcRoot) === true)
        .map((u) => `src/${relative(srcRoot, u)}`)
        .reverse(); // outermost first
      for (const f of ours) files.add(f);
      const folders = ours.map(folderOf).filter((f, i, all) => i === 0 || all[i - 1] !== f);
      for (let a = 0; a < folders.length; a++)
        for (let b = a + 2; b < folders.length; b++)
          if (folders[a] === folders[b]) reversals.add(folders.slice(a, b + 1).join(" → "));
    }
  }
  const folders = new Set([...files].map(folderOf));
  console.log(`${name}: ${files.size} files in ${folders.size} folders, ${reversals.size} reversals`);
  console.log(`  folders: ${[...folders].sort().join(", ")}`);
  for (const r of [...reversals].sort()) console.log(`  reversal: ${r}`);
  if (values.files === true) for (const f of [...files].sort()) console.log(`  ${f}`);
}
process.exit(0);
