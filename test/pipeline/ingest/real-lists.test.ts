import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { normaliseEntries } from "../../../src/pipeline/ingest/normalise";
import { parseList } from "../../../src/pipeline/ingest/parsers";
import { VENDOR_LISTS } from "../../support/real-data";

function ingestable(file: string, vendorId: string) {
  const parsed = parseList(readFileSync(join(VENDOR_LISTS, file), "utf8"));
  return { parsed, ...normaliseEntries(parsed.entries, { vendorId, listFhirVersion: null }) };
}

/** The path segment after `/r4/`, read here by plain string handling. */
function segmentAfterR4(url: string): string {
  const rest = url.slice(url.indexOf("/r4/") + "/r4/".length);
  return rest.split("/")[0]!;
}

describe("real vendor lists (test/fixtures/real/vendor-lists)", () => {
  test("Oracle Millennium patient R4: 1,359 entries, 30 with an NPI, tenant = segment after /r4/", () => {
    const { parsed, entries } = ingestable("oracle-millennium-patient-r4.json", "oracle-health");
    expect(parsed.skipped).toBe(0);
    expect(entries).toHaveLength(1359);
    expect(entries.filter((e) => e.npi !== null)).toHaveLength(30);
    for (const entry of entries) expect(entry.tenantId).toBe(segmentAfterR4(entry.url));
    // The trap: this Endpoint's id has a '-' where its address has a '_'.
    expect(entries.some((e) => e.tenantId === "-c6Xwd-UlrvkHnaNj_A8a39Pa03efHEX")).toBe(true);
    expect(entries.some((e) => e.tenantId === "-c6Xwd-UlrvkHnaNj-A8a39Pa03efHEX")).toBe(false);
    expect(entries.every((e) => e.listFhirVersion === "R4")).toBe(true);
  });

  test("Oracle Millennium provider R4: 1,451 entries", () => {
    const { entries } = ingestable("oracle-millennium-provider-r4.json", "oracle-health");
    expect(entries).toHaveLength(1451);
    for (const entry of entries) expect(entry.tenantId).toBe(segmentAfterR4(entry.url));
  });

  test("Epic R4 (2021): 265 entries on 254 distinct URLs, no tenant", () => {
    const { parsed, entries } = ingestable("epic-r4-2021.json", "epic");
    expect(parsed.skipped).toBe(0);
    expect(entries).toHaveLength(265);
    expect(new Set(entries.map((e) => e.url)).size).toBe(254);
    expect(entries.every((e) => e.tenantId === null)).toBe(true);
    expect(entries.every((e) => e.organizationName !== null)).toBe(true);
    expect(entries.find((e) => e.organizationName === "Kaiser Permanente – Georgia")).toBeDefined();
  });

  test("eClinicalWorks (Lantern format): 2,541 entries, practice code as tenant", () => {
    const { entries } = ingestable("lantern-eclinicalworks.json", "eclinicalworks");
    expect(entries).toHaveLength(2541);
    for (const entry of entries) {
      expect(entry.url.startsWith("https://fhir4.eclinicalworks.com/fhir/r4/")).toBe(true);
      expect(entry.tenantId).toBe(entry.url.split("/").pop()!);
    }
    expect(entries.find((e) => e.url.endsWith("/DGIACA"))?.tenantId).toBe("DGIACA");
  });

  test("Oracle Soarian patient R4: 7 entries", () => {
    expect(ingestable("oracle-soarian-patient-r4.json", "oracle-health").entries).toHaveLength(7);
  });
});
