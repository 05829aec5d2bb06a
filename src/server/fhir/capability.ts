import type { Static } from "@sinclair/typebox";
import { FHIR_VERSION_EXTENSION } from "../export/formats/fhir";
import type { CapabilityStatement, SearchParameter } from "./schemas";
import {
  DEFAULT_COUNT,
  INCLUDES,
  MAX_COUNT,
  RESOURCE_TYPES,
  type ResourceType,
  SEARCH_PARAMETERS,
} from "./search-params";

/** Search parameters every type takes, beside its own (src/server/fhir/search-params.ts). */
const RESULT_PARAMETERS = [
  {
    name: "_count",
    type: "number",
    documentation: `Page size: default ${DEFAULT_COUNT}, at most ${MAX_COUNT} (larger values are lowered to it); 0 returns only the total.`,
  },
  {
    name: "_total",
    type: "token",
    documentation: "none leaves out Bundle.total; estimate and accurate give the exact total.",
  },
  {
    name: "_summary",
    type: "token",
    documentation: "count: only the total; false: the whole resources (the default).",
  },
];

/** The canonical URL of a search parameter: HL7's, or our own SearchParameter resource's. */
const definitionOf = (base: string, type: ResourceType, name: string) => {
  const ours = SEARCH_PARAMETERS[type][name]!.ours;
  if (ours !== undefined) return `${base}/SearchParameter/${ours}`;
  // FHIR's parameters of every resource (`_id`, `_lastUpdated`) are defined once, on Resource.
  return `http://hl7.org/fhir/SearchParameter/${name.startsWith("_") ? `Resource-${name.slice(1)}` : `${type}-${name}`}`;
};

/** The CapabilityStatement of `/fhir/metadata`: every interaction, parameter, include and revinclude served. */
export function capabilityStatement(
  base: string,
  software: { name: string; version: string },
  date: string,
): Static<typeof CapabilityStatement> {
  return {
    resourceType: "CapabilityStatement",
    status: "active",
    date,
    publisher: software.name,
    kind: "instance",
    software,
    implementation: { description: "The Endpoint Directory as FHIR R4 (read-only)", url: base },
    fhirVersion: "4.0.1",
    format: ["json", "application/fhir+json"],
    rest: [
      {
        mode: "server",
        documentation:
          "Read-only. Paging links carry _count, _offset and _snapshot (the dataset version); a link made before a refresh answers 410 with an OperationOutcome.",
        resource: RESOURCE_TYPES.map((type) => ({
          type,
          interaction: [{ code: "read" }, { code: "search-type" }],
          searchInclude: INCLUDES[type].include,
          ...(INCLUDES[type].revinclude.length === 0 ? {} : { searchRevInclude: INCLUDES[type].revinclude }),
          searchParam: Object.entries(SEARCH_PARAMETERS[type]).map(([name, parameter]) => ({
            name,
            definition: definitionOf(base, type, name),
            type: parameter.type,
            documentation: parameter.documentation,
          })),
        })),
        searchParam: RESULT_PARAMETERS,
      },
    ],
  };
}

/** Our own SearchParameter resources, by id (read at `/fhir/SearchParameter/<id>`). */
export function ownSearchParameter(base: string, id: string): Static<typeof SearchParameter> | null {
  for (const type of RESOURCE_TYPES)
    for (const [code, parameter] of Object.entries(SEARCH_PARAMETERS[type]))
      if (parameter.ours === id)
        return {
          resourceType: "SearchParameter",
          id,
          url: `${base}/SearchParameter/${id}`,
          name: code,
          status: "active",
          description: parameter.documentation,
          code,
          base: [type],
          type: parameter.type,
          ...(parameter.derived
            ? {}
            : {
                expression:
                  code === "fhir-version" ? `${type}.extension('${FHIR_VERSION_EXTENSION}').value` : `${type}.${code}`,
              }),
          ...(parameter.type === "string" ? { modifier: ["exact", "contains"] } : {}),
        };
  return null;
}
