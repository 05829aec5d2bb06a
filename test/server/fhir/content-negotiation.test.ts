/**
 * /fhir content negotiation over real HTTP (FHIR R4 http.html): `_format` and `Accept` follow
 * one rule. JSON types and wildcards are answered with FHIR JSON; a list with a JSON type
 * anywhere (any q above 0) gets JSON; a request allowing no JSON is 406 with an
 * OperationOutcome, whether `_format` or `Accept` said so; `_format` overrides `Accept`. A kept
 * answer (served before routing) obeys the same rule.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "fhir-kit-client";
import { fixtureApp } from "../../support/fixture";

const { app, db } = fixtureApp();
let base: string;

beforeAll(() => {
  app.listen({ port: 0, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${app.server!.port}/fhir`;
});

afterAll(async () => {
  await app.stop(true);
  app.directory.close();
  db.sqlite.close();
});

async function ask(path: string, accept?: string) {
  const response = await fetch(`${base}${path}`, accept === undefined ? {} : { headers: { accept } });
  const body = (await response.json()) as { resourceType: string; issue?: { code: string; diagnostics: string }[] };
  expect(response.headers.get("content-type")).toBe("application/fhir+json; fhirVersion=4.0");
  return { status: response.status, body };
}

const PATHS = ["/metadata", "/Endpoint?_count=2", "/Organization?_count=2"];

describe("/fhir content negotiation", () => {
  test("JSON types, wildcards and q-valued lists with an acceptable JSON type are answered with FHIR JSON", async () => {
    for (const accept of [
      undefined,
      "",
      "application/fhir+json",
      "application/fhir+json; fhirVersion=4.0",
      "application/json",
      "application/json+fhir",
      "*/*",
      "application/*",
      "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
      "application/fhir+xml;q=1, application/fhir+json;q=0.5",
    ])
      for (const path of PATHS) {
        const { status, body } = await ask(path, accept);
        expect([path, accept, status]).toEqual([path, accept, 200]);
        expect(body.resourceType).not.toBe("OperationOutcome");
      }
  });

  test("an Accept allowing no FHIR R4 JSON is 406, as _format=xml is, kept answers included", async () => {
    for (const path of PATHS) {
      // Twice: the second request of a URL may be served from the kept answer of the first.
      await ask(path);
      for (const accept of [
        "application/fhir+xml",
        "application/xml, text/turtle",
        "application/fhir+json;q=0",
        "application/fhir+json; fhirVersion=3.0",
        "text/html",
      ]) {
        const { status, body } = await ask(path, accept);
        expect([path, accept, status]).toEqual([path, accept, 406]);
        expect(body.resourceType).toBe("OperationOutcome");
        expect(body.issue![0]!.code).toBe("not-supported");
      }
      const format = await ask(`${path}${path.includes("?") ? "&" : "?"}_format=xml`);
      expect(format.status).toBe(406);
      expect(format.body.issue![0]!.diagnostics).toContain("_format");
    }
    const read = await ask("/Organization/developer-epic", "application/fhir+xml");
    expect(read.status).toBe(406);
  });

  test("_format overrides Accept, both ways", async () => {
    expect((await ask("/Endpoint?_count=2&_format=json", "application/fhir+xml")).status).toBe(200);
    expect((await ask("/metadata?_format=application/fhir%2Bjson", "application/fhir+xml")).status).toBe(200);
    expect((await ask("/Endpoint?_count=2&_format=xml", "application/fhir+json")).status).toBe(406);
    const form = await fetch(`${base}/Endpoint/_search`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/fhir+xml" },
      body: "_count=1&_format=json",
    });
    expect(form.status).toBe(200);
  });

  test("a FHIR client (fhir-kit-client) asking for XML gets a 406 OperationOutcome", async () => {
    const client = new Client({ baseUrl: base, customHeaders: { accept: "application/fhir+xml" } });
    const failure = await client.search({ resourceType: "Endpoint", searchParams: { _count: "1" } }).then(
      () => null,
      (error: { response: { status: number } }) => error.response.status,
    );
    expect(failure).toBe(406);
    const json = new Client({ baseUrl: base });
    const bundle = (await json.search({ resourceType: "Endpoint", searchParams: { _count: "1" } })) as unknown as {
      type: string;
    };
    expect(bundle.type).toBe("searchset");
  });
});
