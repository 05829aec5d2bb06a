/** An error a /fhir request answers with an OperationOutcome (never the JSON API's envelope). */
export class FhirError extends Error {
  constructor(
    readonly status: number,
    /** The OperationOutcome issue type (FHIR R4 IssueType). */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const invalid = (message: string) => new FhirError(400, "invalid", message);
export const notSupported = (message: string) => new FhirError(400, "not-supported", message);
export const notFound = (message: string) => new FhirError(404, "not-found", message);

/** An OperationOutcome with one error issue. */
export const operationOutcome = (code: string, message: string) =>
  JSON.stringify({
    resourceType: "OperationOutcome",
    issue: [{ severity: "error", code, diagnostics: message }],
  });
