import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import packageJson from "../../package.json";
import { loadConfig } from "../../src/config";
import { RUNTIME_ENV, runtimeEnvPrefix } from "../../src/runtime-env";
import { fixtureDb } from "../support/fixture";

/**
 * The deployment files cannot run here (no Docker engine, no Fly): they are parsed and their
 * essentials checked, and the commands they hand to a shell are syntax-checked and, for the one
 * machine case, run for real.
 */
const ROOT = join(import.meta.dir, "..", "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

// ---------------------------------------------------------------------------------------------
// A small Dockerfile reader: instructions with continuation lines joined, grouped by stage.

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  image: string;
  name: string | null;
  instructions: Instruction[];
}

function parseDockerfile(text: string): { globalArgs: Map<string, string>; stages: Stage[] } {
  const instructions: Instruction[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (pending === "" && (line === "" || line.startsWith("#"))) continue;
    if (pending !== "" && line.startsWith("#")) continue; // comments inside a continued instruction
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = `${pending}${line}`.trim();
    pending = "";
    const match = /^([A-Za-z]+)\s+([\s\S]*)$/.exec(full);
    if (!match) throw new Error(`not an instruction: ${full}`);
    instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim() });
  }
  if (pending !== "") throw new Error("the Dockerfile ends inside a continued line");

  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!m) throw new Error(`bad FROM: ${instruction.args}`);
      stages.push({ image: m[1]!, name: m[2] ?? null, instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword !== "ARG")
        throw new Error(`only ARG may come before the first FROM, not ${instruction.keyword}`);
      const [name, value = ""] = instruction.args.split("=", 2);
      globalArgs.set(name!, value);
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

const KNOWN_KEYWORDS = new Set([
  "FROM",
  "ARG",
  "ENV",
  "WORKDIR",
  "COPY",
  "ADD",
  "RUN",
  "USER",
  "CMD",
  "ENTRYPOINT",
  "EXPOSE",
  "LABEL",
  "HEALTHCHECK",
  "STOPSIGNAL",
  "VOLUME",
  "SHELL",
  "ONBUILD",
]);

const dockerfileText = read("Dockerfile");
const dockerfile = parseDockerfile(dockerfileText);
const stageByName = (name: string) => dockerfile.stages.find((s) => s.name === name);
const finalStage = dockerfile.stages.at(-1)!;

/** The stage and the stages it is built FROM, nearest first. */
function lineage(stage: Stage): Stage[] {
  const chain = [stage];
  for (let parent = stageByName(stage.image); parent; parent = stageByName(parent.image)) chain.push(parent);
  return chain;
}
function effective(stage: Stage, keyword: string): Instruction | undefined {
  for (const s of lineage(stage)) {
    const found = s.instructions.findLast((i) => i.keyword === keyword);
    if (found) return found;
  }
  return undefined;
}
function copies(stage: Stage): { from: string | null; sources: string[]; dest: string }[] {
  return lineage(stage)
    .flatMap((s) => s.instructions)
    .filter((i) => i.keyword === "COPY")
    .map((i) => {
      const words = i.args.split(/\s+/);
      const flags = words.filter((w) => w.startsWith("--"));
      const paths = words.filter((w) => !w.startsWith("--"));
      const from = flags.find((f) => f.startsWith("--from="))?.slice("--from=".length) ?? null;
      return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
    });
}

// ---------------------------------------------------------------------------------------------
// .dockerignore as Docker reads it: patterns in order, the last one that matches a path or one of
// its parent folders decides, `!` re-includes.

function dockerignored(path: string): boolean {
  const patterns = read(".dockerignore")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const parts = path.split("/");
  const candidates = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
  let excluded = false;
  for (const raw of patterns) {
    const negated = raw.startsWith("!");
    const pattern = (negated ? raw.slice(1) : raw).replace(/^\/+|\/+$/g, "");
    if (candidates.some((c) => new Bun.Glob(pattern).match(c))) excluded = !negated;
  }
  return excluded;
}

// ---------------------------------------------------------------------------------------------
// Commands that Fly and LiteFS split into words themselves (no shell): a shell-words splitter.

function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${command}`);
      word = (word ?? "") + command.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const end = command.indexOf('"', i + 1);
      if (end < 0) throw new Error(`unterminated " in: ${command}`);
      word = (word ?? "") + command.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      if (/[;&|<>]/.test(c)) throw new Error(`unquoted shell operator ${c} would not reach a shell: ${command}`);
      word = (word ?? "") + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** `sh -n`: the script parses as POSIX shell. */
function expectShellSyntax(script: string) {
  const check = Bun.spawnSync(["sh", "-n", "-c", script], { stderr: "pipe" });
  expect({ script, stderr: check.stderr.toString() }).toEqual({ script, stderr: "" });
  expect(check.exitCode).toBe(0);
}
function scriptOf(words: string[]): string {
  const at = words.indexOf("-c");
  expect(words[at - 1]).toBe("sh");
  return words[at + 1]!;
}

const fly = Bun.TOML.parse(read("fly.toml")) as Record<string, any>;
const litefs = Bun.YAML.parse(read("litefs.yml")) as Record<string, any>;
describe("Dockerfile", () => {
  test("every instruction is a Dockerfile instruction and the file parses into named stages", () => {
    for (const stage of dockerfile.stages)
      for (const i of stage.instructions) expect(KNOWN_KEYWORDS.has(i.keyword)).toBe(true);
    expect(dockerfile.stages.map((s) => s.name)).toEqual(["base", "deps", "app", "litefs", "runtime"]);
    for (const stage of dockerfile.stages) {
      const parent = stageByName(stage.image);
      if (parent) expect(dockerfile.stages.indexOf(parent)).toBeLessThan(dockerfile.stages.indexOf(stage));
    }
    for (const { from } of dockerfile.stages.flatMap(copies))
      if (from && !from.includes("/")) expect(stageByName(from)).toBeDefined();
  });

  test("builds on the official Bun image pinned to package.json's bun version", () => {
    const base = dockerfile.stages[0]!.image.replace(
      /\$\{(\w+)\}/g,
      (_, name: string) => dockerfile.globalArgs.get(name) ?? "",
    );
    expect(base).toBe(`oven/bun:${packageJson.dependencies.bun}-slim`);
    for (const stage of dockerfile.stages.slice(1)) expect(stageByName(stage.image) ?? null).not.toBeNull();
  });

  test("the final stage runs as a non-root user and starts src/index.ts", () => {
    const user = effective(finalStage, "USER")?.args;
    expect(user).toBeDefined();
    expect(["root", "0", "0:0"]).not.toContain(user!);
    expect(finalStage.instructions.at(-1)?.keyword).toBe("CMD");
    expect(JSON.parse(effective(finalStage, "CMD")!.args)).toEqual(["bun", "src/index.ts"]);
    expect(`${runtimeEnvPrefix()} ${JSON.parse(effective(finalStage, "CMD")!.args).join(" ")}`).toBe(
      packageJson.scripts.start,
    );
    expect(effective(finalStage, "ENTRYPOINT")).toBeUndefined();
  });

  test("installs production dependencies only, as package-lock.json pins them, and the final image has no dev ones", () => {
    const install = stageByName("deps")!.instructions.find((i) => i.keyword === "RUN")!.args;
    expect(install).toContain("bun install --production --frozen-lockfile");
    expect(install).toContain("--ignore-scripts");
    const deps = copies(stageByName("deps")!).flatMap((c) => c.sources);
    expect(deps.sort()).toEqual(["package-lock.json", "package.json"]);
    const modules = copies(finalStage).filter((c) => c.sources.includes("/app/node_modules"));
    expect(modules).toEqual([{ from: "deps", sources: ["/app/node_modules"], dest: "./node_modules" }]);
    // The final image never runs an install of its own.
    for (const stage of lineage(finalStage))
      for (const i of stage.instructions)
        if (i.keyword === "RUN") expect(i.args).not.toMatch(/\b(bun|npm) (install|ci)\b/);
  });

  test("the final image holds what the runtime needs, from files the build context keeps", () => {
    const fromContext = copies(finalStage).filter((c) => c.from === null);
    const sources = fromContext.flatMap((c) => c.sources);
    expect(sources.sort()).toEqual([
      "db/migrations",
      "db/national",
      "db/sample",
      "db/vendors.json",
      "package.json",
      "src",
    ]);
    for (const source of sources) {
      expect(existsSync(join(ROOT, source))).toBe(true);
      expect({ source, ignored: dockerignored(source) }).toEqual({ source, ignored: false });
    }
    for (const kept of [
      "src/index.ts",
      "db/migrations/0000_init.sql",
      "db/migrations/meta/_journal.json",
      "db/sample/manifest.json",
      "db/national/lists.json.zst",
      "db/national/provenance.json",
      "src/model/zip-places.tsv.gz",
      "package-lock.json",
      "litefs.yml",
    ]) {
      expect({ kept, ignored: dockerignored(kept) }).toEqual({ kept, ignored: false });
    }
    for (const dropped of [
      "node_modules/elysia/package.json",
      "test/index.test.ts",
      ".git/HEAD",
      "db/directory.sqlite",
      "src/x.sqlite-wal",
      "bench/run.ts",
      "test-artifacts/docs-page.png",
      ".env",
    ]) {
      expect({ dropped, ignored: dockerignored(dropped) }).toEqual({ dropped, ignored: true });
    }
  });

  test("the database lives on /data, owned by the app's user; the runtime settings are those of npm start", () => {
    const env = effective(finalStage, "ENV")!.args;
    expect(env).toContain("DATABASE_PATH=/data/directory.sqlite");
    expect(env).toContain("PORT=3000");
    for (const [name, value] of Object.entries(RUNTIME_ENV)) expect(env).toContain(`${name}=${value}`);
    const app = stageByName("app")!;
    const run = app.instructions
      .filter((i) => i.keyword === "RUN")
      .map((i) => i.args)
      .join("\n");
    expect(run).toContain(`chown ${effective(finalStage, "USER")!.args}:`);
    expect(run).toContain("/data");
  });

  test("no cron in the image: the server runs the refresh itself, and `nice` is there for it", () => {
    const text = read("Dockerfile");
    for (const word of ["supercronic", "crontab", "cron "]) expect(text).not.toContain(word);
    expect(JSON.parse(effective(finalStage, "CMD")!.args)).toEqual(["bun", "src/index.ts"]);
    // The scheduler starts the refresh as `nice -n 10 bun src/pipeline/refresh/cli.ts`.
    expect(packageJson.scripts.refresh).toBe("bun src/pipeline/refresh/cli.ts");
    expect(dockerfile.stages[0]!.image).toMatch(/^oven\/bun:\$\{BUN_VERSION\}-slim$/);
  });

  test("the LiteFS target mounts as root with litefs.yml and copies the litefs binary", () => {
    const stage = stageByName("litefs")!;
    expect(stage.image).toBe("app");
    expect(effective(stage, "USER")?.args).toBe("root");
    expect(JSON.parse(effective(stage, "CMD")!.args)).toEqual(["litefs", "mount"]);
    expect(copies(stage)).toContainEqual({ from: null, sources: ["litefs.yml"], dest: "/etc/litefs.yml" });
    expect(copies(stage)).toContainEqual({
      from: "flyio/litefs:0.5",
      sources: ["/usr/local/bin/litefs"],
      dest: "/usr/local/bin/litefs",
    });
    expect(stage.instructions.find((i) => i.keyword === "RUN")?.args).toContain("fuse3");
  });
});

describe("fly.toml", () => {
  test("an HTTP service on internal port 3000 checked on /health", () => {
    expect(fly.http_service.internal_port).toBe(3000);
    expect(fly.env.PORT).toBe(String(fly.http_service.internal_port));
    expect(fly.http_service.checks).toHaveLength(1);
    expect(fly.http_service.checks[0]).toMatchObject({ method: "GET", path: "/health" });
    expect(fly.http_service.force_https).toBe(true);
    expect(fly.kill_signal).toBe("SIGTERM");
    expect(fly.build.dockerfile).toBe("Dockerfile");
  });

  test("the database on a volume mounted at /data", () => {
    expect(fly.mounts).toHaveLength(1);
    expect(fly.mounts[0]).toMatchObject({ destination: "/data", processes: ["app"] });
    expect(fly.env.DATABASE_PATH).toBe("/data/directory.sqlite");
  });

  test("TRUST_PROXY=fly and Prometheus scraping of /metrics", () => {
    expect(fly.env.TRUST_PROXY).toBe("fly");
    expect(fly.metrics).toMatchObject({ port: 3000, path: "/metrics" });
    // Secrets are never in the file.
    expect(Object.keys(fly.env)).not.toContain("REDIS_URL");
  });

  test("the refresh's outage rule: canaries and thresholds the configuration accepts", () => {
    const { probeOutage } = loadConfig(fly.env);
    expect(probeOutage.canaryUrls.length).toBeGreaterThan(0);
    for (const url of probeOutage.canaryUrls) expect(new URL(url).protocol).toBe("https:");
    expect(probeOutage).toMatchObject({ windowMs: 60_000, minHosts: 20, failedShare: 0.5, previouslyUpShare: 0.5 });
  });

  test("the app process is the API alone, which schedules the refresh: on, daily", () => {
    expect(Object.keys(fly.processes)).toEqual(["app"]);
    expect(shellWords(fly.processes.app)).toEqual(["bun", "src/index.ts"]);
    expect(loadConfig(fly.env).refresh).toMatchObject({ enabled: true, everyMs: 86_400_000 });
    expect(read("fly.toml")).not.toContain("supercronic");
  });
});

describe("litefs.yml", () => {
  test("FUSE mount, data on the Fly volume, Consul lease limited to the primary region", () => {
    expect(litefs.fuse).toEqual({ dir: "/litefs", "allow-other": true });
    expect(litefs.data.dir.startsWith(`${fly.mounts[0].destination}/`)).toBe(true);
    expect(litefs.lease).toMatchObject({ type: "consul", promote: true, consul: { url: "${FLY_CONSUL_URL}" } });
    expect(litefs.lease.candidate).toBe("${FLY_REGION == PRIMARY_REGION}");
  });

  test("exec starts the app as the unprivileged user on the FUSE mount, after a first-start import on the primary", () => {
    const exec = litefs.exec as { cmd: string; "if-candidate"?: boolean }[];
    expect(exec).toHaveLength(2);
    const [seed, app] = exec;
    expect(seed!["if-candidate"]).toBe(true);
    const seedScript = scriptOf(shellWords(seed!.cmd));
    expectShellSyntax(seedScript);
    expect(seedScript).toContain("bun run db:national");
    expect(packageJson.scripts["db:national"]).toBe("bun src/pipeline/national/build-cli.ts");
    expect(seedScript).toContain("litefs import -name directory.sqlite");
    expect(seedScript.startsWith("test -e /litefs/directory.sqlite ||")).toBe(true);

    expect(app!["if-candidate"]).toBeUndefined();
    const words = shellWords(app!.cmd);
    expect(words.slice(0, 4)).toEqual(["setpriv", "--reuid=bun", "--regid=bun", "--init-groups"]);
    expect(words).toContain(`DATABASE_PATH=${litefs.fuse.dir}/directory.sqlite`);
    // The same program as the one-machine process; no cron beside it.
    expect(words.slice(-2)).toEqual(shellWords(fly.processes.app));
    expect(read("litefs.yml")).not.toContain("supercronic");
  });

  test("LiteFS expands $VARS in the whole file: only Fly's own variables appear", () => {
    const names = [...read("litefs.yml").matchAll(/\$\{?([A-Z_]+)/g)].map((m) => m[1]);
    expect(new Set(names)).toEqual(new Set(["FLY_REGION", "FLY_ALLOC_ID", "FLY_APP_NAME", "FLY_CONSUL_URL"]));
  });
});

describe("the one-machine process command, run for real", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("starts the API, serves, and exits 0 on SIGTERM", async () => {
    const bin = mkdtempSync(join(tmpdir(), "bun-as-in-the-image-"));
    dirs.push(bin);
    // `bun` as in the image, whatever this Bun's executable is called (node_modules ships bun.exe).
    symlinkSync(process.execPath, join(bin, "bun"));
    const db = fixtureDb();
    db.sqlite.close();
    dirs.push(dirname(db.path));

    const child = Bun.spawn(shellWords(fly.processes.app), {
      cwd: ROOT,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        ...fly.env,
        // fly.toml turns the schedule on; here no refresh may reach the network.
        REFRESH: "off",
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_PATH: db.path,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      let output = "";
      const reader = child.stdout.getReader();
      const deadline = Date.now() + 20_000;
      let url: string | undefined;
      while (!url && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        output += new TextDecoder().decode(value);
        url = /"url":"(http:\/\/[^"]+)"/.exec(output)?.[1];
      }
      if (!url) throw new Error(`the API did not start: ${output}${await new Response(child.stderr).text()}`);
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      reader.releaseLock();
      // The API is the process Fly signals.
      child.kill("SIGTERM");
      expect(await child.exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
  }, 30_000);
});
