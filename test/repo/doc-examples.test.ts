import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { buildSampleDatabase } from "../../tools/sample/build";
import { createTestApp } from "../support/app";

/**
 * The `$ curl <url>` examples of the README ("Outputs below are real, from the demo dataset"),
 * asked of a real server on the demo dataset (`data:sample`, built here) and compared with what
 * it answers. A whole JSON example
 * must equal the answer; one cut with `…` must hold each of its uncut `"key":value` pairs; a
 * CSV example must have the answer's header and rows. So an example that drifts (a count, a
 * field added to the records) fails here until the docs are updated from a run. Values that
 * differ from run to run (response times) are shown as `…`.
 */
const ROOT = join(import.meta.dir, "..", "..");
const DOCUMENTS = ["README.md"];
const ORIGIN = "http://localhost:3000";

interface Example {
  document: string;
  line: number;
  url: string;
  output: string[];
}

/** Every `$ curl <url>` in a sh block (the URL alone, quoted or not), with the lines it shows. */
function examplesOf(document: string, text: string): Example[] {
  const examples: Example[] = [];
  let inBlock = false;
  let current: Example | undefined;
  text.split("\n").forEach((line, index) => {
    if (line.startsWith("```")) {
      inBlock = line === "```sh";
      current = undefined;
      return;
    }
    if (!inBlock) return;
    const command = /^\$ curl '?(http:\/\/localhost:3000[^' ]*)'?$/.exec(line);
    if (command) {
      current = { document, line: index + 1, url: command[1]!, output: [] };
      examples.push(current);
    } else if (line.startsWith("$ ")) current = undefined;
    else if (current !== undefined && line !== "") current.output.push(line);
  });
  return examples.filter((example) => example.output.length > 0);
}

/** The `"key":value` pairs of a JSON text whose value is a whole scalar (no `…` in it). */
const scalarPairs = (text: string) =>
  [...text.matchAll(/"[^"\\]+":(?:"(?:[^"\\…]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)(?=[,}\]])/g)].map(
    (match) => match[0],
  );

let dir: string;
let base: string;
let app: ReturnType<typeof createTestApp>;
const examples: Example[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "doc-examples-"));
  const path = join(dir, "directory.sqlite");
  await buildSampleDatabase(path);
  app = createTestApp({ db: openDatabase(path), config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${app.server!.port}`;
  for (const document of DOCUMENTS) examples.push(...examplesOf(document, await Bun.file(join(ROOT, document)).text()));
}, 120_000);
afterAll(() => {
  app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the docs' curl examples are what the demo dataset answers", () => {
  test("every example, JSON or CSV", async () => {
    expect(examples.length).toBeGreaterThanOrEqual(10);
    const drifted: string[] = [];
    for (const example of examples) {
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
