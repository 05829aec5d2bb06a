import { describe, expect, test } from "bun:test";
import type { DocumentResult } from "../../../src/model/probe";
import { accessFromCapabilities, derive, mapFhirVersion } from "../../../src/pipeline/probe/derive";
import { documentResult } from "./helpers";

describe("fhirVersion mapping (docs/api.md)", () => {
  const cases: [unknown, string][] = [
    ["0.4.0", "DSTU2"],
    ["0.5.0", "DSTU2"],
    ["1.0.0", "DSTU2"],
    ["1.0.1", "DSTU2"],
    ["1.0.2", "DSTU2"],
    ["1.1.0", "STU3"],
    ["1.4.0", "STU3"],
    ["1.8.0", "STU3"],
    ["3.0.0", "STU3"],
    ["3.0.1", "STU3"],
    ["3.0.2", "STU3"],
    ["3.2.0", "R4"],
    ["3.3.0", "R4"],
    ["3.5.0", "R4"],
    ["3.5a.0", "R4"],
    ["4.0.0", "R4"],
    ["4.0.1", "R4"],
    ["4.0", "R4"],
    ["4.0.1-cibuild", "R4"],
    ["4.1.0", "R4B"],
    ["4.3.0", "R4B"],
    ["4.3", "R4B"],
    ["4.2.0", "R5"],
    ["4.4.0", "R5"],
    ["4.5.0", "R5"],
    ["4.6.0", "R5"],
    ["5.0.0", "R5"],
    ["5.0.0-snapshot1", "R5"],
    ["5.0.1", "R5"],
    ["0.0.82", "UNKNOWN"],
    ["0.3.0", "UNKNOWN"],
    ["1.0.3", "UNKNOWN"],
    ["3.1.0", "UNKNOWN"],
    ["4.0.2", "UNKNOWN"],
    ["5.1.0", "UNKNOWN"],
    ["6.0.0", "UNKNOWN"],
    ["R4", "UNKNOWN"],
    ["", "UNKNOWN"],
    [4.0, "UNKNOWN"],
    [null, "UNKNOWN"],
    [undefined, "UNKNOWN"],
  ];
  test.each(cases)("%p → %s", (input, expected) => {
    expect(mapFhirVersion(input) as string).toBe(expected);
  });
});

describe("access from SMART capabilities", () => {
  test.each([
    [["launch-standalone"], ["patient"]],
    [["context-standalone-patient"], ["patient"]],
    [["permission-patient"], ["patient"]],
    [["launch-ehr"], ["provider"]],
    [["context-ehr-patient"], ["provider"]],
    [["permission-user"], ["provider"]],
    [
      ["permission-user", "launch-standalone"],
      ["patient", "provider"],
    ],
    [["client-public", "sso-openid-connect", "permission-offline"], null],
    [[], null],
  ])("%p → %p", (capabilities, expected) => {
    expect(accessFromCapabilities(capabilities as string[])).toEqual(expected as never);
  });
});

const doc = (partial: Partial<DocumentResult>) => documentResult({ durationMs: 1, ...partial });
const statement = {
  resourceType: "Conformance",
  fhirVersion: "1.0.2",
  software: { name: "X", version: "" },
  rest: [{ resource: [{ type: "Patient" }, { type: "Binary" }, { type: "Patient" }, { type: 7 }] }],
};
const smart = {
  authorization_endpoint: "https://a/authorize",
  capabilities: ["launch-ehr", "launch-ehr", 3],
  grant_types_supported: ["authorization_code"],
};

describe("derive", () => {
  test("both documents → success, verified, summary fields", () => {
    const d = derive(
      doc({ ok: true, httpStatus: 200, json: statement }),
      doc({ ok: true, httpStatus: 200, json: smart }),
    );
    expect(d.probeStatus).toBe("success");
    expect(d.entryStatus).toBe("verified");
    expect(d.errorKind).toBeNull();
    expect(d.summary).toEqual({
      fhirVersion: "DSTU2",
      softwareName: "X",
      softwareVersion: null,
      supportedResourceCount: 2,
      supportedResources: ["Binary", "Patient"],
      smartSupported: true,
      smartCapabilities: ["launch-ehr"],
      grantTypes: ["authorization_code"],
    });
    expect(d.access).toEqual(["provider"]);
  });

  test("metadata only → partial, verified; every summary key present", () => {
    const d = derive(
      doc({ ok: true, httpStatus: 200, json: statement }),
      doc({ httpStatus: 404, errorKind: "http_status" }),
    );
    expect(d.probeStatus).toBe("partial");
    expect(d.entryStatus).toBe("verified");
    expect(d.errorKind).toBe("http_status");
    expect(d.summary.smartSupported).toBe(false);
    expect(d.summary.smartCapabilities).toEqual([]);
    expect(d.summary.grantTypes).toEqual([]);
    expect(d.access).toBeNull();
  });

  test("SMART only → partial, status unchanged", () => {
    const d = derive(
      doc({ httpStatus: 401, errorKind: "http_status" }),
      doc({ ok: true, httpStatus: 200, json: smart }),
    );
    expect(d.probeStatus).toBe("partial");
    expect(d.entryStatus).toBeNull();
    expect(d.summary.fhirVersion).toBe("UNKNOWN");
    expect(d.summary.softwareName).toBeNull();
    expect(d.summary.supportedResources).toEqual([]);
  });

  test("HTTP errors → failed, status unchanged", () => {
    const d = derive(
      doc({ httpStatus: 401, errorKind: "http_status" }),
      doc({ httpStatus: 401, errorKind: "http_status" }),
    );
    expect(d.probeStatus).toBe("failed");
    expect(d.entryStatus).toBeNull();
  });

  test.each(["dns", "refused", "tls", "timeout", "network"] as const)(
    "unreachable (%s) on both → failed, unresponsive",
    (kind) => {
      const d = derive(doc({ errorKind: kind }), doc({ errorKind: kind }));
      expect(d.probeStatus).toBe("failed");
      expect(d.entryStatus).toBe("unresponsive");
      expect(d.errorKind).toBe(kind);
    },
  );

  test("one document answered → the server is reachable, status unchanged", () => {
    expect(
      derive(doc({ errorKind: "timeout" }), doc({ httpStatus: 404, errorKind: "http_status" })).entryStatus,
    ).toBeNull();
  });

  test.each([
    "blocked",
    "invalid_url",
    "body_timeout",
    "body_too_large",
    "too_many_redirects",
    "invalid_json",
  ] as const)("%s → failed, status unchanged", (kind) => {
    const d = derive(doc({ errorKind: kind }), doc({ errorKind: kind }));
    expect(d.probeStatus).toBe("failed");
    expect(d.entryStatus).toBeNull();
  });
});
