import { describe, expect, test } from "bun:test";
import { messageFor, type Problem, problemOf, retryAfterSeconds } from "../../../src/server/web/client/api";
import { Pacer } from "../../../src/server/web/client/pacer";
import { newestFirst, uptimeText } from "../../../src/server/web/client/rows";
import {
  emptyFilters,
  exportUrl,
  listUrl,
  normaliseFilter,
  pageUrl,
  parseState,
  readBox,
  sortsFor,
} from "../../../src/server/web/client/state";

describe("the address bar and the search it carries", () => {
  test("a shared link reads back into the same state and the same address", () => {
    const state = parseState("?query=mercy&state=OH&page=2");
    expect(state.filters).toEqual({ ...emptyFilters(), query: "mercy", state: "OH" });
    expect(state.page).toBe(2);
    expect(state.id).toBeNull();
    expect(pageUrl(state)).toBe("/?query=mercy&state=OH&page=2");
    // A typed name is searched by relevance; the address bar keeps the filters alone.
    expect(listUrl(state)).toBe("/api/v1/endpoints?query=mercy&state=OH&page=2&sort=relevance");
    expect(listUrl(parseState("?query=%2A%2A&state=OH"))).toBe("/api/v1/endpoints?query=**&state=OH");
    expect(listUrl(parseState("?state=OH"))).toBe("/api/v1/endpoints?state=OH");
  });

  test("the kind of publisher (EHR developer or health plan) is carried like the other filters", () => {
    const state = parseState("?kind=payer&state=OH");
    expect(state.filters).toEqual({ ...emptyFilters(), kind: "payer", state: "OH" });
    expect(pageUrl(state)).toBe("/?kind=payer&state=OH");
    expect(listUrl(state)).toBe("/api/v1/endpoints?kind=payer&state=OH");
    expect(exportUrl(state, "csv")).toBe("/api/v1/export?format=csv&kind=payer&state=OH");
  });

  test("defaults are left out; the detail's id is kept in the page address, not in the list request", () => {
    expect(pageUrl(parseState(""))).toBe("/");
    expect(listUrl(parseState("?page=1"))).toBe("/api/v1/endpoints");
    const state = parseState("?vendor=epic&id=abc");
    expect(pageUrl(state)).toBe("/?vendor=epic&id=abc");
    expect(listUrl(state)).toBe("/api/v1/endpoints?vendor=epic");
  });

  test("values are sent as the API spells them; odd pages fall back to a valid one", () => {
    expect(normaliseFilter("query", "  mass   gen ")).toBe("mass gen");
    expect(normaliseFilter("hasResource", " patient ,, Observation,")).toBe("Patient,Observation");
    expect(normaliseFilter("state", "oh")).toBe("OH");
    expect(normaliseFilter("fhirVersion", "r4b")).toBe("R4B");
    expect(parseState("?page=abc").page).toBe(1);
    expect(parseState("?page=0").page).toBe(1);
    expect(parseState("?page=5000").page).toBe(1000);
    // Characters that mean something in a URL survive the round trip.
    const odd = parseState(`?query=${encodeURIComponent("O'Brien & Sons #1")}`);
    expect(parseState(pageUrl(odd).slice(1)).filters.query).toBe("O'Brien & Sons #1");
  });
});

describe("the one search box", () => {
  test("reads an NPI, a ZIP, a URL, a host or a name, as a person means them", () => {
    expect(readBox("1234567893")).toEqual({ kind: "npi", value: "1234567893" });
    expect(readBox("near 44195")).toEqual({ kind: "near", value: "44195" });
    expect(readBox("NEAR 44195-1234")).toEqual({ kind: "near", value: "44195" });
    expect(readBox("44195")).toEqual({ kind: "near", value: "44195" });
    expect(readBox("https://fhir.epic.com/api/FHIR/R4/")).toEqual({
      kind: "url",
      value: "https://fhir.epic.com/api/FHIR/R4/",
    });
    expect(readBox("Epic.com")).toEqual({ kind: "host", value: "epic.com" });
    expect(readBox("fhir.cleveland-clinic.org")).toEqual({ kind: "host", value: "fhir.cleveland-clinic.org" });
    // Names, even with dots or digits in them, stay names.
    for (const name of ["St. Mary's", "mercy hospital", "Clinic 21", "123456789", "Dr.Smith Clinic", "1.5"])
      expect(readBox(name).kind).toBe("query");
  });

  test("the list, its order and the download ask for what the box was read as", () => {
    expect(listUrl(parseState("?query=1234567893"))).toBe("/api/v1/endpoints?npi=1234567893");
    expect(listUrl(parseState("?query=epic.com&state=OH"))).toBe("/api/v1/endpoints?host=epic.com&state=OH");
    const near = parseState("?query=near%2044195");
    expect(listUrl(near)).toBe("/api/v1/endpoints?near=44195");
    expect(sortsFor(near)).toEqual(["name", "distance"]);
    expect(listUrl({ ...near, sort: "name" })).toBe("/api/v1/endpoints?near=44195&sort=name");
    expect(pageUrl({ ...near, sort: "name" })).toBe("/?query=near+44195&sort=name");
    expect(sortsFor(parseState("?query=mercy"))).toEqual(["relevance", "name"]);
    expect(listUrl(parseState("?query=mercy&sort=name"))).toBe("/api/v1/endpoints?query=mercy&sort=name");
    // An order the search cannot have is left out.
    expect(listUrl(parseState("?state=OH&sort=distance"))).toBe("/api/v1/endpoints?state=OH");
    expect(exportUrl(near, "csv")).toBe("/api/v1/export?format=csv&near=44195");
  });
});

describe("explaining a failed request", () => {
  test("Retry-After in seconds or as a date", () => {
    expect(retryAfterSeconds("42")).toBe(42);
    expect(retryAfterSeconds("Wed, 25 Nov 2026 12:01:00 GMT", Date.parse("2026-11-25T12:00:30Z"))).toBe(30);
    expect(retryAfterSeconds(null)).toBeNull();
    expect(retryAfterSeconds("soon")).toBeNull();
  });

  test("each kind of failure has its own plain message", () => {
    const problem = (status: number, message?: string, retryAfter: string | null = null): Problem =>
      problemOf(status, message ? { success: false, error: { code: "X", message } } : null, retryAfter);
    expect(messageFor(problem(429, "x", "17"), "search")).toBe(
      "Too many requests from this address for now. Please wait 17 seconds; the page tries again then.",
    );
    expect(messageFor(problem(429, "x", "1"), "search")).toContain("wait 1 second;");
    expect(messageFor(problem(400, "limit: must be a whole number from 1 to 100"), "search")).toBe(
      "The server did not accept this search: limit: must be a whole number from 1 to 100",
    );
    expect(messageFor(problem(404, "No endpoint has this id"), "endpoint")).toStartWith("No endpoint has this id.");
    expect(messageFor(problem(503), "search")).toBe(
      "The server could not answer (error 503). Please try again in a moment.",
    );
    expect(
      messageFor({ kind: "offline", status: null, code: null, detail: null, retryAfter: null }, "search"),
    ).toStartWith("The server cannot be reached.");
  });
});

describe("as-you-type pacing", () => {
  test("at most 30 searches in any minute; the 31st waits for the oldest to leave the window", () => {
    const pacer = new Pacer();
    for (let i = 0; i < 30; i++) {
      expect(pacer.delay(i * 100)).toBe(0);
      pacer.record(i * 100);
    }
    expect(pacer.delay(3_000)).toBe(57_000);
    expect(pacer.delay(59_950)).toBe(50);
    expect(pacer.delay(60_000)).toBe(0);
  });
});

describe("what a row and a record say", () => {
  const probe = (outcome: string) => ({
    at: "2026-11-03T04:00:00Z",
    outcome,
    httpStatus: 200,
    responseTimeMs: 90,
    error: null,
  });

  test("uptime from one or two probes is said as the probes, not a percentage", () => {
    expect(uptimeText(1, [probe("success")])).toBe("1 probe, up");
    expect(uptimeText(0, [probe("failed")])).toBe("1 probe, down");
    expect(uptimeText(0.5, [probe("success"), probe("failed")])).toBe("2 probes, 1 up");
    expect(uptimeText(1, [probe("success"), probe("success"), probe("success")])).toBe("100.00 %");
    expect(uptimeText(null, [probe("success")])).toBe("no probes");
  });

  test("one organization's servers, newest FHIR version first; other rows keep their order", () => {
    const row = (vendorId: string, organizationName: string | null, fhirVersion: string) => ({
      vendorId,
      organizationName,
      fhirVersion,
    });
    const rows = [
      row("epic", "Cleveland Clinic", "DSTU2"),
      row("epic", "Cleveland Clinic", "R4"),
      row("epic", "Cleveland Clinic", "STU3"),
      row("oracle-health", "Cleveland Clinic", "DSTU2"),
      row("epic", null, "DSTU2"),
      row("epic", null, "R4"),
    ];
    expect(newestFirst(rows).map(({ index }) => index)).toEqual([1, 2, 0, 3, 4, 5]);
  });
});
