/**
 * A /fhir search is bounded as a whole: its work is counted before it is done (in work units,
 * src/model/request-caps.ts WORK), and a search over the budget is a 400 `too-costly` naming
 * its costliest parameter, answered without doing that work; a search within it is answered
 * as before. Through a real server on 127.0.0.1 over a generated dataset of 40,000 entries
 * (the budget is set for 1M: a request made of 40 parameters at their caps exceeds it here).
 */
import { describe, expect, test } from "bun:test";
import { REQUEST_CAPS, WORK } from "../../../src/model/request-caps";
import { fhirIndexOf } from "../../../src/server/fhir/fhir-index";
import { searchCost } from "../../../src/server/fhir/search-cost";
import { parseSearch, type ResourceType } from "../../../src/server/fhir/search-params";
import { appOnGeneratedDataset } from "../../support/generated-app";

const live = appOnGeneratedDataset({ endpoints: 40_000, seed: 8 }, { listen: true });

interface Answer {
  resourceType: string;
  total?: number;
  issue?: { code: string; diagnostics: string }[];
}

async function fhir(path: string, init?: RequestInit) {
  const response = await fetch(`${live.origin}/fhir${path}`, init);
  return { status: response.status, body: (await response.json()) as Answer };
}

const digits = "1 2 3 4 5 6 7 8 9 0".split(" ");
/** Ten alternatives of ten one-digit words, each a rotation of the digits. */
const digitWords = Array.from({ length: REQUEST_CAPS.alternatives }, (_, i) =>
  [...digits.slice(i), ...digits.slice(0, i)].join(" "),
).join(",");
const TRIGRAMS = ["ing", "ent", "ter", "ica", "cal", "ard", "the", "and", "ion", "ers"];
const PREFIXES = ["ab", "cd", "ef", "gh", "me", "ce", "st", "ho", "pa", "sa"];
const NPI = encodeURIComponent("http://hl7.org/fhir/sid/us-npi|");

/**
 * The costly search of 40 parameters: each of the costliest parameters four times at its caps
 * (`address-postalcode` with ten alternatives of ten one-digit words, `name:contains` with
 * common trigrams, `identifier` with the bare NPI system, `name` with two-letter prefixes,
 * `_lastUpdated`, `address-city`, `address-state`, `address-postalcode:contains`, `name:exact`,
 * `address-city:contains`), each repetition different so that none is searched once for all.
 */
function costlySearch(): string {
  const parts: string[] = [];
  for (let r = 0; r < REQUEST_CAPS.repeats; r++) {
    // Ten alternatives; after the first time, the last one replaced, so each is searched.
    const vary = (values: string[], other: string) =>
      (r === 0 ? values : [...values.slice(0, REQUEST_CAPS.alternatives - 1), `${other}${r}`]).join(",");
    parts.push(`address-postalcode=${encodeURIComponent(vary(digitWords.split(","), "9 "))}`);
    parts.push(`name:contains=${vary(TRIGRAMS, "x")}`);
    parts.push(`identifier=${NPI},${r}`);
    parts.push(`name=${vary(PREFIXES, "q")}`);
    parts.push(`_lastUpdated=gt202${r}-01-01`);
    parts.push(`address-city=${vary(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"], "z")}`);
    parts.push(`address-state=${vary(["a", "c", "n", "m", "t", "o", "i", "w", "k", "v"], "y")}`);
    parts.push(`address-postalcode:contains=${vary(digits, "0")}`);
    parts.push(`name:exact=${vary(PREFIXES, "w")}`);
    parts.push(`address-city:contains=${vary(["an", "on", "er", "es", "in", "ar", "or", "le", "ch", "ll"], "v")}`);
  }
  expect(parts.length).toBe(REQUEST_CAPS.parameters);
  return parts.join("&");
}

describe("/fhir: the work of a whole search is bounded", () => {
  test("40 costly parameters at their caps: 400 too-costly naming the costliest, before the work", async () => {
    const cpu = process.cpuUsage();
    const { status, body } = await fhir(`/Organization?${costlySearch()}`);
    const used = process.cpuUsage(cpu);
    expect(status).toBe(400);
    expect(body.resourceType).toBe("OperationOutcome");
    expect(body.issue![0]!.code).toBe("too-costly");
    expect(body.issue![0]!.diagnostics).toMatch(/times the work one request may do; [a-z:-]+ alone asks for \d+ %/);
    // The same by POST, where the parameters come in a form body.
    const posted = await fhir("/Organization/_search", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: costlySearch(),
    });
    expect(posted.status).toBe(400);
    expect(posted.body.issue![0]!.code).toBe("too-costly");
    // Refused from the index sizes: the server (in this process) did not do the searches'
    // work (some seconds of CPU before the budget), only built its substring indexes once.
    expect((used.user + used.system) / 1000).toBeLessThan(15_000);
  }, 60_000);

  test("each of its parameters alone, at its caps, is within the budget and answered", async () => {
    for (const part of costlySearch().split("&").slice(0, 10)) {
      const { status, body } = await fhir(`/Organization?${part}&_summary=count`);
      expect({ part, status }).toEqual({ part, status: 200 });
      expect(body.resourceType).toBe("Bundle");
    }
  }, 60_000);

  test("a page of 500 with its includes is within the budget; a cheap search is answered as before", async () => {
    const page = await fhir("/Organization?name=me&_include=Organization:endpoint&_count=500");
    expect(page.status).toBe(200);
    const cheap = await fhir("/Endpoint?status=active&_count=1");
    expect(cheap.status).toBe(200);
    expect(cheap.body.total).toBeGreaterThan(0);
  }, 60_000);
});

describe("/fhir: ordinary broad searches are within the budget", () => {
  /** The dataset's entries: costs grow with the tables, as many times over at 1M entries. */
  const ENTRIES = 50_000;
  const ORDINARY: [ResourceType, string][] = [
    ["Endpoint", "address=https://fhir&status=active"],
    ["Endpoint", "address=https://fhir"],
    ["Endpoint", "address=https"],
    ["Endpoint", "address=https://&_count=100"],
    ["Endpoint", "status=active"],
    ["Endpoint", "fhir-version=4.0.1&status=active"],
    ["Organization", "name=a"],
    ["Organization", "name=s&address-state=CA"],
  ];

  test("a URL prefix, a status, a version, one letter of a name: answered, and within the budget at 1M entries", async () => {
    const index = await fhirIndexOf(live.app.directory.current);
    for (const [type, query] of ORDINARY) {
      const { status, body } = await fhir(`/${type}?${query}`);
      expect([query, status, body.resourceType]).toEqual([query, 200, "Bundle"]);
      const request = parseSearch(type, [...new URLSearchParams(query)], false);
      const cost = searchCost(index, request)!;
      // Counted from the sizes of what it reads, 20 times these at 1M entries, and the page's.
      const page = request.count * WORK.resource;
      const atMillion = (cost.total - page) * (1_000_000 / ENTRIES) + page;
      expect([query, atMillion <= WORK.budget]).toEqual([query, true]);
    }
  });
});
