import { t } from "elysia";
import { DEFAULT_COUNT, INCLUDES, MAX_COUNT, type ResourceType, SEARCH_PARAMETERS } from "./search-params";

const Resource = (description: string, example: Record<string, unknown>) =>
  t.Object(
    { resourceType: t.String(), id: t.Optional(t.String()) },
    { additionalProperties: true, description, examples: [example] },
  );

const ENDPOINT_EXAMPLE = {
  resourceType: "Endpoint",
  id: "536e0e0884148050bc026e5524449abd886ac72062eec8db25a12ab87d42f038",
  status: "active",
  connectionType: { system: "http://terminology.hl7.org/CodeSystem/endpoint-connection-type", code: "hl7-fhir-rest" },
  payloadType: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/endpoint-payload-type", code: "any" }] }],
  managingOrganization: { reference: "Organization/developer-epic" },
  address: "https://mychart.stmaryshospital.com/FHIR/api/FHIR/R4",
};

export const FhirResource = Resource("A FHIR R4 resource (application/fhir+json; fhirVersion=4.0).", ENDPOINT_EXAMPLE);
export const SearchsetBundle = t.Object(
  {
    resourceType: t.Literal("Bundle"),
    type: t.Literal("searchset"),
    total: t.Optional(t.Integer()),
    link: t.Array(t.Object({ relation: t.String(), url: t.String() })),
    entry: t.Optional(
      t.Array(
        t.Object({
          fullUrl: t.String(),
          resource: FhirResource,
          search: t.Object({ mode: t.Union([t.Literal("match"), t.Literal("include")]) }),
        }),
      ),
    ),
  },
  {
    description: "A FHIR R4 searchset Bundle; links and fullUrls are absolute.",
    examples: [
      {
        resourceType: "Bundle",
        type: "searchset",
        total: 1,
        link: [{ relation: "self", url: "http://localhost:3000/fhir/Endpoint?_count=20" }],
        entry: [
          {
            fullUrl: `http://localhost:3000/fhir/Endpoint/${ENDPOINT_EXAMPLE.id}`,
            resource: ENDPOINT_EXAMPLE,
            search: { mode: "match" },
          },
        ],
      },
    ],
  },
);
export const OperationOutcome = Resource(
  "A FHIR OperationOutcome: issue[0].code (invalid, not-supported, not-found, expired, too-costly, login, throttled, exception) and diagnostics say what went wrong.",
  {
    resourceType: "OperationOutcome",
    issue: [{ severity: "error", code: "not-found", diagnostics: 'No Endpoint has the id "0"' }],
  },
);

export const ReadParams = t.Object({ id: t.String({ description: "The resource id." }) });
const TYPE = t.String({ description: "A resource type this server does not serve." });
export const TypeParams = t.Object({ type: TYPE });
export const TypeIdParams = t.Object({ type: TYPE, id: t.String() });

const optionalText = (description: string) => t.Optional(t.String({ description }));

/** The query of a search: its own parameters (src/server/fhir/search-params.ts) and the result parameters; others are ignored. */
export const searchQuery = (type: ResourceType) =>
  t.Object(
    {
      ...Object.fromEntries(
        Object.entries(SEARCH_PARAMETERS[type]).map(([name, parameter]) => [
          name,
          optionalText(parameter.documentation),
        ]),
      ),
      _include: optionalText(`Supported: ${INCLUDES[type].include.join(", ")}.`),
      ...(INCLUDES[type].revinclude.length === 0
        ? {}
        : { _revinclude: optionalText(`Supported: ${INCLUDES[type].revinclude.join(", ")}.`) }),
      _count: optionalText(`Page size: default ${DEFAULT_COUNT}, at most ${MAX_COUNT}; 0: only the total.`),
      _total: optionalText("none, estimate or accurate (both exact)."),
      _summary: optionalText("count or false."),
      _format: optionalText("json or application/fhir+json (anything else: 406)."),
      _offset: optionalText("Set by page links: the position of the page's first match."),
      _snapshot: optionalText("Set by page links: the dataset version they were made for (another: 410)."),
    },
    { additionalProperties: true },
  );

export const FormatQuery = t.Object(
  { _format: optionalText("json or application/fhir+json (anything else: 406).") },
  { additionalProperties: true },
);

export const FormBody = t.Record(t.String(), t.Union([t.String(), t.Array(t.String())]), {
  description:
    "Search parameters as an application/x-www-form-urlencoded body, combined with those of the URL (a name given twice is two parameters).",
});
