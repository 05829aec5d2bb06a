import { expect, test } from "bun:test";
import { formatSummaryTable } from "../../../src/pipeline/ingest/summary-table";
import type { ListSummary } from "../../../src/pipeline/ingest/types";

test("the ingest summary lists every URL repaired and every item dropped, with what was done or why", () => {
  const summary: ListSummary = {
    vendorId: "first-insight",
    listId: "first-insight-lantern",
    source: "bundled",
    ok: true,
    added: 2,
    updated: 0,
    unchanged: 0,
    removed: 0,
    skipped: 1,
    repairs: [
      {
        published: "api/eyesite/R4",
        url: "https://fhir.maximeyes.com/api/eyesite/R4",
        organizationName: "Howlin Vision Clinic, PC",
        repair: "relative path resolved against https://fhir.maximeyes.com",
        kind: "host-guessed",
      },
    ],
    dropped: [{ published: "https://h.example/\\fhir", organizationName: null, reason: "backslash in the URL" }],
    unusable: [],
    nameRepairs: [],
  };
  const lines = formatSummaryTable([summary]).split("\n");
  expect(lines[0]!.split(/\s+/)).toContain("repaired");
  expect(lines[2]!.split(/\s+/).slice(3, 10)).toEqual(["2", "0", "0", "0", "1", "1", "0"]);
  expect(lines).toContain(
    '  first-insight-lantern: "api/eyesite/R4" → https://fhir.maximeyes.com/api/eyesite/R4 (Howlin Vision Clinic, PC): host-guessed, relative path resolved against https://fhir.maximeyes.com',
  );
  expect(lines).toContain('  first-insight-lantern: "https://h.example/\\\\fhir" (no name): backslash in the URL');
});
