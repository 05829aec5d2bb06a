/**
 * Every answer under /fhir is FHIR: the errors the HTTP plumbing answers (no such path, a method
 * a path does not take, a bad API key, the rate limit) are OperationOutcomes with the issue type
 * of their kind, the status and headers they have in the JSON API, and the FHIR media type.
 * Through a real server on 127.0.0.1; each outcome checked against the FHIR R4 JSON schema.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ValidateFunction } from "ajv";
import { fixtureApp } from "../../support/fixture";
import { fhirValidator } from "../export/fhir-schema";

interface Outcome {
  resourceType: string;
  issue: { severity: string; code: string; diagnostics: string }[];
}

let validate: ValidateFunction;
const servers: { stop(): Promise<void>; origin: string }[] = [];

/** A fixture app listening on 127.0.0.1 with this environment. */
function serve(env: Record<string, string>) {
  const { app, db } = fixtureApp({ LOG_LEVEL: "error", ...env });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  const server = {
    origin: `http://127.0.0.1:${app.server!.port}`,
    async stop() {
      await app.stop(true);
      app.directory.close();
      db.sqlite.close();
    },
  };
  servers.push(server);
  return server;
}

beforeAll(async () => {
  validate = await fhirValidator("ResourceList", ["OperationOutcome"]);
});

afterAll(async () => {
  for (const server of servers) await server.stop();
});

/** The answer's OperationOutcome, checked: FHIR media type, valid R4, one error issue of `code`; CORS and a request id. */
async function expectOutcome(response: Response, status: number, code: string): Promise<Outcome> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/fhir+json; fhirVersion=4.0");
  expect(response.headers.get("access-control-allow-origin")).toBe("*");
  expect(response.headers.get("x-request-id")).toBeTruthy();
  const outcome = (await response.json()) as Outcome;
  if (!validate(outcome)) throw new Error(`not a valid OperationOutcome: ${JSON.stringify(validate.errors)}`);
  expect(outcome.resourceType).toBe("OperationOutcome");
  expect(outcome.issue).toHaveLength(1);
  expect(outcome.issue[0]!.severity).toBe("error");
  expect(outcome.issue[0]!.code).toBe(code);
  expect(outcome.issue[0]!.diagnostics.length).toBeGreaterThan(0);
  return outcome;
}

describe("errors under /fhir are OperationOutcomes", () => {
  test("a path no FHIR interaction has: 404 not-found (the base, an empty type, history)", async () => {
    const { origin } = serve({ RATE_LIMIT_MAX: "0" });
    for (const path of ["/fhir", "/fhir/", "/fhir//Endpoint", "/fhir/Endpoint/x/_history", "/fhir/Endpoint/x/y/z"])
      await expectOutcome(await fetch(`${origin}${path}`), 404, "not-found");
    // The JSON API keeps its envelope.
    const json = await fetch(`${origin}/api/v1/nothing`);
    expect(json.status).toBe(404);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  });

  test("a method the path does not take: 405 not-supported, with Allow", async () => {
    const { origin } = serve({ RATE_LIMIT_MAX: "0" });
    for (const [method, path] of [
      ["DELETE", "/fhir/Endpoint"],
      ["PUT", "/fhir/Organization/developer-epic"],
      ["POST", "/fhir/metadata"],
    ] as const) {
      const response = await fetch(`${origin}${path}`, { method });
      expect(response.headers.get("allow")).toContain("GET");
      await expectOutcome(response, 405, "not-supported");
    }
  });

  test("an unknown API key: 401 login, with WWW-Authenticate", async () => {
    const { origin } = serve({ RATE_LIMIT_MAX: "0" });
    const sent: Record<string, string>[] = [{ "x-api-key": "not-a-key" }, { authorization: "Bearer not-a-key" }];
    for (const headers of sent) {
      const response = await fetch(`${origin}/fhir/Endpoint?_count=1`, { headers });
      expect(response.headers.get("www-authenticate")).toStartWith("Bearer ");
      await expectOutcome(response, 401, "login");
    }
  });

  test("over the rate limit: 429 throttled, with Retry-After and the RateLimit headers", async () => {
    const { origin } = serve({ RATE_LIMIT_MAX: "2" });
    for (let i = 0; i < 2; i++) expect((await fetch(`${origin}/fhir/metadata`)).status).toBe(200);
    const response = await fetch(`${origin}/fhir/Organization?name=health`);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(response.headers.get("ratelimit-remaining")).toBe("0");
    await expectOutcome(response, 429, "throttled");
  });
});
