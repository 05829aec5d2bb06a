/**
 * Every request is bounded: beyond the request caps (src/model/request-caps.ts) /fhir answers
 * 400 `too-costly` and the JSON API 400 VALIDATION_ERROR; duplicate values are searched once;
 * POSTed form bodies are capped and read as strictly as a URL's query. And the substring index
 * the caps rely on answers as a scan of every string would. Through a real server on 127.0.0.1
 * over a generated dataset.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { request as httpRequest } from "node:http";
import { foldText, words } from "../../../src/directory/text";
import { REQUEST_CAPS } from "../../../src/model/request-caps";
import { appOnGeneratedDataset } from "../../support/generated-app";
import { exportText, type FhirBundle } from "../export/helpers";

interface Outcome {
  resourceType: string;
  issue: { severity: string; code: string; diagnostics: string }[];
}
interface Bundle {
  resourceType: string;
  total?: number;
  link: { relation: string; url: string }[];
  entry?: { resource: { resourceType: string; id: string }; search: { mode: string } }[];
}
type Resource = FhirBundle["entry"] extends (infer E)[] | undefined
  ? E extends { resource: infer R }
    ? R
    : never
  : never;

/** Every resource of the FHIR export (developers included): what a scan of every string would search. */
let organizations: Resource[];
let endpoints: Resource[];

const live = appOnGeneratedDataset({ endpoints: 2_500, seed: 7 }, { listen: true });

beforeAll(async () => {
  const bundle = JSON.parse((await exportText(live.app, "format=fhir")).text) as FhirBundle;
  const resources = (bundle.entry ?? []).map((entry) => entry.resource);
  organizations = resources.filter((r) => r.resourceType === "Organization");
  endpoints = resources.filter((r) => r.resourceType === "Endpoint");
});

async function fhir(path: string, init?: RequestInit) {
  const response = await fetch(`${live.origin}/fhir${path}`, init);
  return { response, body: (await response.json()) as Bundle & Outcome };
}

/** A 400 OperationOutcome `too-costly` naming the parameter, in the FHIR media type. */
async function expectTooCostly(path: string, init?: RequestInit, mentions?: string) {
  const { response, body } = await fhir(path, init);
  expect(response.status).toBe(400);
  expect(response.headers.get("content-type")).toStartWith("application/fhir+json");
  expect(body.resourceType).toBe("OperationOutcome");
  expect(body.issue[0]!.code).toBe("too-costly");
  if (mentions !== undefined) expect(body.issue[0]!.diagnostics).toContain(mentions);
}

/** Every id a search matches, following next links. */
async function matchIds(path: string, init?: RequestInit): Promise<string[]> {
  const ids: string[] = [];
  let next: string | undefined = `${live.origin}/fhir${path}${path.includes("?") ? "&" : "?"}_count=500`;
  let first = true;
  while (next !== undefined) {
    const response = await fetch(next, first ? init : undefined);
    first = false;
    expect(response.status).toBe(200);
    const bundle = (await response.json()) as Bundle;
    for (const entry of bundle.entry ?? []) if (entry.search.mode === "match") ids.push(entry.resource.id);
    next = bundle.link.find((link) => link.relation === "next")?.url;
  }
  return ids.sort();
}

const letters = (count: number) =>
  Array.from({ length: count }, (_, i) => String.fromCharCode(97 + (i % 26)).repeat(1 + Math.floor(i / 26)));

describe("/fhir beyond the request caps: 400 too-costly", () => {
  test("more distinct comma alternatives than the cap, in every kind of parameter", async () => {
    const many = letters(REQUEST_CAPS.alternatives + 1).join(",");
    for (const path of [
      `/Organization?name:contains=${many}`,
      `/Organization?name=${many}`,
      `/Organization?identifier=${Array.from({ length: REQUEST_CAPS.alternatives + 1 }, (_, i) => 1234567890 + i).join(",")}`,
      `/Endpoint?address:contains=${many}`,
      `/Endpoint?status=${many}`,
      `/Endpoint?fhir-version=${many}`,
      `/Endpoint?_lastUpdated=${Array.from({ length: REQUEST_CAPS.alternatives + 1 }, (_, i) => `gt20${10 + i}`).join(",")}`,
    ])
      await expectTooCostly(path, undefined, "distinct comma-separated values");
  });

  test("a value longer than the cap, a parameter given too often, too many parameters, too many words", async () => {
    await expectTooCostly(
      `/Organization?name:contains=${"a".repeat(REQUEST_CAPS.valueChars + 1)}`,
      undefined,
      "characters",
    );
    const repeated = Array.from({ length: REQUEST_CAPS.repeats + 1 }, (_, i) => `_lastUpdated=gt20${10 + i}`).join("&");
    await expectTooCostly(`/Endpoint?${repeated}`, undefined, "times");
    const parameters = Array.from({ length: REQUEST_CAPS.parameters + 1 }, (_, i) => `unknown${i}=x`).join("&");
    await expectTooCostly(`/Organization?${parameters}`, undefined, "parameters");
    await expectTooCostly(`/Organization?name=${letters(REQUEST_CAPS.words + 1).join("%20")}`, undefined, "words");
  });

  test("the caps hold for a POSTed form body too", async () => {
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const many = letters(REQUEST_CAPS.alternatives + 1).join(",");
    await expectTooCostly("/Organization/_search", { method: "POST", headers: form, body: `name:contains=${many}` });
  });

  test("at the caps a search is answered", async () => {
    const atCap = letters(REQUEST_CAPS.alternatives).join(",");
    const { response } = await fhir(`/Organization?name:contains=${atCap}&_count=1`);
    expect(response.status).toBe(200);
  });
});

describe("duplicates are searched once", () => {
  test("repeated alternatives and repeated parameters: the single value's matches, and links that name it once", async () => {
    const single = await fhir("/Organization?name:contains=health&_count=5");
    const repeated = Array.from({ length: 300 }, () => "health").join(",");
    const many = await fhir(`/Organization?name:contains=${repeated}&name:contains=health&_count=5`);
    expect(many.response.status).toBe(200);
    expect(many.body.total).toBe(single.body.total!);
    expect(many.body.entry!.map((e) => e.resource.id)).toEqual(single.body.entry!.map((e) => e.resource.id));
    // The search ran with one value, as its self link says.
    const self = new URL(many.body.link.find((link) => link.relation === "self")!.url);
    expect(self.searchParams.getAll("name:contains")).toEqual(["health"]);
  });

  test("duplicate NPIs beyond the cap count once: the answer is the single NPI's", async () => {
    const npi = (organizations.find((o) => o.identifier !== undefined)!.identifier as { value: string }[])[0]!.value;
    const once = await matchIds(`/Organization?identifier=${npi}`);
    expect(once.length).toBeGreaterThan(0);
    const repeated = Array.from({ length: REQUEST_CAPS.alternatives * 5 }, () => npi).join(",");
    expect(await matchIds(`/Organization?identifier=${repeated}`)).toEqual(once);
  });
});

describe("POST _search bodies", () => {
  const form = { "content-type": "application/x-www-form-urlencoded" };

  test("a body over the cap is refused with 413 too-costly, by its Content-Length or as it arrives", async () => {
    const big = `name=${"a".repeat(REQUEST_CAPS.formBodyBytes)}`;
    const declared = await fhir("/Organization/_search", { method: "POST", headers: form, body: big });
    expect(declared.response.status).toBe(413);
    expect(declared.body.issue[0]!.code).toBe("too-costly");
    // Chunked, without a Content-Length: refused once the cap is passed.
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(
        `${live.origin}/fhir/Organization/_search`,
        { method: "POST", headers: { ...form, "transfer-encoding": "chunked" } },
        (response) => {
          let body = "";
          response.on("data", (chunk) => {
            body += chunk;
          });
          response.on("end", () => resolve({ status: response.statusCode!, body }));
        },
      );
      request.on("error", reject);
      for (let i = 0; i < 8; i++) request.write(`name=${"b".repeat(REQUEST_CAPS.formBodyBytes / 4)}&`);
      request.end();
    });
    expect(chunked.status).toBe(413);
    expect((JSON.parse(chunked.body) as Outcome).issue[0]!.code).toBe("too-costly");
  });

  test("malformed percent-encoding is a 400 by POST as by GET; a body within the cap is searched as the URL would be", async () => {
    const get = await fhir("/Organization?name=%zz");
    expect(get.response.status).toBe(400);
    expect(get.body.issue[0]!.code).toBe("invalid");
    const post = await fhir("/Organization/_search", { method: "POST", headers: form, body: "name=%zz" });
    expect(post.response.status).toBe(400);
    expect(post.body.issue[0]!.code).toBe("invalid");
    expect(post.body.issue[0]!.diagnostics).toContain("percent-encoding");
    expect(await matchIds("/Organization/_search", { method: "POST", headers: form, body: "name=health" })).toEqual(
      await matchIds("/Organization?name=health"),
    );
  });
});

describe("the substring index answers as a scan of every string would", () => {
  const fold = (text: string) => foldText(text);
  const orgName = (o: Resource) => (o.name as string | undefined) ?? null;
  const address = (o: Resource) => (o.address as { city?: string; postalCode?: string }[] | undefined)?.[0];
  const startsWords = (field: string, value: string) => {
    const have = words(field);
    return words(value).every((word) => have.some((w) => w.startsWith(word)));
  };
  const expected = (
    resources: Resource[],
    field: (r: Resource) => string | null | undefined,
    test: (f: string) => boolean,
  ) =>
    resources
      .filter((r) => {
        const value = field(r);
        return value != null && test(value);
      })
      .map((r) => r.id)
      .sort();

  test("name:contains, name:exact, address-city, address-postalcode (each rule), over many values", async () => {
    const names = organizations.map(orgName).filter((name): name is string => name !== null);
    // Values from the data itself (pieces of names, whole names, ZIP prefixes) and a few that match nothing.
    const pieces = [
      "a",
      "é",
      "he",
      "ent",
      "medi",
      "health ",
      " of",
      "zzq",
      names[3]!.slice(2, 9),
      names[10]!.slice(0, 4),
    ];
    for (const value of pieces) {
      const want = expected(organizations, orgName, (name) => fold(name).includes(fold(value)));
      expect(await matchIds(`/Organization?name:contains=${encodeURIComponent(value)}`)).toEqual(want);
    }
    for (const value of [names[5]!, names[5]!.toUpperCase(), "x"]) {
      const want = expected(organizations, orgName, (name) => name === value);
      expect(await matchIds(`/Organization?name:exact=${encodeURIComponent(value)}`)).toEqual(want);
    }
    const zips = organizations.map((o) => address(o)?.postalCode).filter((zip): zip is string => zip !== undefined);
    for (const value of ["0", "1", zips[0]!.slice(0, 2), zips[0]!.slice(1, 4), zips[7]!]) {
      const postalCode = (o: Resource) => address(o)?.postalCode;
      expect(await matchIds(`/Organization?address-postalcode=${value}`)).toEqual(
        expected(organizations, postalCode, (zip) => startsWords(zip, value)),
      );
      expect(await matchIds(`/Organization?address-postalcode:contains=${value}`)).toEqual(
        expected(organizations, postalCode, (zip) => zip.includes(value)),
      );
    }
    const city = (o: Resource) => address(o)?.city;
    for (const value of ["s", "san", "new y", "port"]) {
      expect(await matchIds(`/Organization?address-city=${encodeURIComponent(value)}`)).toEqual(
        expected(organizations, city, (c) => startsWords(c, value)),
      );
    }
  });

  test("Endpoint address: by prefix, :contains and :exact, several values at once", async () => {
    const url = (e: Resource) => e.address as string;
    const some = url(endpoints[4]!);
    const cases: [string, (u: string) => boolean][] = [
      ["address=https://fhir", (u) => u.toLowerCase().startsWith("https://fhir")],
      ["address=H", (u) => u.toLowerCase().startsWith("h")],
      [
        `address=${some.slice(0, 20).toUpperCase()}`,
        (u) => u.toLowerCase().startsWith(some.slice(0, 20).toLowerCase()),
      ],
      ["address:contains=r4,dstu2", (u) => u.toLowerCase().includes("r4") || u.toLowerCase().includes("dstu2")],
      ["address:contains=/", () => true],
      [`address:exact=${some}`, (u) => u === some],
      [`address:exact=${some.toUpperCase()}`, (u) => u === some.toUpperCase()],
    ];
    for (const [query, test] of cases)
      expect(await matchIds(`/Endpoint?${query.replace(/[^,=:/A-Za-z0-9.-]/g, encodeURIComponent)}`)).toEqual(
        expected(endpoints, url, test),
      );
  });
});

describe("the JSON API's caps", () => {
  test("query: more distinct words than the cap is a 400 naming the cap; repeated words count once", async () => {
    const tooMany = await fetch(`${live.origin}/api/v1/endpoints?query=${letters(REQUEST_CAPS.words + 1).join("%20")}`);
    expect(tooMany.status).toBe(400);
    const body = (await tooMany.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("VALIDATION_ERROR");
    expect(body.error.message).toContain(`at most ${REQUEST_CAPS.words} distinct words`);
    const repeated = await fetch(`${live.origin}/api/v1/endpoints?query=${Array(25).fill("health").join("%20")}`);
    expect(repeated.status).toBe(200);
    const exportTooMany = await fetch(
      `${live.origin}/api/v1/export?format=csv&query=${letters(REQUEST_CAPS.words + 1).join("%20")}`,
    );
    expect(exportTooMany.status).toBe(400);
  });

  test("whole numbers have one spelling: a leading zero is a 400, short or long, on every integer parameter", async () => {
    for (const query of ["since=05", "since=0000000005", "since=1&limit=010", "since=1&after=01"]) {
      const response = await fetch(`${live.origin}/api/v1/changes?${query}`);
      expect(response.status).toBe(400);
    }
    expect((await fetch(`${live.origin}/api/v1/changes?since=0`)).status).toBe(200);
    expect((await fetch(`${live.origin}/api/v1/endpoints?page=01`)).status).toBe(400);
    expect((await fhir("/Endpoint?_count=05")).response.status).toBe(400);
  });
});
