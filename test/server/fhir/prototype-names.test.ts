/**
 * Names that are properties of every JavaScript object (`constructor`, `__proto__`, `toString`,
 * `valueOf`, `hasOwnProperty`) are plain names to the API: as /fhir search parameters they are
 * unknown parameters (ignored, or 400 under `Prefer: handling=strict`), never a 500 and never
 * a filter; as JSON API query parameters they are unknown parameters (400 VALIDATION_ERROR).
 */
import { describe, expect, test } from "bun:test";
import { appOnGeneratedDataset } from "../../support/generated-app";

const NAMES = [
  "constructor",
  "__proto__",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "__defineGetter__",
];

const live = appOnGeneratedDataset({ endpoints: 300, seed: 3 }, { listen: true });

async function get(path: string, init?: RequestInit) {
  const response = await fetch(`${live.origin}${path}`, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("object property names as /fhir search parameters", () => {
  for (const type of ["Endpoint", "Organization"])
    for (const name of NAMES) {
      test(`${type}?${name}=x is an unknown parameter: ignored, the same total as no parameter`, async () => {
        const all = await get(`/fhir/${type}?_summary=count`);
        expect(all.status).toBe(200);
        for (const path of [`${name}=x`, `${name}:exact=x`, `${name}=x&${name}=y`, `_include=${name}:x`]) {
          const one = await get(`/fhir/${type}?${path}&_summary=count`);
          if (path.startsWith("_include")) {
            expect(one.status).toBe(400);
            expect(one.body.resourceType).toBe("OperationOutcome");
          } else {
            expect(one.status).toBe(200);
            expect(one.body.total).toBe(all.body.total);
          }
        }
      });

      test(`${type}?${name}=x under Prefer: handling=strict is a 400 naming it`, async () => {
        const { status, body } = await get(`/fhir/${type}?${name}=x`, { headers: { prefer: "handling=strict" } });
        expect(status).toBe(400);
        expect(body.resourceType).toBe("OperationOutcome");
        expect(JSON.stringify(body)).toContain(name);
      });

      test(`POST ${type}/_search with ${name} in the form body is ignored`, async () => {
        const all = await get(`/fhir/${type}?_summary=count`);
        const { status, body } = await get(`/fhir/${type}/_search`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `${name}=x&_summary=count`,
        });
        expect(status).toBe(200);
        expect(body.total).toBe(all.body.total);
      });
    }
});

describe("object property names as JSON API query parameters", () => {
  for (const name of NAMES)
    for (const path of ["/api/v1/endpoints", "/api/v1/vendors", "/api/v1/stats", "/api/v1/export?format=csv&"])
      test(`${path}${path.includes("?") ? "" : "?"}${name}=x is 400 VALIDATION_ERROR naming it`, async () => {
        const { status, body } = await get(`${path}${path.includes("?") ? "" : "?"}${name}=x`);
        expect(status).toBe(400);
        const error = body.error as { code: string; message: string };
        expect(error.code).toBe("VALIDATION_ERROR");
        expect(error.message).toContain(name);
      });
});
