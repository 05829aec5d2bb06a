import { expect, test } from "bun:test";
import { documentUrl } from "../../../src/pipeline/probe/fetch";
import { classifyFetchError, parseRetryAfter } from "../../../src/pipeline/probe/http-errors";

test("Retry-After: seconds or an HTTP date", () => {
  const now = Date.parse("2026-11-25T10:00:00Z");
  expect(parseRetryAfter("5", now)).toBe(5000);
  expect(parseRetryAfter(" 0 ", now)).toBe(0);
  expect(parseRetryAfter("Wed, 25 Nov 2026 10:00:20 GMT", now)).toBe(20_000);
  expect(parseRetryAfter("Wed, 25 Nov 2026 09:00:00 GMT", now)).toBe(0);
  expect(parseRetryAfter(null, now)).toBeNull();
  expect(parseRetryAfter("soon", now)).toBeNull();
  expect(parseRetryAfter("-3", now)).toBeNull();
});

test("fetch errors map to error kinds", () => {
  expect(classifyFetchError(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe("refused");
  expect(classifyFetchError(Object.assign(new Error("x"), { code: "ENOTFOUND" }))).toBe("dns");
  expect(classifyFetchError(Object.assign(new Error("x"), { code: "ERR_TLS_CERT_ALTNAME_INVALID" }))).toBe(
    "certificate_name_mismatch",
  );
  expect(
    classifyFetchError(Object.assign(new Error("self signed certificate"), { code: "DEPTH_ZERO_SELF_SIGNED_CERT" })),
  ).toBe("certificate_self_signed");
  expect(classifyFetchError(Object.assign(new Error("x"), { code: "CERT_HAS_EXPIRED" }))).toBe("certificate_expired");
  expect(classifyFetchError(Object.assign(new Error("x"), { code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" }))).toBe(
    "certificate_untrusted",
  );
  expect(classifyFetchError(Object.assign(new Error("handshake failure"), { code: "ERR_SSL_WRONG_VERSION" }))).toBe(
    "tls",
  );
  expect(classifyFetchError(new DOMException("t", "TimeoutError"))).toBe("timeout");
  expect(classifyFetchError(Object.assign(new Error("x"), { code: "ECONNRESET" }))).toBe("network");
  expect(classifyFetchError("weird")).toBe("network");
});

test("document URLs keep the base path and drop query, fragment and trailing slashes", () => {
  expect(documentUrl("https://fhir.example.com/api/FHIR/R4/", "metadata")?.href).toBe(
    "https://fhir.example.com/api/FHIR/R4/metadata",
  );
  expect(documentUrl("https://fhir.example.com/r4?x=1#f", "smart")?.href).toBe(
    "https://fhir.example.com/r4/.well-known/smart-configuration",
  );
  expect(documentUrl("https://fhir.example.com", "metadata")?.href).toBe("https://fhir.example.com/metadata");
  expect(documentUrl("not a url", "metadata")).toBeNull();
});
