import { expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

test("docs/architecture.md's Scripts section names every script of package.json", async () => {
  const scripts = Object.keys(((await Bun.file(join(ROOT, "package.json")).json()) as { scripts: object }).scripts);
  const doc = await Bun.file(join(ROOT, "docs", "architecture.md")).text();
  const from = doc.indexOf("## Scripts");
  const section = doc.slice(from, doc.indexOf("\n## ", from + 1));
  expect(scripts.filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
});
