import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FarmDocuments } from "./farm";

/**
 * Real capability documents, copied into the repository with their sources
 * (test/fixtures/real/real-capabilities/SOURCES.md).
 */
const REAL_CAPABILITIES = join(import.meta.dir, "../../test/fixtures/real/real-capabilities");

const read = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => readFileSync(join(dir, f), "utf8"));

/**
 * What the farm's hosts serve: real documents, as real servers served them (their
 * CapabilityStatements, SMART configurations and a DSTU2 Conformance).
 */
export function farmDocuments(): FarmDocuments {
  const all = read(join(REAL_CAPABILITIES, "metadata"));
  const statements = all.filter((t) => JSON.parse(t).resourceType === "CapabilityStatement");
  const dstu2 = all.find((t) => JSON.parse(t).resourceType === "Conformance");
  if (!dstu2) throw new Error(`${REAL_CAPABILITIES}/metadata holds no DSTU2 Conformance`);
  return { metadata: statements, smart: read(join(REAL_CAPABILITIES, "smart")), dstu2 };
}
