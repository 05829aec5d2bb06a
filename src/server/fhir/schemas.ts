import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { FhirEndpointSchema, FhirOrganizationSchema } from "../export/schemas";
import { DOCUMENTED_AS } from "../http/schemas";
import { DEFAULT_COUNT, INCLUDES, MAX_COUNT, type ResourceType, SEARCH_PARAMETERS } from "./search-params";

const Meta = t.Object(
  { lastUpdated: t.String({ format: "date-time" }) },
  { description: "When a served field of the resource's entries last changed (`_lastUpdated` searches it)." },
);

const ENDPOINT_EXAMPLE = {
  resourceType: "Endpoint",
  id: "536e0e0884148050bc026e5524449abd886ac72062eec8db25a12ab87d42f038",
  meta: { lastUpdated: "2026-11-03T04:00:00.000Z" },
  status: "active",
  connectionType: { system: "http://terminology.hl7.org/CodeSystem/endpoint-connection-type", code: "hl7-fhir-rest" },
  payloadType: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/endpoint-payload-type", code: "any" }] }],
  managingOrganization: { reference: "Organization/developer-epic", display: "Epic" },
  address: "https://mychart.stmaryshospital.com/FHIR/api/FHIR/R4",
};

/**
 * An Endpoint as /fhir serves it: the export's Endpoint, with its `meta.lastUpdated` and its
 * developer's name as `managingOrganization.display`.
 */
export const FhirApiEndpoint = t.Object(
  {
    ...FhirEndpointSchema.properties,
    meta: Meta,
    managingOrganization: t.Optional(
      t.Object(
        { reference: t.String(), display: t.String() },
        { description: "The developer (EHR vendor): `Organization/developer-<vendorId>` and its name." },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: "A FHIR R4 Endpoint: one per distinct listed URL.",
    examples: [ENDPOINT_EXAMPLE],
  },
);
/** An Organization as /fhir serves it: the export's Organization, with its `meta.lastUpdated` (a developer's when known). */
export const FhirApiOrganization = t.Object(
  { ...FhirOrganizationSchema.properties, meta: t.Optional(Meta) },
  {
    additionalProperties: false,
    description: "A FHIR R4 Organization: a developer (EHR vendor) or an organization of a developer.",
    examples: [
      {
        resourceType: "Organization",
        id: "developer-epic",
        meta: { lastUpdated: "2026-11-03T04:00:00.000Z" },
        name: "Epic",
      },
    ],
  },
);

export const SearchsetBundle = t.Object(
  {
    resourceType: t.Literal("Bundle"),
    type: t.Literal("searchset"),
    total: t.Optional(Type.Integer({ minimum: 0 })),
    link: t.Array(t.Object({ relation: t.String(), url: t.String() })),
    entry: t.Optional(
      t.Array(
        t.Object({
          fullUrl: t.String(),
          resource: t.Union([FhirApiEndpoint, FhirApiOrganization]),
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

export const OperationOutcome = t.Object(
  {
    resourceType: t.Literal("OperationOutcome"),
    issue: t.Array(
      t.Object({
        severity: t.UnionEnum(["fatal", "error", "warning", "information"], { default: undefined }),
        code: t.String({ description: "The FHIR R4 IssueType." }),
        diagnostics: t.Optional(t.String()),
      }),
      { minItems: 1 },
    ),
  },
  {
    description:
      "A FHIR OperationOutcome: issue[0].code (invalid, not-supported, not-found, expired, too-costly, login, throttled, exception) and diagnostics say what went wrong.",
    examples: [
      {
        resourceType: "OperationOutcome",
        issue: [{ severity: "error", code: "not-found", diagnostics: 'No Endpoint has the id "0"' }],
      },
    ],
  },
);

const SearchParam = t.Object({
  name: t.String(),
  definition: t.Optional(t.String({ format: "uri" })),
  type: t.String(),
  documentation: t.String(),
});

/** The CapabilityStatement of /fhir/metadata: the elements it carries (capability.ts builds it). */
export const CapabilityStatement = t.Object(
  {
    resourceType: t.Literal("CapabilityStatement"),
    status: t.Literal("active"),
    date: t.String({ format: "date-time", description: "When the dataset was last refreshed." }),
    publisher: t.String(),
    kind: t.Literal("instance"),
    software: t.Object({ name: t.String(), version: t.String() }),
    implementation: t.Object({ description: t.String(), url: t.String({ format: "uri" }) }),
    fhirVersion: t.Literal("4.0.1"),
    format: t.Array(t.String()),
    rest: t.Array(
      t.Object({
        mode: t.Literal("server"),
        documentation: t.String(),
        resource: t.Array(
          t.Object({
            type: t.String(),
            interaction: t.Array(t.Object({ code: t.String() })),
            searchInclude: t.Array(t.String()),
            searchRevInclude: t.Optional(t.Array(t.String())),
            searchParam: t.Array(SearchParam),
          }),
        ),
        searchParam: t.Array(SearchParam),
      }),
    ),
  },
  {
    description: "What /fhir serves (a CapabilityStatement): kind instance, FHIR 4.0.1, JSON, every search parameter.",
    examples: [
      {
        resourceType: "CapabilityStatement",
        status: "active",
        date: "2026-11-04T09:00:00.000Z",
        publisher: "endpoint-directory",
        kind: "instance",
        software: { name: "endpoint-directory", version: "0.1.0" },
        implementation: {
          description: "The Endpoint Directory as FHIR R4 (read-only)",
          url: "http://localhost:3000/fhir",
        },
        fhirVersion: "4.0.1",
        format: ["json", "application/fhir+json"],
        rest: [
          {
            mode: "server",
            documentation: "Read-only.",
            resource: [
              {
                type: "Endpoint",
                interaction: [{ code: "read" }, { code: "search-type" }],
                searchInclude: ["Endpoint:organization"],
                searchParam: [
                  {
                    name: "status",
                    definition: "http://hl7.org/fhir/SearchParameter/Endpoint-status",
                    type: "token",
                    documentation: "active, error or off.",
                  },
                ],
              },
            ],
            searchParam: [{ name: "_count", type: "number", documentation: "Page size." }],
          },
        ],
      },
    ],
  },
);

/** One of our own SearchParameter resources (capability.ts builds them). */
export const SearchParameter = t.Object(
  {
    resourceType: t.Literal("SearchParameter"),
    id: t.String(),
    url: t.String({ format: "uri" }),
    name: t.String(),
    status: t.Literal("active"),
    description: t.String(),
    code: t.String(),
    base: t.Array(t.String(), { minItems: 1 }),
    type: t.String(),
    expression: t.Optional(t.String()),
    modifier: t.Optional(t.Array(t.String())),
  },
  {
    description: "A search parameter this server defines itself (its CapabilityStatement links it).",
    examples: [
      {
        resourceType: "SearchParameter",
        id: "endpoint-fhir-version",
        url: "http://localhost:3000/fhir/SearchParameter/endpoint-fhir-version",
        name: "fhir-version",
        status: "active",
        description: "The FHIR version.",
        code: "fhir-version",
        base: ["Endpoint"],
        type: "token",
      },
    ],
  },
);

export const ReadParams = t.Object({ id: t.String({ description: "The resource id." }) });
const TYPE = t.String({ description: "A resource type this server does not serve." });
export const TypeParams = t.Object({ type: TYPE });
export const TypeIdParams = t.Object({ type: TYPE, id: t.String() });

const FORMAT_RULE =
  "json, application/json or application/fhir+json (anything else: 406). Overrides Accept; without it, an Accept allowing no FHIR JSON (application/fhir+json, application/json, */*) is 406 too.";

const optionalText = (description: string) => t.Optional(t.String({ description }));
/** A whole number the route reads as text (a bad one is its own 400 OperationOutcome), documented as an integer. */
const optionalCount = (description: string) =>
  t.Optional(t.String({ description, [DOCUMENTED_AS]: { type: "integer", minimum: 0 } }));

/**
 * A parameter that may be given more than once (each occurrence must hold), read as text and
 * documented as an array of strings (form style, exploded: the name repeated).
 */
const optionalRepeatable = (description: string) =>
  t.Optional(t.String({ description, [DOCUMENTED_AS]: { type: "array", items: { type: "string" } } }));

/**
 * The parameters of a search (src/server/fhir/search-params.ts): `repeatable` makes the search
 * parameters and includes (a name may repeat), `count` the whole numbers, `text` the other
 * result parameters (given once).
 */
const searchParameters = <T>(
  type: ResourceType,
  text: (description: string) => T,
  count: (description: string) => T,
  repeatable: (description: string) => T = text,
): Record<string, T> => ({
  ...Object.fromEntries(
    Object.entries(SEARCH_PARAMETERS[type]).map(([name, parameter]) => [name, repeatable(parameter.documentation)]),
  ),
  _include: repeatable(`Supported: ${INCLUDES[type].include.join(", ")}.`),
  ...(INCLUDES[type].revinclude.length === 0
    ? {}
    : { _revinclude: repeatable(`Supported: ${INCLUDES[type].revinclude.join(", ")}.`) }),
  _count: count(
    `Page size: default ${DEFAULT_COUNT}, at most ${MAX_COUNT} (a larger one is lowered); 0: only the total.`,
  ),
  _total: text("none, estimate or accurate (both exact)."),
  _summary: text("count or false."),
  _format: text(FORMAT_RULE),
  _offset: count("Set by page links: the position of the page's first match."),
  _snapshot: count("Set by page links: the dataset version they were made for (another: 410)."),
});

/** The query of a search: its own parameters and the result parameters; others are ignored. */
export const searchQuery = (type: ResourceType) =>
  t.Object(searchParameters(type, optionalText, optionalCount, optionalRepeatable), { additionalProperties: true });

export const FormatQuery = t.Object({ _format: optionalText(FORMAT_RULE) }, { additionalProperties: true });

/** A form field: given once, a string; given twice, both. */
const formValue = (description: string, documented?: object) =>
  t.Optional(
    t.Union([t.String(), t.Array(t.String())], {
      description,
      ...(documented === undefined ? {} : { [DOCUMENTED_AS]: documented }),
    }),
  );

/**
 * The form body of a search by POST: the parameters of the GET's query, combined with those of
 * the URL (a name given twice is two parameters); any other name is ignored as in the URL.
 */
export const searchForm = (type: ResourceType) =>
  t.Object(
    searchParameters(
      type,
      (description) => formValue(description),
      (description) => formValue(description, { type: "integer", minimum: 0 }),
    ),
    {
      additionalProperties: true,
      description:
        "Search parameters as an application/x-www-form-urlencoded body, combined with those of the URL (a name given twice is two parameters).",
      examples: [type === "Organization" ? { "address-state": "OH", _count: 2 } : { status: "active", _count: 2 }],
    },
  );

/** What a POST search of a type not served may send: any form parameters (the answer is a 404 whatever they are). */
export const OtherTypeForm = t.Object(
  {},
  {
    additionalProperties: true,
    description: "Search parameters as an application/x-www-form-urlencoded body; not read.",
    examples: [{ _count: 2 }],
  },
);
