/**
 * Generates the bundled sample dataset's inputs into db/sample/: vendor lists in the formats
 * vendors publish (lists/), the answers our replay server gives the probe (answers/), and
 * manifest.json, which says in what order the lists are ingested and which URL answers what.
 * Deterministic: a seeded PRNG per part, no clock, no Math.random; re-running rewrites
 * byte-identical files. Run: `bun run data:sample-lists`.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseCli } from "../../src/cli/args";
import type { Audience } from "../../src/model/types";
import { editDistance } from "../../src/pipeline/ingest/list-hosts";
import { npi as npiFrom, Rng as Prng } from "../generate/prng";
import { answerDocuments } from "./answers";
import { csv, epicBundle, fhirBundle, lanternFlat, type SampleAddress, type SampleEntry } from "./formats";
import {
  type ManifestProfile,
  type ManifestResponse,
  type ManifestStep,
  SAMPLE_DIR,
  type SampleManifest,
  serverKey,
} from "./manifest";
import { OrgNamer, SPECIAL_NAMES } from "./names";
import { PLACES, type Place, STREETS } from "./places";

const FHIR_JSON = "application/fhir+json;charset=utf-8";

const ok = (file: string, contentType = FHIR_JSON): ManifestResponse => ({
  status: 200,
  file: `answers/${file}`,
  contentType,
});
const UNAUTHORIZED: ManifestResponse = {
  status: 401,
  file: "answers/errors/unauthorized.json",
  contentType: FHIR_JSON,
};
const NOT_FOUND: ManifestResponse = { status: 404, file: "answers/errors/not-found.json", contentType: FHIR_JSON };
const SMART = (file: string) => ok(`smart/${file}`, "application/json");
const META = (file: string) => ok(`metadata/${file}`);
const REAL_SMART = (file: string): ManifestResponse => ({
  status: 200,
  file: `real/smart/${file}`,
  contentType: "application/json",
});
const REAL_META = (file: string): ManifestResponse => ({
  status: 200,
  file: `real/metadata/${file}`,
  contentType: FHIR_JSON,
});

/** How each sample server behaves, by name; `servers` in the manifest point at these. */
const PROFILES: Record<string, ManifestProfile> = {
  "oracle-r4-patient": { expect: "success", metadata: META("r4-oracle.json"), smart: SMART("patient-oracle.json") },
  "oracle-r4-provider": { expect: "success", metadata: META("r4-oracle.json"), smart: SMART("provider-oracle.json") },
  "oracle-r4-no-smart": { expect: "partial", metadata: META("r4-oracle.json"), smart: NOT_FOUND },
  "oracle-dstu2-patient": {
    expect: "success",
    metadata: META("dstu2-oracle.json"),
    smart: SMART("patient-oracle.json"),
  },
  "epic-r4": { expect: "success", metadata: META("r4-epic.json"), smart: SMART("both-epic.json") },
  "epic-r4-no-smart": { expect: "partial", metadata: META("r4-epic.json"), smart: NOT_FOUND },
  "epic-dstu2": { expect: "success", metadata: META("dstu2-epic.json"), smart: SMART("both-epic.json") },
  "ecw-r4": { expect: "success", metadata: META("r4-eclinicalworks.json"), smart: SMART("both-eclinicalworks.json") },
  "ecw-r4-no-smart": { expect: "partial", metadata: META("r4-eclinicalworks.json"), smart: NOT_FOUND },
  "ecw-smart-only": { expect: "partial", metadata: UNAUTHORIZED, smart: SMART("both-eclinicalworks.json") },
  "athena-r4": { expect: "success", metadata: META("r4-athenahealth.json"), smart: SMART("both-athenahealth.json") },
  "nextgen-r4-backend": { expect: "success", metadata: META("r4-nextgen.json"), smart: SMART("backend-only.json") },
  "veradigm-r4": { expect: "success", metadata: META("r4-veradigm.json"), smart: SMART("provider-veradigm.json") },
  "veradigm-dstu2": {
    expect: "success",
    metadata: META("dstu2-veradigm.json"),
    smart: SMART("provider-veradigm.json"),
  },
  "legacy-dstu1": { expect: "partial", metadata: META("dstu1-legacy.json"), smart: NOT_FOUND },
  "greenway-r4b": { expect: "success", metadata: META("r4b-greenway.json"), smart: SMART("patient-greenway.json") },
  "greenway-stu3": { expect: "success", metadata: META("stu3-greenway.json"), smart: SMART("patient-greenway.json") },
  "greenway-stu3-no-smart": { expect: "partial", metadata: META("stu3-greenway.json"), smart: NOT_FOUND },
  "practice-fusion-r4": {
    expect: "success",
    metadata: META("r4-practice-fusion.json"),
    smart: SMART("both-practice-fusion.json"),
  },
  "practice-fusion-r5": {
    expect: "success",
    metadata: META("r5-practice-fusion.json"),
    smart: SMART("both-practice-fusion.json"),
  },
  "meditech-r4": { expect: "success", metadata: META("r4-meditech.json"), smart: SMART("patient-meditech.json") },
  "meditech-dstu2": { expect: "success", metadata: META("dstu2-meditech.json"), smart: SMART("patient-meditech.json") },
  unauthorized: { expect: "failed", metadata: UNAUTHORIZED, smart: UNAUTHORIZED },
  unreachable: { expect: "failed", unreachable: true },
  // Real published documents (db/sample/real/), so that every verdict shape appears.
  "real-ecw-r4": {
    expect: "success",
    metadata: REAL_META("eclinicalworks__fhir4-r4.json"),
    smart: REAL_SMART("eclinicalworks__fhir4.json"),
  },
  "real-cerner-r4": {
    expect: "success",
    metadata: REAL_META("cerner-millennium__fhircernercom-r4-secure.json"),
    smart: REAL_SMART("cerner-millennium__fhircernercom-r4.json"),
  },
  "real-oauth-uris-only": {
    expect: "partial",
    metadata: REAL_META("smilecdr__jefferson-healthpartners-provdir.json"),
    smart: NOT_FOUND,
  },
  "real-bulk-data": {
    expect: "partial",
    metadata: REAL_META("smarthealthit-bulk-data-server__inferno-bulkdata-kit.json"),
    smart: NOT_FOUND,
  },
  "real-no-security": { expect: "partial", metadata: REAL_META("cms-bfd__bluebutton-v2-r4.json"), smart: NOT_FOUND },
  "real-smart-behind-401": {
    expect: "partial",
    metadata: UNAUTHORIZED,
    smart: REAL_SMART("practice-fusion__api-practicefusion.json"),
  },
  "real-patient-smart-only": {
    expect: "partial",
    metadata: NOT_FOUND,
    smart: REAL_SMART("aetna__patient-access-sandbox.json"),
  },
};

/**
 * Sample servers that replay the real documents instead: the first `count` (by key) of those the
 * vendors' mixes gave `instead`. Chosen after the mixes, so the mixes' random draws stay the same.
 * Between them: ready for every app (eClinicalWorks), backend services only (Oracle Health),
 * OAuth URIs only, bulk export with a token endpoint only, no security at all, SMART behind a
 * 401, and a patient-only SMART configuration without a CapabilityStatement.
 */
const REPLAYED: [instead: string, profile: string, count: number][] = [
  ["ecw-r4", "real-ecw-r4", 3],
  ["oracle-r4-provider", "real-cerner-r4", 3],
  ["greenway-stu3", "real-oauth-uris-only", 2],
  ["veradigm-r4", "real-bulk-data", 2],
  ["meditech-r4", "real-no-security", 2],
  ["practice-fusion-r4", "real-smart-behind-401", 2],
  ["meditech-dstu2", "real-patient-smart-only", 2],
];

type Mix = [profile: string, weight: number][];

/** Fixed timestamps: every list is first scraped on day 1, probed on day 2, refreshed on day 3. */
const DAY1 = "2026-11-02";
const PROBE_AT = "2026-11-03T04:00:00.000Z";
const DAY3 = "2026-11-04";

class Generator {
  readonly files = new Map<string, string>();
  readonly steps: ManifestStep[] = [];
  readonly servers: Record<string, string> = {};
  private readonly usedNpis = new Set<string>();
  private specialIndex = 0;
  private minute = 0;

  /** Assigns profiles to `urls` in the given proportions (every weighted profile at least once), shuffled. */
  assign(prng: Prng, urls: string[], mix: Mix) {
    const total = mix.reduce((sum, [, w]) => sum + w, 0);
    const profiles: string[] = [];
    mix.forEach(([profile, weight], i) => {
      const count =
        i === mix.length - 1 ? urls.length - profiles.length : Math.max(1, Math.round((urls.length * weight) / total));
      for (let k = 0; k < count; k++) profiles.push(profile);
    });
    const shuffled = prng.shuffle(profiles.slice(0, urls.length));
    urls.forEach((url, i) => {
      const key = serverKey(url);
      if (this.servers[key] !== undefined) return;
      this.servers[key] = shuffled[i]!;
    });
  }

  npi(prng: Prng): string {
    for (;;) {
      const npi = npiFrom(prng);
      if (!this.usedNpis.has(npi)) {
        this.usedNpis.add(npi);
        return npi;
      }
    }
  }

  /** The next of the names with accents and punctuation, or null once each has been used. */
  special(namer: OrgNamer): string | null {
    const name = SPECIAL_NAMES[this.specialIndex];
    if (name === undefined) return null;
    this.specialIndex++;
    return namer.take(name);
  }

  ingest(step: {
    vendorId: string;
    listId: string;
    file: string;
    content: string;
    access?: Audience;
    at?: string;
    note?: string;
  }) {
    this.files.set(step.file, step.content);
    const now = step.at ?? `${DAY1}T08:${String(this.minute++).padStart(2, "0")}:00.000Z`;
    const out: ManifestStep = { action: "ingest", vendorId: step.vendorId, listId: step.listId, file: step.file, now };
    if (step.access) out.access = step.access;
    if (step.note) out.note = step.note;
    this.steps.push(out);
  }
}

function address(prng: Prng, place: Place): SampleAddress {
  const zip = `${place.zip3}${prng.digits(2)}${prng.chance(0.1) ? `-${prng.digits(4)}` : ""}`;
  return { line: `${prng.between(1, 9999)} ${prng.pick(STREETS)}`, city: place.city, state: place.state, zip };
}

/** Oracle-style tenant: a GUID or a 32-character id of URL-safe base64 characters. */
function oracleTenant(prng: Prng): string {
  return prng.chance(0.6)
    ? prng.uuid()
    : prng.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", 32);
}

/**
 * A host-name slug not yet used and at least two edits from every used one: ingest marks a host
 * whose domain is one letter off another domain of the same list as a misspelling
 * (near-miss-domain), and the whole sample, re-ingested as one list (its own FHIR export), must
 * not trip that rule (`blueridgehealthcar` beside `blueridgehealthpar`, `goodsamaritanregio0`
 * beside `goodsamaritanregio`). A slug taken gets a random digit, as it always did (the draws keep
 * the rest of the sample as it was); one still a letter off another gets a counter from 10 on,
 * which draws nothing. Adds the slug to `used`.
 */
function distinctSlug(prng: Prng, name: string, used: Set<string>): string {
  let s = slug(name);
  while (used.has(s)) s = `${s}${prng.digits(1)}`;
  const near = (candidate: string) => [...used].some((other) => editDistance(candidate, other) <= 1);
  if (near(s)) {
    let n = 10;
    while (near(`${s}${n}`)) n++;
    s = `${s}${n}`;
  }
  used.add(s);
  return s;
}

function slug(name: string): string {
  return name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/^(st|saint)\.? /, "st")
    .replace(/[^a-z0-9]+/g, "")
    .slice(0, 18);
}

function oracle(g: Generator) {
  const prng = new Prng("oracle-health");
  const namer = new OrgNamer(prng);
  let count = 0;
  const org = (url: string, tenant: string): SampleEntry => {
    const place = prng.pick(PLACES);
    const npi = prng.chance(0.25) ? g.npi(prng) : undefined;
    // The published trap: an Endpoint id that spells the tenant with '_' where the URL has '-'.
    const endpointId = tenant.includes("-") && prng.chance(0.15) ? tenant.replace(/-/g, "_") : tenant;
    const entry: SampleEntry = {
      url,
      name: (count++ % 120 === 9 ? g.special(namer) : null) ?? namer.system(place),
      endpointId,
      address: address(prng, place),
      oid: `2.16.840.1.113883.3.${prng.between(1000, 9999)}`,
    };
    if (npi) Object.assign(entry, { npi, npiTypo: prng.chance(0.3) });
    return entry;
  };

  const patient: SampleEntry[] = [];
  for (let i = 0; i < 340; i++) {
    const tenant = oracleTenant(prng);
    patient.push(org(`https://fhir-myrecord.cerner.com/r4/${tenant}`, tenant));
  }
  // The same organizations publish a provider endpoint on another host (most of them).
  const provider: SampleEntry[] = patient
    .slice(0, 200)
    .map((e) => ({ ...e, url: e.url.replace("fhir-myrecord", "fhir-ehr") }));
  for (let i = 0; i < 30; i++) {
    const tenant = oracleTenant(prng);
    provider.push(org(`https://fhir-ehr.cerner.com/r4/${tenant}`, tenant));
  }
  const dstu2 = patient.slice(200, 240).map((e) => ({ ...e, url: e.url.replace("/r4/", "/dstu2/") }));

  const bundle = (id: string, entries: SampleEntry[], host: string) =>
    fhirBundle({ id, timestamp: `${DAY1}T06:00:00Z`, base: `https://${host}`, entries });
  g.ingest({
    vendorId: "oracle-health",
    listId: "oracle-health-millennium-patient-r4",
    file: "lists/oracle-health-patient-r4.v1.json",
    content: bundle("millennium-patient-r4", patient, "fhir-myrecord.cerner.com"),
    note: "first version of the list",
  });
  g.ingest({
    vendorId: "oracle-health",
    listId: "oracle-health-millennium-provider-r4",
    file: "lists/oracle-health-provider-r4.json",
    content: bundle("millennium-provider-r4", provider, "fhir-ehr.cerner.com"),
  });
  g.ingest({
    vendorId: "oracle-health",
    listId: "oracle-health-millennium-patient-dstu2",
    file: "lists/oracle-health-patient-dstu2.json",
    content: bundle("millennium-patient-dstu2", dstu2, "fhir-myrecord.cerner.com"),
  });

  g.assign(
    prng,
    patient.map((e) => e.url),
    [
      ["oracle-r4-patient", 82],
      ["oracle-r4-no-smart", 7],
      ["unauthorized", 5],
      ["unreachable", 6],
    ],
  );
  g.assign(
    prng,
    provider.map((e) => e.url),
    [
      ["oracle-r4-provider", 86],
      ["oracle-r4-no-smart", 5],
      ["unauthorized", 4],
      ["unreachable", 5],
    ],
  );
  g.assign(
    prng,
    dstu2.map((e) => e.url),
    [
      ["oracle-dstu2-patient", 85],
      ["unreachable", 15],
    ],
  );

  // A later scrape: 24 organizations left the list, 6 joined, 3 moved. Ingested after the probe.
  const dropped = new Set(prng.shuffle(patient.map((_, i) => i)).slice(0, 24));
  const v2: SampleEntry[] = patient
    .filter((_, i) => !dropped.has(i))
    .map((e, i) => {
      if (i % 97 !== 5) return e;
      const place = prng.pick(PLACES);
      return { ...e, address: address(prng, place) };
    });
  for (let i = 0; i < 6; i++) {
    const tenant = oracleTenant(prng);
    v2.push(org(`https://fhir-myrecord.cerner.com/r4/${tenant}`, tenant));
  }
  return () =>
    g.ingest({
      vendorId: "oracle-health",
      listId: "oracle-health-millennium-patient-r4",
      file: "lists/oracle-health-patient-r4.v2.json",
      content: bundle("millennium-patient-r4", v2, "fhir-myrecord.cerner.com"),
      at: `${DAY3}T08:00:00.000Z`,
      note: "later version: 24 entries gone (removed), 6 new (never probed)",
    });
}

function epic(g: Generator) {
  const prng = new Prng("epic");
  const namer = new OrgNamer(prng);
  const hostForms = [
    (s: string) => `https://fhir.${s}.org/interconnect-fhir-prd/api/FHIR`,
    (s: string) => `https://epicproxy.${s}.org/FHIRProxy/api/FHIR`,
    (s: string) => `https://mychart.${s}.com/FHIR/api/FHIR`,
    (s: string) => `https://epicarr.${s}.org/arr-fhir/api/FHIR`,
  ];
  const usedSlugs = new Set<string>();
  const r4: SampleEntry[] = [];
  const bases: string[] = [];
  while (r4.length < 240) {
    const place = prng.pick(PLACES);
    const system = namer.system(place);
    const base = prng.pick(hostForms)(distinctSlug(prng, system, usedSlugs));
    bases.push(base);
    const orgId = `${prng.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 43)}=`;
    // A few systems publish one URL for several regions (as Kaiser Permanente does).
    const regions = prng.chance(0.05) ? prng.shuffle(PLACES).slice(0, prng.between(2, 4)) : [place];
    for (const region of regions) {
      const name = regions.length > 1 ? `${system} – ${region.stateName}` : system;
      const entry: SampleEntry = {
        url: `${base}/R4`,
        name,
        endpointId: prng.uuid(),
        orgId,
        address: address(prng, region),
      };
      if (prng.chance(0.15)) entry.npi = g.npi(prng);
      r4.push(entry);
    }
  }
  const dstu2 = r4.slice(0, 70).map((e) => ({ ...e, url: e.url.replace(/\/R4$/, "/DSTU2"), endpointId: prng.uuid() }));
  const timestamp = `${DAY1}T05:30:00.000-06:00`;
  g.ingest({
    vendorId: "epic",
    listId: "epic-r4",
    file: "lists/epic-r4.json",
    content: epicBundle({ timestamp, entries: r4 }),
  });
  g.ingest({
    vendorId: "epic",
    listId: "epic-dstu2",
    file: "lists/epic-dstu2.json",
    content: epicBundle({ timestamp, entries: dstu2 }),
  });
  g.assign(
    prng,
    [...new Set(r4.map((e) => e.url))],
    [
      ["epic-r4", 80],
      ["epic-r4-no-smart", 8],
      ["unauthorized", 4],
      ["unreachable", 8],
    ],
  );
  g.assign(
    prng,
    [...new Set(dstu2.map((e) => e.url))],
    [
      ["epic-dstu2", 85],
      ["unauthorized", 5],
      ["unreachable", 10],
    ],
  );
}

function eclinicalworks(g: Generator) {
  const prng = new Prng("eclinicalworks");
  const namer = new OrgNamer(prng);
  const codes = new Set<string>();
  const entries: SampleEntry[] = [];
  while (entries.length < 400) {
    const code = prng.chars("ABCDEFGHIJ", 6);
    if (codes.has(code)) continue;
    codes.add(code);
    const place = prng.pick(PLACES);
    const name = (entries.length % 90 === 7 ? g.special(namer) : null) ?? namer.practice(place);
    const entry: SampleEntry = { url: `https://fhir4.eclinicalworks.com/fhir/r4/${code}`, name };
    if (prng.chance(0.9)) entry.address = address(prng, place);
    if (prng.chance(0.3)) entry.npi = g.npi(prng);
    entries.push(entry);
  }
  // As published lists do: one item repeated, one without a URL (ingest skips both).
  const published = [
    ...entries.slice(0, 120),
    entries[3]!,
    { url: "", name: "Pending Activation Practice" },
    ...entries.slice(120),
  ];
  g.ingest({
    vendorId: "eclinicalworks",
    listId: "eclinicalworks-r4",
    file: "lists/eclinicalworks-r4.json",
    content: lanternFlat(published),
  });
  g.assign(
    prng,
    entries.map((e) => e.url),
    [
      ["ecw-r4", 74],
      ["ecw-r4-no-smart", 8],
      ["ecw-smart-only", 3],
      ["unauthorized", 6],
      ["unreachable", 9],
    ],
  );
}

function athenahealth(g: Generator) {
  const prng = new Prng("athenahealth");
  const namer = new OrgNamer(prng);
  const url = "https://api.platform.athenahealth.com/fhir/r4";
  const entries: SampleEntry[] = [];
  // Every athenaOne practice is served from the same base URL.
  for (let i = 0; i < 360; i++) {
    const place = prng.pick(PLACES);
    const name = (i % 60 === 11 ? g.special(namer) : null) ?? namer.practice(place);
    const entry: SampleEntry = { url, name, address: address(prng, place) };
    if (prng.chance(0.4)) entry.npi = g.npi(prng);
    entries.push(entry);
  }
  g.ingest({
    vendorId: "athenahealth",
    listId: "athenahealth-r4",
    file: "lists/athenahealth-r4.json",
    content: lanternFlat(entries),
  });
  g.assign(prng, [url], [["athena-r4", 1]]);
}

const CSV_HEADER = ["Organization Name", "FHIR Endpoint URL", "NPI", "Street Address", "City", "State", "Zip Code"];

function csvRow(e: SampleEntry): string[] {
  return [
    e.name,
    e.url,
    e.npi ?? "",
    e.address?.line ?? "",
    e.address?.city ?? "",
    e.stateAsName ?? e.address?.state ?? "",
    e.address?.zip ?? "",
  ];
}

function nextgen(g: Generator) {
  const prng = new Prng("nextgen");
  const namer = new OrgNamer(prng);
  const r4 = "https://fhir.nextgen.com/nge/prod/fhir-api-r4/fhir/r4";
  const dstu2 = "https://fhir.nextgen.com/nge/prod/fhir-api-dstu2/fhir/dstu2";
  const entries: SampleEntry[] = [];
  for (let i = 0; i < 230; i++) {
    const place = prng.pick(PLACES);
    const name = (i % 70 === 3 ? g.special(namer) : null) ?? namer.practice(place);
    const entry: SampleEntry = { url: i < 200 ? r4 : dstu2, name, npi: g.npi(prng), address: address(prng, place) };
    // Spreadsheets: some rows spell the state out.
    if (prng.chance(0.1)) entry.stateAsName = place.stateName;
    entries.push(entry);
  }
  g.ingest({
    vendorId: "nextgen",
    listId: "nextgen-practices",
    file: "lists/nextgen.csv",
    content: csv(CSV_HEADER, prng.shuffle(entries).map(csvRow)),
  });
  g.assign(prng, [r4], [["nextgen-r4-backend", 1]]);
  g.assign(prng, [dstu2], [["unauthorized", 1]]);
}

function veradigm(g: Generator) {
  const prng = new Prng("veradigm");
  const namer = new OrgNamer(prng);
  const ids = new Set<string>();
  const practices: SampleEntry[] = [];
  while (practices.length < 150) {
    const id = String(prng.between(10000000, 10099999));
    if (ids.has(id)) continue;
    ids.add(id);
    const place = prng.pick(PLACES);
    const entry: SampleEntry = {
      url: `https://fhir.fhirpoint.open.allscripts.com/fhirroute/fhir/${id}`,
      name: namer.practice(place),
      endpointId: `vrd-${id}`,
      address: address(prng, place),
    };
    if (prng.chance(0.2)) entry.npi = g.npi(prng);
    practices.push(entry);
  }
  const r4 = practices.slice(0, 110);
  // Older practices are still on the DSTU2 ("open") route.
  const dstu2 = practices.slice(110).map((e) => ({ ...e, url: e.url.replace("/fhirroute/fhir/", "/fhirroute/open/") }));
  const bundle = (id: string, entries: SampleEntry[]) =>
    fhirBundle({ id, timestamp: `${DAY1}T00:00:00Z`, base: "https://open.platform.veradigm.com/fhir", entries });
  g.ingest({
    vendorId: "veradigm",
    listId: "veradigm-r4",
    file: "lists/veradigm-r4.json",
    content: bundle("veradigm-r4-endpoints", r4),
  });
  g.ingest({
    vendorId: "veradigm",
    listId: "veradigm-dstu2",
    file: "lists/veradigm-dstu2.json",
    content: bundle("veradigm-dstu2-endpoints", dstu2),
  });
  g.assign(
    prng,
    r4.map((e) => e.url),
    [
      ["veradigm-r4", 86],
      ["unauthorized", 7],
      ["unreachable", 7],
    ],
  );
  g.assign(
    prng,
    dstu2.map((e) => e.url),
    [
      ["veradigm-dstu2", 85],
      ["unauthorized", 15],
    ],
  );
}

function greenway(g: Generator) {
  const prng = new Prng("greenway");
  const namer = new OrgNamer(prng);
  const entries: SampleEntry[] = [];
  for (let i = 0; i < 130; i++) {
    const place = prng.pick(PLACES);
    const oid = `2.16.840.1.113883.3.4720.${1000 + i * 7 + prng.int(7)}`;
    const entry: SampleEntry = {
      url: `https://fhir-api.fhirprod.aws.greenwayhealth.com/fhir/R4/${oid}`,
      name: namer.practice(place),
      endpointId: `gw-${oid}`,
      oid,
      address: address(prng, place),
    };
    if (prng.chance(0.2)) entry.npi = g.npi(prng);
    entries.push(entry);
  }
  g.ingest({
    vendorId: "greenway",
    listId: "greenway-r4",
    access: "patient",
    file: "lists/greenway.json",
    content: fhirBundle({
      id: "greenway-endpoints",
      timestamp: `${DAY1}T00:00:00Z`,
      base: "https://fhir-api.fhirprod.aws.greenwayhealth.com/fhir",
      entries,
    }),
  });
  g.assign(
    prng,
    entries.map((e) => e.url),
    [
      ["greenway-r4b", 55],
      ["greenway-stu3", 25],
      ["greenway-stu3-no-smart", 10],
      ["unreachable", 10],
    ],
  );
}

function practiceFusion(g: Generator) {
  const prng = new Prng("practice-fusion");
  const namer = new OrgNamer(prng);
  const entries: SampleEntry[] = [];
  for (let i = 0; i < 120; i++) {
    const place = prng.pick(PLACES);
    const guid = prng.uuid();
    const entry: SampleEntry = {
      url: `https://api.practicefusion.com/fhir/r4/v1/${guid}`,
      name: namer.practice(place),
      endpointId: guid,
      address: address(prng, place),
    };
    if (prng.chance(0.3)) entry.npi = g.npi(prng);
    entries.push(entry);
  }
  g.ingest({
    vendorId: "practice-fusion",
    listId: "practice-fusion-r4",
    file: "lists/practice-fusion.json",
    content: fhirBundle({
      id: "practice-fusion-endpoints",
      timestamp: `${DAY1}T00:00:00Z`,
      base: "https://api.practicefusion.com/fhir/r4/v1",
      fhirVersion: "4.0.1",
      entries,
    }),
  });
  g.assign(
    prng,
    entries.map((e) => e.url),
    [
      ["practice-fusion-r4", 72],
      ["practice-fusion-r5", 15],
      ["unauthorized", 6],
      ["unreachable", 7],
    ],
  );
}

function meditech(g: Generator) {
  const prng = new Prng("meditech");
  const namer = new OrgNamer(prng);
  const entries: SampleEntry[] = [];
  const usedSlugs = new Set<string>();
  // Each hospital has its own host: Expanse (R4), older Argonaut (DSTU2), and a few pilot servers
  // whose URL and list say no version (their statement's version maps to UNKNOWN).
  const paths = (i: number) => (i < 80 ? "v2/uscore/R4" : i < 102 ? "v1/argonaut/DSTU2" : "fhir");
  for (let i = 0; i < 110; i++) {
    const place = prng.pick(PLACES);
    const name = namer.system(place);
    // Subdomains of one domain: a letter apart is no near miss here, only the same slug is taken.
    let s = slug(name);
    while (usedSlugs.has(s)) s = `${s}${prng.digits(1)}`;
    usedSlugs.add(s);
    entries.push({ url: `https://${s}.meditech.cloud/${paths(i)}`, name, address: address(prng, place) });
  }
  g.ingest({
    vendorId: "meditech",
    listId: "meditech-endpoints",
    access: "patient",
    file: "lists/meditech.csv",
    content: csv(CSV_HEADER, entries.map(csvRow)),
  });
  g.assign(
    prng,
    entries.slice(0, 80).map((e) => e.url),
    [
      ["meditech-r4", 85],
      ["unauthorized", 5],
      ["unreachable", 10],
    ],
  );
  g.assign(
    prng,
    entries.slice(80, 102).map((e) => e.url),
    [
      ["meditech-dstu2", 85],
      ["unreachable", 15],
    ],
  );
  g.assign(
    prng,
    entries.slice(102).map((e) => e.url),
    [
      ["legacy-dstu1", 5],
      ["unauthorized", 3],
    ],
  );
}

/** MEDHOST's list arrives after the probe run: its entries stay `unchecked`. */
function medhost(g: Generator) {
  const prng = new Prng("medhost");
  const namer = new OrgNamer(prng);
  const entries: SampleEntry[] = [];
  for (let i = 0; i < 90; i++) {
    const place = prng.pick(PLACES);
    const guid = prng.uuid();
    const entry: SampleEntry = {
      url: `https://fhir.yourcareuniverse.net/tenant/${guid}`,
      name: namer.system(place),
      endpointId: guid,
      address: address(prng, place),
    };
    if (prng.chance(0.25)) entry.npi = g.npi(prng);
    entries.push(entry);
  }
  return () =>
    g.ingest({
      vendorId: "medhost",
      listId: "medhost-r4",
      file: "lists/medhost.json",
      content: fhirBundle({
        id: "medhost-endpoints",
        timestamp: `${DAY3}T00:00:00Z`,
        base: "https://fhir.yourcareuniverse.net",
        entries,
      }),
      at: `${DAY3}T09:00:00.000Z`,
      note: "published after the probe run: never probed",
    });
}

/** Everything the sample consists of: file path under db/sample/ → content. */
export function generateSample(): Map<string, string> {
  const g = new Generator();
  const oracleV2 = oracle(g);
  epic(g);
  eclinicalworks(g);
  athenahealth(g);
  nextgen(g);
  veradigm(g);
  greenway(g);
  practiceFusion(g);
  meditech(g);
  const medhostLater = medhost(g);
  g.steps.push({ action: "probe", now: PROBE_AT, note: "every URL listed so far, answered per `servers`" });
  oracleV2();
  medhostLater();

  for (const [instead, profile, count] of REPLAYED)
    for (const key of Object.keys(g.servers)
      .filter((key) => g.servers[key] === instead)
      .sort()
      .slice(0, count))
      g.servers[key] = profile;

  for (const [path, document] of Object.entries(answerDocuments()))
    g.files.set(`answers/${path}`, `${JSON.stringify(document, null, 2)}\n`);
  const servers = Object.fromEntries(Object.entries(g.servers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const manifest: SampleManifest = {
    about:
      "The bundled sample dataset, generated by tools/sample/generate.ts (our own data). `bun run data:sample` ingests each list in step order with the fixed `now`, then probes through a local server that answers each base URL (`servers`: host/path → profile) with the files of its profile; an `unreachable` profile refuses the connection; a URL absent from `servers` is never probed.",
    steps: g.steps,
    profiles: PROFILES,
    servers,
  };
  g.files.set("manifest.json", `${JSON.stringify(manifest, null, 1)}\n`);
  return g.files;
}

/** Writes the sample into `dir`, replacing what the generator owns (lists/, answers/, manifest.json). */
function writeSample(dir: string = SAMPLE_DIR): Map<string, string> {
  const files = generateSample();
  for (const sub of ["lists", "answers"]) rmSync(join(dir, sub), { recursive: true, force: true });
  for (const [path, content] of files) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return files;
}

if (import.meta.main) {
  parseCli({
    command: "bun run data:sample-lists",
    synopsis: [""],
    description:
      "Regenerates the sample dataset's inputs under db/sample/ (lists/, answers/, manifest.json), byte for byte.",
    options: {},
    optionHelp: [],
  });
  const files = writeSample();
  let bytes = 0;
  for (const content of files.values()) bytes += Buffer.byteLength(content);
  console.log(`wrote ${files.size} files (${(bytes / 1024).toFixed(0)} KiB) to ${SAMPLE_DIR}`);
}
