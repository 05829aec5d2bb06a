import { words } from "../../directory/text";
import { READY, SUPPORTS } from "../../model/capability-rules";
import { REQUEST_CAPS, WHOLE_NUMBER } from "../../model/request-caps";
import { VENDOR_KINDS } from "../../model/vendors";
import { parseDateValue } from "./date-search";
import { parseNearValue } from "./near-search";
import { checkFormat } from "./negotiate";
import { invalid, notSupported, tooCostly } from "./outcome";

export const RESOURCE_TYPES = ["Endpoint", "Organization"] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

type ParameterType = "token" | "string" | "reference" | "date" | "special";

interface SearchParameterInfo {
  type: ParameterType;
  /** What the value matches, for the CapabilityStatement and the OpenAPI document. */
  documentation: string;
  /** For a parameter of our own: the id of its SearchParameter resource (src/server/fhir/capability.ts). */
  ours?: string;
  /** A reference's target type (also accepted as the modifier `:Type`). */
  target?: ResourceType;
  /** The only codes a token parameter takes: any other is a 400 (a closed list of our own). */
  codes?: readonly string[];
  /** Not a FHIRPath over the resource: derived by the directory (its SearchParameter has no expression). */
  derived?: true;
}

const STRING_RULE =
  "Case- and accent-insensitive; every word of the value (split on anything not a letter or digit) must be the start of some word of the field, so `mass gen` finds Massachusetts General Hospital. `:exact`: the field equals the value exactly. `:contains`: the field contains the value anywhere (case- and accent-insensitive). A comma separates alternatives.";

/** `_lastUpdated`, the same on both types (src/server/fhir/date-search.ts). */
const LAST_UPDATED: SearchParameterInfo = {
  type: "date",
  documentation:
    "meta.lastUpdated: the newest lastUpdated of the resource's entries (it moves when a served field of one changes). FHIR date search: `gt`, `ge`, `lt`, `le` or `eq` (no prefix) before a date of any precision (`2026`, `2026-11`, `2026-11-26`, `2026-11-26T10:00:00Z`, with a zone or UTC), compared with the date's whole range; `ne`, `sa`, `eb`, `ap` are not supported. Given twice, both must hold (`_lastUpdated=ge2026-01-01&_lastUpdated=lt2026-02-01`); a comma separates alternatives.",
};

/** The search parameters each resource type takes: parsing, the CapabilityStatement and the OpenAPI document read them here. */
export const SEARCH_PARAMETERS: Record<ResourceType, Record<string, SearchParameterInfo>> = {
  Organization: {
    _id: { type: "token", documentation: "Resource id; a comma separates alternatives." },
    _lastUpdated: LAST_UPDATED,
    name: { type: "string", documentation: `Organization.name. ${STRING_RULE}` },
    identifier: {
      type: "token",
      documentation: `NPI: \`http://hl7.org/fhir/sid/us-npi|1234567893\`, \`1234567893\` (any system) or \`http://hl7.org/fhir/sid/us-npi|\` (any NPI).`,
    },
    "address-state": { type: "string", documentation: `Organization.address.state. ${STRING_RULE}` },
    "address-city": { type: "string", documentation: `Organization.address.city. ${STRING_RULE}` },
    "address-postalcode": { type: "string", documentation: `Organization.address.postalCode. ${STRING_RULE}` },
    endpoint: {
      type: "reference",
      target: "Endpoint",
      documentation: "Organizations referencing this Endpoint: `Endpoint/<id>`, `<id>` or the absolute URL.",
    },
    near: {
      type: "special",
      ours: "organization-near",
      derived: true,
      documentation:
        "Organizations within a distance of a point, written as FHIR's Location `near`: `latitude|longitude|distance|units` (degrees; units `mi` or `km`, `km` when left out; at most 100 miles). An organization is placed at its ZIP's point in the directory's ZIP table, else at the mean point of its city's ZIPs (docs/api.md, Finding one provider); without either it is not found. A comma separates alternatives.",
    },
  },
  Endpoint: {
    _id: { type: "token", documentation: "Resource id; a comma separates alternatives." },
    _lastUpdated: LAST_UPDATED,
    organization: {
      type: "reference",
      target: "Organization",
      documentation:
        "Endpoint.managingOrganization: `Organization/developer-<vendorId>`, `developer-<vendorId>` or the absolute URL.",
    },
    status: {
      type: "token",
      documentation: "Endpoint.status: `active` (listed or verified) or `error` (unresponsive).",
    },
    "connection-type": {
      type: "token",
      documentation:
        "Endpoint.connectionType: every Endpoint is `hl7-fhir-rest` (system http://terminology.hl7.org/CodeSystem/endpoint-connection-type).",
    },
    address: {
      type: "string",
      ours: "endpoint-address",
      documentation:
        "Endpoint.address, case-insensitive: the URL starts with the value; `:contains` anywhere in it; `:exact` equal to it. A comma separates alternatives.",
    },
    "fhir-version": {
      type: "token",
      ours: "endpoint-fhir-version",
      documentation:
        "The `endpoint-fhir-version` extension's code: 1.0.2 (DSTU2), 3.0.2 (STU3), 4.0.1 (R4), 4.3.0 (R4B) or 5.0.0 (R5); Endpoints of unknown version have none.",
    },
    supports: {
      type: "token",
      ours: "endpoint-supports",
      codes: SUPPORTS,
      derived: true,
      documentation: `What the server's probed CapabilityStatement and SMART configuration declare, as the JSON API's \`supports=\` (docs/api.md, Facets): ${SUPPORTS.join(", ")}. A comma separates alternatives; repeat the parameter for all of several. Another code → 400.`,
    },
    "developer-kind": {
      type: "token",
      ours: "endpoint-developer-kind",
      codes: VENDOR_KINDS,
      derived: true,
      documentation: `The kind of the Endpoint's developer (its managingOrganization), as the JSON API's \`kind=\`: ${VENDOR_KINDS.join(", ")} (\`ehr\`: a certified health IT developer; \`payer\`: a health plan or program's Patient Access API). A comma separates alternatives. Another code → 400.`,
    },
    ready: {
      type: "token",
      ours: "endpoint-ready",
      codes: READY,
      derived: true,
      documentation: `App kinds whose verdict for the server is \`ready\`, as the JSON API's \`ready=\` (docs/api.md, Verdict): ${READY.join(", ")}. A comma separates alternatives; repeat the parameter for all of several. Another code → 400.`,
    },
  },
};

/**
 * The search parameter `name` of `type`, or undefined: an own key only, so names every object
 * inherits (`constructor`, `__proto__`, `toString`) are unknown parameters like any other.
 */
const searchParameter = (type: ResourceType, name: string): SearchParameterInfo | undefined =>
  Object.hasOwn(SEARCH_PARAMETERS[type], name) ? SEARCH_PARAMETERS[type][name] : undefined;

const isResourceType = (name: string | undefined): name is ResourceType =>
  (RESOURCE_TYPES as readonly (string | undefined)[]).includes(name);

/** `_include` and `_revinclude` values each resource type takes (`Type:param`, optionally `:TargetType`). */
export const INCLUDES: Record<ResourceType, { include: string[]; revinclude: string[] }> = {
  Organization: { include: ["Organization:endpoint"], revinclude: ["Endpoint:organization"] },
  Endpoint: { include: ["Endpoint:organization"], revinclude: [] },
};

export const DEFAULT_COUNT = 25;
export const MAX_COUNT = 500;

export interface Criterion {
  name: string;
  modifier: string | null;
  /** Alternatives (a comma in the value); the criterion matches when any does. */
  values: string[];
}

export interface SearchRequest {
  type: ResourceType;
  /** All must match. */
  criteria: Criterion[];
  count: number;
  offset: number;
  /** The dataset version a page link was made for; null on a first request. */
  snapshot: number | null;
  total: boolean;
  summaryCount: boolean;
  include: boolean;
  revinclude: boolean;
  /** The parameters understood, as given (minus `_count`, `_offset`, `_snapshot`): what links repeat. */
  kept: [string, string][];
  /** Whether the client gave `_count`. */
  countGiven: boolean;
}

/** Splits a value on commas not escaped by a backslash, and removes the escapes of `\,` `\|` `\$` `\\`. */
function splitValues(value: string): string[] {
  const out: string[] = [];
  let current = "";
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === "\\" && i + 1 < value.length && ",|$\\".includes(value[i + 1]!)) current += value[++i];
    else if (ch === ",") {
      out.push(current);
      current = "";
    } else current += ch;
  }
  out.push(current);
  return out;
}

const wholeNumber = (name: string, value: string) => {
  if (!WHOLE_NUMBER.test(value)) throw invalid(`${name}: must be a whole number, not "${value.slice(0, 64)}"`);
  return Number(value);
};

/**
 * The distinct alternatives of a value, within the caps (src/model/request-caps.ts): each at
 * most `valueChars` characters, at most `alternatives` of them once duplicates are removed (so
 * `a,a,a` is searched as `a`); beyond either, 400 `too-costly`.
 */
function alternativesOf(rawName: string, value: string): string[] {
  const values = [...new Set(splitValues(value))];
  const { alternatives, valueChars } = REQUEST_CAPS;
  if (values.length > alternatives)
    throw tooCostly(`${rawName}: at most ${alternatives} distinct comma-separated values, not ${values.length}`);
  for (const one of values)
    if (one.length > valueChars) throw tooCostly(`${rawName}: a value of at most ${valueChars} characters`);
  return values;
}

/** Whether two criteria ask the same (a parameter repeated with the same values adds nothing). */
const sameCriterion = (a: Criterion, b: Criterion) =>
  a.name === b.name &&
  a.modifier === b.modifier &&
  a.values.length === b.values.length &&
  a.values.every((value) => b.values.includes(value));

/**
 * Reads a search's parameters (`pairs`: the URL's query and a POSTed form body, in order).
 * Empty values are ignored, as FHIR says. Unknown parameters are ignored (and left out of the
 * links) unless `strict` (`Prefer: handling=strict`); a bad value of a known one is a 400.
 * Within the request caps (src/model/request-caps.ts) or 400 `too-costly`: the number of
 * parameters, of times one is given, of alternatives of one and their length.
 */
export function parseSearch(type: ResourceType, pairs: [string, string][], strict: boolean): SearchRequest {
  const request: SearchRequest = {
    type,
    criteria: [],
    count: DEFAULT_COUNT,
    offset: 0,
    snapshot: null,
    total: true,
    summaryCount: false,
    include: false,
    revinclude: false,
    kept: [],
    countGiven: false,
  };
  if (pairs.length > REQUEST_CAPS.parameters)
    throw tooCostly(`at most ${REQUEST_CAPS.parameters} parameters in one search, not ${pairs.length}`);
  const given = new Map<string, number>();
  for (const [rawName, value] of pairs) {
    if (value === "") continue;
    const times = (given.get(rawName) ?? 0) + 1;
    if (times > REQUEST_CAPS.repeats)
      throw tooCostly(`${rawName.slice(0, 64)}: given at most ${REQUEST_CAPS.repeats} times in one search`);
    given.set(rawName, times);
  }
  const seen = new Set<string>();
  const once = (name: string) => {
    if (seen.has(name)) throw invalid(`${name}: given more than once`);
    seen.add(name);
  };
  for (const [rawName, value] of pairs) {
    if (value === "") continue;
    const colon = rawName.indexOf(":");
    const name = colon === -1 ? rawName : rawName.slice(0, colon);
    const modifier = colon === -1 ? null : rawName.slice(colon + 1);
    const parameter = searchParameter(type, name);
    if (parameter !== undefined) {
      checkModifier(name, parameter, modifier);
      const criterion = { name, modifier, values: alternativesOf(rawName, value) };
      // The word rule reads a prefix range of the name index per word.
      if (parameter.type === "string" && modifier === null)
        for (const one of criterion.values)
          if (words(one).length > REQUEST_CAPS.words)
            throw tooCostly(`${rawName}: at most ${REQUEST_CAPS.words} distinct words in a value`);
      // A malformed date is a 400 here, before any search runs (search.ts reads it again).
      if (parameter.type === "date") for (const one of criterion.values) parseDateValue(name, one);
      if (parameter.type === "special") for (const one of criterion.values) parseNearValue(one);
      const { codes } = parameter;
      if (codes !== undefined)
        for (const one of criterion.values)
          if (!codes.includes(one.slice(one.indexOf("|") + 1)))
            throw invalid(`${name}: "${one.slice(0, 64)}" is not one of ${codes.join(", ")}`);
      // The search runs (and its links say) each distinct value once, each distinct criterion once.
      if (request.criteria.some((other) => sameCriterion(other, criterion))) continue;
      request.criteria.push(criterion);
      request.kept.push([rawName, criterion.values.map((one) => one.replace(/[\\,]/g, "\\$&")).join(",")]);
      continue;
    }
    if (modifier !== null && name.startsWith("_") && name !== "_include" && name !== "_revinclude") {
      if (strict) throw notSupported(`${rawName}: unknown parameter`);
      continue;
    }
    switch (name) {
      case "_count":
        once(name);
        request.count = Math.min(wholeNumber(name, value), MAX_COUNT);
        request.countGiven = true;
        break;
      case "_offset":
        once(name);
        request.offset = wholeNumber(name, value);
        break;
      case "_snapshot":
        once(name);
        request.snapshot = wholeNumber(name, value);
        break;
      case "_total":
        once(name);
        if (!["none", "estimate", "accurate"].includes(value))
          throw invalid(`_total: must be none, estimate or accurate`);
        request.total = value !== "none";
        request.kept.push([name, value]);
        break;
      case "_summary":
        once(name);
        if (value !== "count" && value !== "false")
          throw notSupported(`_summary: only count and false are supported, not "${value.slice(0, 64)}"`);
        request.summaryCount = value === "count";
        request.kept.push([name, value]);
        break;
      case "_format":
        checkFormat(value);
        request.kept.push([name, value]);
        break;
      case "_include":
      case "_revinclude": {
        if (modifier !== null) throw notSupported(`${rawName}: no modifier of ${name} is supported`);
        const allowed = INCLUDES[type][name === "_include" ? "include" : "revinclude"];
        const [source, param, target] = value.split(":");
        const plain = `${source}:${param}`;
        const expectedTarget = isResourceType(source) ? searchParameter(source, param ?? "") : undefined;
        if (!allowed.includes(plain) || (target !== undefined && target !== expectedTarget?.target))
          throw notSupported(
            `${name}: "${value.slice(0, 100)}" is not supported on ${type}; ${allowed.length === 0 ? "none is" : `supported: ${allowed.join(", ")}`}`,
          );
        if (name === "_include") request.include = true;
        else request.revinclude = true;
        request.kept.push([name, value]);
        break;
      }
      default:
        if (strict) throw notSupported(`${rawName}: unknown parameter`);
    }
  }
  return request;
}

function checkModifier(name: string, parameter: SearchParameterInfo, modifier: string | null) {
  if (modifier === null) return;
  if (parameter.type === "string" && (modifier === "exact" || modifier === "contains")) return;
  if (parameter.type === "reference" && modifier === parameter.target) return;
  throw notSupported(`${name}:${modifier.slice(0, 64)}: modifier not supported`);
}

/** A query string of pairs, keeping `| , : /` readable. */
export function queryString(pairs: [string, string][]): string {
  return pairs.map(([name, value]) => `${encode(name)}=${encode(value)}`).join("&");
}

const encode = (text: string) =>
  encodeURIComponent(text).replace(/%(7C|2C|3A|2F)/gi, (kept) => decodeURIComponent(kept));

/** The pairs of a query string (`+` is a space); malformed percent-encoding is a 400. */
export function pairsOf(query: string): [string, string][] {
  const out: [string, string][] = [];
  for (const part of query.split("&")) {
    if (part === "") continue;
    const equals = part.indexOf("=");
    const decode = (text: string) => {
      try {
        return decodeURIComponent(text.replaceAll("+", " "));
      } catch {
        throw invalid(`${text.slice(0, 64)}: malformed percent-encoding`);
      }
    };
    out.push(equals === -1 ? [decode(part), ""] : [decode(part.slice(0, equals)), decode(part.slice(equals + 1))]);
  }
  return out;
}
