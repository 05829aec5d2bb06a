/**
 * The brands bundle of the national build (db/national/) shows one brand per practice: a
 * developer's organizations whose names differ only in letter case, punctuation or spacing and
 * that share an Endpoint, or an NPI and an address, are one brand, the other spellings its
 * aliases.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { createTestApp } from "../../support/app";
import { nationalDatabase } from "../../support/built-once";

interface Brand {
  resourceType: string;
  id: string;
  name?: string;
  alias?: string[];
  identifier?: { system: string; value: string }[];
  address?: { city?: string; state?: string; postalCode?: string }[];
  endpoint?: { reference: string }[];
  contact?: { value: string }[];
  text?: { status: string; div: string };
}

let dir: string;
let brands: Brand[];
let endpoints: Map<string, Brand>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "national-brands-"));
  const path = join(dir, "national.sqlite");
  await nationalDatabase(path);
  const app = createTestApp({
    db: openDatabase(path),
    config: loadConfig({ RATE_LIMIT_MAX: "0", LOG_LEVEL: "error", EXPORT_DIR: join(dir, "exports") }),
  });
  const bundle = (await (await app.handle(new Request("http://localhost/api/v1/brands"))).json()) as {
    entry: { resource: Brand }[];
  };
  app.directory.close();
  const resources = bundle.entry.map((e) => e.resource);
  endpoints = new Map(resources.filter((r) => r.resourceType === "Endpoint").map((r) => [r.id, r]));
  brands = resources.filter((r) => r.resourceType === "Organization" && !r.id.startsWith("developer-"));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A name without letter case, punctuation or spacing, written out here independently of the server. */
const fold = (name: string) =>
  name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");
/** A brand's developer: the page its Endpoints name as contact. */
const developerOf = (brand: Brand) =>
  endpoints.get(brand.endpoint![0]!.reference.slice("Endpoint/".length))?.contact?.[0]?.value ?? "";
const npiOf = (brand: Brand) => brand.identifier?.find((i) => i.system.endsWith("us-npi"))?.value ?? "";

const groups = (key: (brand: Brand) => string[]) => {
  const out = new Map<string, Brand[]>();
  for (const brand of brands) for (const k of key(brand)) out.set(k, [...(out.get(k) ?? []), brand]);
  return [...out.values()].filter((group) => group.length > 1);
};

describe("the national brands bundle: one brand per practice", () => {
  test("no two brands of a developer differ only in case, punctuation or spacing and share an Endpoint", () => {
    const shared = groups((b) => b.endpoint!.map((r) => `${developerOf(b)}\n${fold(b.name!)}\n${r.reference}`));
    expect(shared.map((group) => group.map((b) => b.name))).toEqual([]);
  });

  test("nor an NPI and an address", () => {
    const same = groups((b) => {
      const a = b.address?.[0] ?? {};
      return [`${developerOf(b)}\n${fold(b.name!)}\n${npiOf(b)}\n${a.city}\n${a.state}\n${a.postalCode}`];
    });
    expect(same.map((group) => group.map((b) => b.name))).toEqual([]);
  });

  test("the other spellings are the brand's aliases: Tribury Eye Care, Adult & Pediatric ENT, Center for Women's Health", () => {
    const byName = new Map(brands.map((b) => [b.name, b]));
    expect(byName.get("Tribury Eye Care")?.alias).toEqual(["Tribury Eyecare"]);
    expect(byName.has("Tribury Eyecare")).toBe(false);
    expect(byName.get("Adult & Pediatric Ear, Nose & Throat - Kalamazoo")?.alias).toEqual([
      "Adult & Pediatric Ear, Nose & Throat – Kalamazoo",
    ]);
    // athenahealth lists "ASSOCIATES IN DERMATOLOGY" and "Associates in Dermatology" at one URL:
    // one entry (an entry's id folds letter case), so one brand; MeldRx's is another developer's.
    const dermatology = brands.filter((b) => fold(b.name!) === "associatesindermatology");
    expect(dermatology.map((b) => [b.name, developerOf(b)])).toEqual([
      ["ASSOCIATES IN DERMATOLOGY", "https://docs.athenahealth.com/api/guides/base-fhir-urls"],
      ["Associates in Dermatology", "https://app.meldrx.com/api/Directories/fhir/endpoints"],
    ]);
    // Spellings that differ only in letter case are one organization, at two URLs: an alias too.
    expect(brands.filter((b) => b.alias?.includes("Piedmont HealthCare")).map((b) => b.name)).toEqual([
      "Piedmont Healthcare",
    ]);
    // Spellings that differ by an apostrophe, one developer's, at one URL.
    expect(byName.get("Center for Women's Health")?.alias).toEqual(["Center for Womens Health"]);
    expect(byName.has("Center for Womens Health")).toBe(false);
    const aliased = brands.filter((b) => b.alias !== undefined);
    expect(aliased.length).toBeGreaterThan(20);
    for (const brand of aliased) for (const alias of brand.alias!) expect(fold(alias)).toBe(fold(brand.name!));
  });

  test("one NPI on two brands: only Havasu Regional and Valley View Medical Center, each saying why", () => {
    const byNpi = groups((b) => (npiOf(b) === "" ? [] : [npiOf(b)])).filter(
      (group) => new Set(group.map((b) => fold(b.name!))).size > 1,
    );
    expect(byNpi.map((group) => group.map((b) => b.name).sort())).toEqual([
      ["Havasu Regional Medical Center", "Valley View Medical Center"],
    ]);
    // MEDHOST's list gives both hospitals NPI 1780761866, each its own FHIR tenant: two brands,
    // and each one's narrative names the other (apps may merge brands sharing an identifier).
    const [havasu, valleyView] = byNpi[0]!.sort((a, b) => a.name!.localeCompare(b.name!));
    expect(new Set([havasu, valleyView].map((b) => b!.endpoint![0]!.reference)).size).toBe(2);
    for (const [brand, other] of [
      [havasu!, valleyView!],
      [valleyView!, havasu!],
    ] as const) {
      expect(brand.text?.status).toBe("additional");
      expect(brand.text?.div).toStartWith('<div xmlns="http://www.w3.org/1999/xhtml">');
      expect(brand.text?.div).toContain(`NPI 1780761866 is also published for ${other.name} (MEDHOST)`);
    }
    // No other brand has a narrative: none other shares an NPI under another name.
    expect(
      brands
        .filter((b) => b.text !== undefined)
        .map((b) => b.name)
        .sort(),
    ).toEqual(["Havasu Regional Medical Center", "Valley View Medical Center"]);
  });
});
