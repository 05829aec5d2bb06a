import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { createTestApp } from "../support/app";
import { generatedDatabase, nationalDatabase, sampleDatabase } from "../support/built-once";

/**
 * The `$ curl <url>` examples of the README and docs/api.md ("Outputs below are real"), asked of
 * a real server and compared with what it answers: on the demo dataset (`data:sample`, built
 * here); for a block right after the line `<!-- example: national -->`, on the national directory
 * (`db:national`, built here); after `<!-- example: data:generate-1m --endpoints <n> … -->`, on
 * the dataset that command generates (the same on every run, as the demo is). A whole JSON
 * example must equal the answer; one cut with `…` must hold each of its uncut `"key": value`
 * pairs (at least one); a CSV example must have the answer's header and rows. So an example that drifts (a count, a field added to the
 * records) fails here until the docs are updated from a run. Values that differ from run to run
 * (response times) are shown as `…`.
 */
const ROOT = join(import.meta.dir, "..", "..");
const DOCUMENTS = ["README.md", "docs/api.md"];
const ORIGIN = "http://localhost:3000";
/** "demo", "national", or the `data:generate-1m` options a generated dataset is made with. */
type Dataset = string;
const MARK = /^<!-- example: (national|data:generate-1m(?: --[a-z-]+ \d+)+) -->$/;

interface Example {
  document: string;
  line: number;
  dataset: Dataset;
  url: string;
  output: string[];
}

/** Every `$ curl <url>` in a sh block (the URL alone, quoted or not, maybe indented), with the lines it shows. */
function examplesOf(document: string, text: string): Example[] {
  const examples: Example[] = [];
  let block: { dataset: Dataset; indent: string } | undefined;
  let current: Example | undefined;
  let previous = "";
  text.split("\n").forEach((raw, index) => {
    const line = raw.trimStart();
    if (line.startsWith("```")) {
      const opens = block === undefined && line === "```sh";
      block = opens
        ? { dataset: MARK.exec(previous)?.[1] ?? "demo", indent: raw.slice(0, raw.length - line.length) }
        : undefined;
      current = undefined;
    } else if (block !== undefined) {
      const shown = raw.slice(block.indent.length);
      const command = /^\$ curl '?(http:\/\/localhost:3000[^' ]*)'?$/.exec(shown);
      if (command) {
        current = { document, line: index + 1, dataset: block.dataset, url: command[1]!, output: [] };
        examples.push(current);
      } else if (shown.startsWith("$ ")) current = undefined;
      else if (current !== undefined && shown !== "") current.output.push(shown);
    }
    if (line !== "") previous = line;
  });
  return examples.filter((example) => example.output.length > 0);
}

/** The `"key":value` pairs of a JSON text whose value is a whole scalar (no `…` in it), written compactly. */
const scalarPairs = (text: string) =>
  [...text.matchAll(/("[^"\\]+")\s*:\s*("(?:[^"\\…]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)(?=\s*[,}\]])/g)].map(
    (match) => `${match[1]}:${match[2]}`,
  );

let dir: string;
const servers = new Map<Dataset, { app: ReturnType<typeof createTestApp>; base: string }>();
const examples: Example[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "doc-examples-"));
  for (const document of DOCUMENTS) examples.push(...examplesOf(document, await Bun.file(join(ROOT, document)).text()));
  for (const dataset of new Set(examples.map((example) => example.dataset))) {
    const path = join(dir, `${servers.size}.sqlite`);
    if (dataset === "demo") await sampleDatabase(path);
    else if (dataset === "national") await nationalDatabase(path);
    else {
      const option = (name: string) => Number(new RegExp(`--${name} (\\d+)`).exec(dataset)?.[1] ?? 0);
      await generatedDatabase({
        out: path,
        endpoints: option("endpoints"),
        historyDays: option("history-days"),
        changeDays: option("change-days"),
        seed: option("seed") || undefined,
      });
    }
    const app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    app.listen({ port: 0, hostname: "127.0.0.1" });
    servers.set(dataset, { app, base: `http://127.0.0.1:${app.server!.port}` });
  }
}, 180_000);
afterAll(() => {
  for (const { app } of servers.values()) app.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the docs' curl examples are what a server on their dataset answers", () => {
  test("every example, JSON or CSV", async () => {
    for (const document of DOCUMENTS)
      expect(examples.filter((example) => example.document === document).length).toBeGreaterThanOrEqual(7);
    expect(new Set(examples.map((example) => example.dataset)).size).toBe(3);
    const drifted: string[] = [];
    for (const example of examples) {
      const { base } = servers.get(example.dataset)!;
      const response = await fetch(example.url.replace(ORIGIN, base));
      const answer = (await response.text()).replaceAll(base, ORIGIN);
      const where = `${example.document}:${example.line} ${example.url.slice(ORIGIN.length)}`;
      const shown = example.output.join("\n");
      if (shown.startsWith("{")) {
        if (!shown.includes("…")) {
          // One answer per example line (a block may show several commands' answers).
          if (JSON.stringify(JSON.parse(shown)) !== JSON.stringify(JSON.parse(answer)))
            drifted.push(`${where}: the answer is ${answer}`);
          continue;
        }
        // Compact, as the examples are: the raw documents a capabilities answer carries keep their own spacing.
        const compact = JSON.stringify(JSON.parse(answer));
        if (scalarPairs(shown).length === 0) drifted.push(`${where}: a cut example with no whole value to check`);
        for (const pair of scalarPairs(shown))
          if (!compact.includes(pair)) drifted.push(`${where}: ${pair} is not in the answer`);
        continue;
      }
      const rows = answer.split(/\r?\n/);
      if (example.output[0] !== rows[0]) drifted.push(`${where}: the header is ${rows[0]}`);
      for (const row of example.output.slice(1))
        if (!row.includes("…") && !rows.includes(row)) drifted.push(`${where}: no row ${row}`);
    }
    expect(drifted).toEqual([]);
  }, 60_000);
});
