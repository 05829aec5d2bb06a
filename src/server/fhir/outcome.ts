import { FhirError } from "../http/operation-outcome";

export const invalid = (message: string) => new FhirError(400, "invalid", message);
export const notSupported = (message: string) => new FhirError(400, "not-supported", message);
export const notFound = (message: string) => new FhirError(404, "not-found", message);
/** Beyond a request cap (src/model/request-caps.ts). */
export const tooCostly = (message: string) => new FhirError(400, "too-costly", message);
