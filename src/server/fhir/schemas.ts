import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { DOCUMENTED_AS } from "../http/schemas";
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
    total: t.Optional(Type.Integer({ minimum: 0 })),
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

const FORMAT_RULE =
  "json, application/json or application/fhir+json (anything else: 406). Overrides Accept; without it, an Accept allowing no FHIR JSON (application/fhir+json, application/json, */*) is 406 too.";

const optionalText = (description: string) => t.Optional(t.String({ description }));
/** A whole number the route reads as text (a bad one is its own 400 OperationOutcome), documented as an integer. */
const optionalCount = (description: string) =>
  t.Optional(t.String({ description, [DOCUMENTED_AS]: { type: "integer", minimum: 0 } }));

/** The parameters of a search (src/server/fhir/search-params.ts): `count` makes the whole numbers, `text` the others. */
const searchParameters = <T>(
  type: ResourceType,
  text: (description: string) => T,
  count: (description: string) => T,
): Record<string, T> => ({
  ...Object.fromEntries(
    Object.entries(SEARCH_PARAMETERS[type]).map(([name, parameter]) => [name, text(parameter.documentation)]),
  ),
  _include: text(`Supported: ${INCLUDES[type].include.join(", ")}.`),
  ...(INCLUDES[type].revinclude.length === 0
    ? {}
    : { _revinclude: text(`Supported: ${INCLUDES[type].revinclude.join(", ")}.`) }),
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
  t.Object(searchParameters(type, optionalText, optionalCount), { additionalProperties: true });

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
