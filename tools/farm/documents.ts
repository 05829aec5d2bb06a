import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FarmDocuments } from "./farm";

/** Real capability documents with their sources (../shared/data/real-capabilities/SOURCES.md). */
const REAL_CAPABILITIES = join(import.meta.dir, "../../../shared/data/real-capabilities");
const FIXTURES = join(import.meta.dir, "../../test/fixtures/probe");

const read = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => readFileSync(join(dir, f), "utf8"));

/** A minimal DSTU2 Conformance, for when the real documents are absent. */
const DSTU2 = JSON.stringify({ resourceType: "Conformance", fhirVersion: "1.0.2", status: "active", rest: [] });

/**
 * What the farm's hosts serve: the real documents when they are present (CapabilityStatements
 * and a DSTU2 Conformance as real servers served them), else the repository's test fixtures;
 * `real` says which.
 */
export function farmDocuments(): FarmDocuments & { real: boolean } {
  if (existsSync(join(REAL_CAPABILITIES, "metadata"))) {
    const all = read(join(REAL_CAPABILITIES, "metadata"));
    const statements = all.filter((t) => JSON.parse(t).resourceType === "CapabilityStatement");
    const dstu2 = all.find((t) => JSON.parse(t).resourceType === "Conformance") ?? DSTU2;
    return { metadata: statements, smart: read(join(REAL_CAPABILITIES, "smart")), dstu2, real: true };
  }
  const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");
  return {
    metadata: ["r4-capability.json", "r4b-capability.json", "r5-capability.json"].map(fixture),
    smart: ["smart-patient.json", "smart-provider.json"].map(fixture),
    dstu2: DSTU2,
    real: false,
  };
}
