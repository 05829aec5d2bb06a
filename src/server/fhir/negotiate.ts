import { FhirError } from "../http/operation-outcome";

/**
 * Content negotiation under /fhir (FHIR R4 http.html, "Content Types and Encodings"): this
 * server answers FHIR JSON only. `_format` (in the URL or a POSTed form) overrides `Accept`;
 * either is satisfied when one of its media types is JSON (`json`, `application/json`,
 * `application/fhir+json`, the older `application/json+fhir`) or, in `Accept`, a wildcard
 * (`*`/`*`, `application/*`) with a q above 0 and no `fhirVersion` other than 4.0. Otherwise
 * the answer is 406 `not-supported`, whatever asked for it.
 */
const JSON_TYPES = new Set(["json", "application/json", "application/fhir+json", "application/json+fhir"]);
const WILDCARDS = new Set(["*/*", "application/*"]);
/** At most this many media ranges of an `Accept` header are read (a longer list is unusual). */
const MAX_RANGES = 32;

/** Whether one media range (type and parameters) may be answered with FHIR R4 JSON. */
function answerable(range: string, wildcards: boolean): boolean {
  const [type, ...parameters] = range.split(";");
  const name = type!.trim().toLowerCase();
  if (!JSON_TYPES.has(name) && !(wildcards && WILDCARDS.has(name))) return false;
  for (const parameter of parameters) {
    const equals = parameter.indexOf("=");
    const key = parameter.slice(0, equals).trim().toLowerCase();
    const value = parameter
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    if (key === "q" && !(Number(value) > 0)) return false;
    if (key === "fhirversion" && !/^4\.0(\.|$)/.test(value)) return false;
  }
  return true;
}

/** Whether an `Accept` header (absent or empty: anything) allows FHIR R4 JSON. */
function acceptsFhirJson(accept: string | null): boolean {
  if (accept === null || accept.trim() === "") return true;
  return accept.split(",", MAX_RANGES).some((range) => answerable(range, true));
}

/** Checks a `_format` value: a JSON type, else 406. */
export function checkFormat(value: string) {
  if (!answerable(value, false))
    throw new FhirError(
      406,
      "not-supported",
      `_format: only FHIR R4 JSON is served (json, application/fhir+json), not "${value.slice(0, 64)}"`,
    );
}

/** Checks `Accept` when no `_format` overrides it: 406 when it allows no FHIR R4 JSON. */
export function checkAccept(request: Request, formatGiven: boolean) {
  if (formatGiven || acceptsFhirJson(request.headers.get("accept"))) return;
  throw new FhirError(
    406,
    "not-supported",
    "Accept: only FHIR R4 JSON is served (application/fhir+json; fhirVersion=4.0, application/json or */*)",
  );
}

/** Whether a URL's query gives a non-empty `_format` (which then overrides `Accept`). */
export const formatInQuery = (url: string) => /[?&]_format=[^&]/.test(url);

/**
 * Whether a GET may be answered with its URL's kept answer before routing: not under `Prefer`
 * (`handling=strict` may answer the same URL otherwise), and only when its route would not
 * answer 406 (a kept answer was built for a URL whose `_format` passed; without one, `Accept`
 * decides).
 */
export const servableFromKept = (request: Request) =>
  request.headers.get("prefer") === null &&
  (formatInQuery(request.url) || acceptsFhirJson(request.headers.get("accept")));
