import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { validateEndpointUrl } from "../../../src/pipeline/ingest/url-validation";

const reasonOf = (raw: string) => {
  const result = validateEndpointUrl(raw);
  return "reason" in result ? result.reason : null;
};

describe("validateEndpointUrl", () => {
  test("returns the trimmed URL of a well-formed http(s) address", () => {
    expect(validateEndpointUrl("  https://fhir.example.com/r4 \n")).toEqual({ url: "https://fhir.example.com/r4" });
    expect(validateEndpointUrl("http://[::1]:8080/x")).toEqual({ url: "http://[::1]:8080/x" });
  });

  test.each([
    ["", /empty/],
    ["   ", /empty/],
    ["fhir.example.com/r4", /http/],
    ["ftp://fhir.example.com/r4", /http/],
    ["https:fhir.example.com", /http/],
    ["https:///fhir.example.com", /host/],
    ["https://fhir.example.com/a b", /whitespace or control/],
    ["https://fhir.example.com/\u0000", /whitespace or control/],
    ["https://fhir.example.com/\u2066x", /whitespace or control/],
    ["https://fhir.example.com\\x", /backslash/],
    ["https://u:p@fhir.example.com/", /credentials/],
    ["https://u@fhir.example.com/", /credentials/],
    ["https://fhir.example.com:65536/", /not a valid URL/],
    ["https://fhir.example.com:0/", /port/],
    [`https://${"a".repeat(250)}.com/`, /253/],
    [`https://${"a".repeat(64)}.com/`, /label/],
    ["https://a_b.example.com/", /label/],
    ["https://-a.example.com/", /label/],
    ["https://a..example.com/", /label/],
    ["https://%61.example.com/", /label|host/],
    [`https://fhir.example.com/${"x".repeat(3000)}`, /2,048/],
  ])("%j is refused (%s)", (raw, reason) => {
    expect(reasonOf(raw)).toMatch(reason);
  });
});

describe("configuration of list fetching", () => {
  test("defaults: the guard on, a 100 MB cap", () => {
    expect(loadConfig({})).toMatchObject({ allowPrivateNetwork: false, ingestMaxBytes: 100_000_000 });
  });

  test("ALLOW_PRIVATE_NETWORK=true and INGEST_MAX_BYTES are read", () => {
    expect(loadConfig({ ALLOW_PRIVATE_NETWORK: "true", INGEST_MAX_BYTES: "5000" })).toMatchObject({
      allowPrivateNetwork: true,
      ingestMaxBytes: 5000,
    });
    expect(loadConfig({ ALLOW_PRIVATE_NETWORK: "false" }).allowPrivateNetwork).toBe(false);
  });

  test("a value that is not true/false, or a cap of 0, is refused", () => {
    expect(() => loadConfig({ ALLOW_PRIVATE_NETWORK: "yes" })).toThrow(/ALLOW_PRIVATE_NETWORK/);
    expect(() => loadConfig({ INGEST_MAX_BYTES: "0" })).toThrow(/INGEST_MAX_BYTES/);
    expect(() => loadConfig({ INGEST_MAX_BYTES: "10MB" })).toThrow(/INGEST_MAX_BYTES/);
  });
});
