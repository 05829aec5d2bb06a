import { FHIR_CONTENT_TYPE } from "./answers";
import { type Exchange, headersFor, headerTemplate } from "./exchange";

/** Whether a request path is under /fhir, where every answer is FHIR (an OperationOutcome for an error). */
export const isFhirPath = (path: string) => path === "/fhir" || path.startsWith("/fhir/");

/** An error a /fhir request answers with an OperationOutcome (never the JSON API's envelope). */
export class FhirError extends Error {
  constructor(
    readonly status: number,
    /** The OperationOutcome issue type (FHIR R4 IssueType). */
    readonly code: string,
    message: string,
    /** Headers the answer carries (a redirect's `location`). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** An OperationOutcome with one issue: an error, or information beside a redirect (a status below 400). */
const operationOutcome = (status: number, code: string, message: string) =>
  JSON.stringify({
    resourceType: "OperationOutcome",
    issue: [{ severity: status < 400 ? "information" : "error", code, diagnostics: message }],
  });

const OUTCOME = headerTemplate({ "content-type": FHIR_CONTENT_TYPE });

/** The response of an OperationOutcome: its status, the FHIR content type, the request's own headers and `extra`. */
export const outcomeResponse = (
  exchange: Exchange,
  status: number,
  code: string,
  message: string,
  extra?: Record<string, string>,
) => new Response(operationOutcome(status, code, message), { status, headers: headersFor(exchange, OUTCOME, extra) });
