import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_REGISTRY_PATH, loadRegistry } from "../../../src/pipeline/ingest/registry";
import type { ChplListItem, ChplProductsItem } from "../../../src/pipeline/national/lantern";
import {
  displayName,
  formatRegistry,
  generateRegistry,
  vendorSlug,
} from "../../../src/pipeline/national/registry-generator";
import { type ChplItem, LANTERN_FILES, notADeveloper, ROOT, readJson } from "./helpers";

const registry = loadRegistry(DEFAULT_REGISTRY_PATH);
const SAMPLE_REGISTRY = loadRegistry(join(ROOT, "db", "sample", "vendors.json"));

describe("the national vendor registry (db/vendors.json)", () => {
  test("vendor ids and list ids are unique lowercase slugs", () => {
    const ids = registry.map((v) => v.id);
    expect(new Set(ids).size).toBe(ids.length);
    const listIds = registry.flatMap((v) => v.lists.map((l) => l.id));
    expect(new Set(listIds).size).toBe(listIds.length);
    for (const id of [...ids, ...listIds]) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  test("the vendors registered before keep their ids, names and list ids (Cerner Corporation is oracle-health)", () => {
    expect(SAMPLE_REGISTRY.map((v) => v.id)).toHaveLength(13);
    for (const before of SAMPLE_REGISTRY) {
      const now = registry.find((v) => v.id === before.id);
      expect(now?.name).toBe(before.name);
      expect(now?.endpointListUrl).toBe(before.endpointListUrl);
      for (const list of before.lists) expect(now?.lists.map((l) => l.id)).toContain(list.id);
    }
  });

  test("a list the developer publishes only as a web page is read from Lantern's copy; the vendor still points at the page", () => {
    const greenway = registry.find((v) => v.id === "greenway")!;
    expect(greenway.endpointListUrl).toBe(
      "https://developers.greenwayhealth.com/developer-platform/page/fhir-base-urls",
    );
    expect(greenway.lists[0]).toMatchObject({
      id: "greenway-r4",
      source: "lantern",
      format: "lantern-json",
      url: "https://raw.githubusercontent.com/onc-healthit/lantern-back-end/HEAD/resources/prod_resources/Greenway_Health_LLC_EndpointSources.json",
    });
    expect(greenway.lists[0]!.manual).toBeUndefined();
    // Epic's own list stays the developer's.
    expect(registry.find((v) => v.id === "epic")!.lists.find((l) => l.id === "epic-r4")).toMatchObject({
      url: "https://open.epic.com/Endpoints/R4",
      bundledFile: "Epic_Systems_Corporation_1_EndpointSources.json",
    });
  });

  test("display names and ids drop legal suffixes", () => {
    expect(displayName("Elation Health, Inc.")).toBe("Elation Health");
    expect(displayName("Willowglade Technologies Corporation")).toBe("Willowglade Technologies");
    expect(displayName("EDENLAB OÜ")).toBe("EDENLAB");
    expect(displayName("Doc-tor.com")).toBe("Doc-tor.com");
    expect(vendorSlug("Better Day™ Health")).toBe("better-day-health");
    expect(vendorSlug("Mendelson Kornblum Orthopedic & Spine Specialists")).toBe(
      "mendelson-kornblum-orthopedic-and-spine-specialists",
    );
    expect(vendorSlug("ZH Healthcare, Inc.")).toBe("zh-healthcare");
    const names = registry.map((v) => v.name);
    for (const name of names) expect(name).not.toMatch(/[\s,](Inc|LLC|Corporation)\.?$/);
  });
});

describe("the registry against ONC's CHPL list (test/fixtures/real/lantern)", () => {
  const chpl = readJson<ChplItem[]>(join(LANTERN_FILES, "CHPLEndpointResourcesList.json"));
  // CHPL and Lantern do not always spell a file name alike (`drchrono_Inc_…` is `Drchrono_Inc_…`).
  const onDisk = new Map(readdirSync(LANTERN_FILES).map((name) => [name.toLowerCase(), name]));
  const fileOf = (chplName: string) => onDisk.get(chplName.toLowerCase());
  const present = (file: string) => fileOf(file) !== undefined;

  test("every CHPL developer with a list file is a vendor, with each of its files as a list; no aggregator or payer", () => {
    const bundled = new Set(registry.flatMap((v) => v.lists.flatMap((l) => (l.bundledFile ? [l.bundledFile] : []))));
    const withFile = chpl.filter((item) => present(item.FileName));
    expect(new Set(withFile.map((i) => i.EndpointName)).size).toBe(122);
    for (const item of withFile) {
      if (notADeveloper(item.FileName)) expect(bundled.has(fileOf(item.FileName)!)).toBe(false);
      else expect([item.FileName, bundled.has(fileOf(item.FileName)!)]).toEqual([item.FileName, true]);
    }
    // One vendor per developer: every file of a developer belongs to the same vendor.
    const vendorOf = new Map<string, string>();
    for (const vendor of registry)
      for (const list of vendor.lists) if (list.bundledFile) vendorOf.set(list.bundledFile, vendor.id);
    const byDeveloper = new Map<string, Set<string>>();
    for (const item of withFile) {
      const set = byDeveloper.get(item.EndpointName) ?? new Set();
      set.add(vendorOf.get(fileOf(item.FileName)!)!);
      byDeveloper.set(item.EndpointName, set);
    }
    for (const vendors of byDeveloper.values()) expect(vendors.size).toBe(1);
    expect(new Set([...byDeveloper.values()].map((s) => [...s][0])).size).toBe(byDeveloper.size);
  });

  test("regenerating from the CHPL files gives the committed registry, byte for byte", () => {
    const generated = generateRegistry({
      chplLists: chpl as ChplListItem[],
      chplProducts: readJson<ChplProductsItem[]>(join(LANTERN_FILES, "CHPLProductsInfo.json")),
      files: new Set(onDisk.values()),
      current: registry,
    });
    expect(formatRegistry(generated)).toBe(readFileSync(DEFAULT_REGISTRY_PATH, "utf8"));
  });
});
