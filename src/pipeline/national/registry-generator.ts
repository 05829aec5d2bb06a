import type { FhirVersion } from "../../model/types";
import type { ListDefinition, VendorDefinition } from "../ingest/types";
import { type ChplListItem, type ChplProductsItem, isAggregatorOrPayer, lanternRawUrl } from "./lantern";

/** The vendors of the registry before it covered every certified developer: their ids stay. */
const KNOWN_DEVELOPERS: Record<string, string> = {
  "athenahealth, Inc.": "athenahealth",
  "drchrono Inc.": "drchrono",
  "eClinicalWorks, LLC": "eclinicalworks",
  "Epic Systems Corporation": "epic",
  "Greenway Health, LLC": "greenway",
  "MEDENT - Community Computer Service, Inc.": "medent",
  MEDHOST: "medhost",
  "Medical Information Technology, Inc. (MEDITECH)": "meditech",
  Nextech: "nextech",
  "NextGen Healthcare": "nextgen",
  "Cerner Corporation": "oracle-health",
  "Practice Fusion": "practice-fusion",
  Veradigm: "veradigm",
};

/**
 * Lantern files that are a copy of a list the registry already reads from the developer: the
 * bundled copy is ingested as that list (same list id, so a later refresh of the developer's own
 * list replaces it entry by entry).
 */
const KNOWN_FILES: Record<string, string> = {
  "athenahealth_Inc_EndpointSources.json": "athenahealth-r4",
  "drchrono_Inc_EndpointSources.json": "drchrono-r4",
  "eClinicalWorks_LLC_EndpointSources.json": "eclinicalworks-r4",
  "Epic_Systems_Corporation_1_EndpointSources.json": "epic-r4",
  "Greenway_Health_LLC_EndpointSources.json": "greenway-r4",
  "MEDENT_Community_Computer_Service_Inc_EndpointSources.json": "medent-r4",
  "MEDHOST_EndpointSources.json": "medhost-r4",
  "Medical_Information_Technology_Inc_MEDITECH_1_EndpointSources.json": "meditech-endpoints",
  "Nextech_1_EndpointSources.json": "nextech-r4",
  "NextGen_Healthcare_1_EndpointSources.json": "nextgen-practices",
  "Cerner_Corporation_1_EndpointSources.json": "oracle-health-soarian-patient-r4",
  "Practice_Fusion_EndpointSources.json": "practice-fusion-r4",
  "Veradigm_EndpointSources.json": "veradigm-r4",
};

/** Display names where the cleaned legal name is not what people call the developer. */
const DISPLAY_NAMES: Record<string, string> = {
  "Better Day™ Health": "Better Day Health",
  "Infor-Med Medical Information Systems Inc.": "Infor-Med",
  "Welligent, Part of the ContinuumCloud": "Welligent",
};

const LEGAL_SUFFIX =
  /[\s,]+(inc|incorporated|llc|l\.l\.c|ltd|limited|corp|corporation|co|company|pllc|llp|lp|oü|bv|b\.v|gmbh|intl)\.?$/i;

/** The developer's name without legal suffixes ("Elation Health, Inc." → "Elation Health"). */
export function displayName(developer: string): string {
  const override = DISPLAY_NAMES[developer];
  if (override) return override;
  let name = developer.replace(/[™®©]/g, "").trim();
  for (let previous = ""; previous !== name; ) {
    previous = name;
    name = name.replace(LEGAL_SUFFIX, "").replace(/[\s,]+$/, "");
  }
  return name;
}

/** Lowercase ASCII words of the cleaned name joined by `-` ("Doc-tor.com" → "doc-tor-com"). */
export function vendorSlug(developer: string): string {
  return displayName(developer)
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** `<vendor>-lantern`, with the file's `_N` suffix when it has one (`Azalea_Health_1_…` → `-lantern-1`). */
function lanternListId(vendorId: string, fileName: string): string {
  const suffix = /_(\d+)_?EndpointSources\.json$/.exec(fileName)?.[1];
  return suffix ? `${vendorId}-lantern-${suffix}` : `${vendorId}-lantern`;
}

/** A certified product that still holds its certification (CHPL status `Active`). */
const ACTIVE = "Active";

/** Whether a product is certified to the standardized API criterion 170.315 (g)(10), which requires FHIR R4 (US Core). */
const meetsG10 = (product: NonNullable<ChplProductsItem["softwareProducts"]>[number]) =>
  product.criteriaMet.some((c) => c.number === "170.315 (g)(10)");

/**
 * The developer's one FHIR version: R4 when one of its products still certified (status
 * `Active`) meets (g)(10); else none. A certification withdrawn (by the developer or by the
 * certification body) is no evidence of what the developer serves.
 */
function defaultVersionOf(developer: string, lists: ChplListItem[], products: ChplProductsItem[]): FhirVersion | null {
  const urls = new Set(lists.filter((l) => l.EndpointName === developer).map((l) => l.URL));
  const g10 = products.some(
    (p) =>
      urls.has(p.listSourceURL) &&
      (p.softwareProducts ?? []).some((s) => s.certificationStatus.name === ACTIVE && meetsG10(s)),
  );
  return g10 ? "R4" : null;
}

/**
 * Whether the list published at `listUrl` is only backed by withdrawn certifications: CHPL
 * records products for it, one of them met (g)(10), and none is still certified. Its entries
 * then get no version from the developer's certification, even when another list of the same
 * developer keeps one (Health Samurai's `cmpl.aidbox.app` list beside its `smartbox` one).
 */
function certificationWithdrawn(listUrl: string, products: ChplProductsItem[]): boolean {
  const certified = products.filter((p) => p.listSourceURL === listUrl).flatMap((p) => p.softwareProducts ?? []);
  return certified.some(meetsG10) && !certified.some((s) => s.certificationStatus.name === ACTIVE);
}

function markWithdrawn(list: ListDefinition, listUrl: string, products: ChplProductsItem[]) {
  if (certificationWithdrawn(listUrl, products)) list.certificationWithdrawn = true;
  else delete list.certificationWithdrawn;
}

/**
 * The developer's certified products behind its list URLs, once each by CHPL number, in CHPL
 * number order: what the report card shows of its certification.
 */
function certificationsOf(
  developer: string,
  lists: ChplListItem[],
  products: ChplProductsItem[],
): NonNullable<VendorDefinition["certifications"]> {
  const urls = new Set(lists.filter((l) => l.EndpointName === developer).map((l) => l.URL));
  const byNumber = new Map<string, NonNullable<VendorDefinition["certifications"]>[number]>();
  for (const item of products) {
    if (!urls.has(item.listSourceURL)) continue;
    for (const s of item.softwareProducts ?? []) {
      if (!s.chplProductNumber || byNumber.has(s.chplProductNumber)) continue;
      byNumber.set(s.chplProductNumber, {
        chplProductNumber: s.chplProductNumber,
        product: s.product?.name ?? "",
        version: s.version?.name ?? "",
        certificationDate: s.certificationDate ?? null,
        status: s.certificationStatus.name,
        standardizedApi: meetsG10(s),
      });
    }
  }
  return [...byNumber.values()].sort((a, b) => (a.chplProductNumber < b.chplProductNumber ? -1 : 1));
}

export interface GeneratorInput {
  chplLists: ChplListItem[];
  chplProducts: ChplProductsItem[];
  /** Files present in the Lantern copy. */
  files: Set<string>;
  /** The registry as it is: vendors of KNOWN_DEVELOPERS keep their lists. */
  current: VendorDefinition[];
}

/**
 * The registry of every CHPL developer with a list file: one vendor per developer (its several
 * lists are lists of that vendor), aggregators and payers left out. Deterministic: the same input
 * always gives the same registry, vendors ordered by id.
 */
export function generateRegistry(input: GeneratorInput): VendorDefinition[] {
  // CHPL and Lantern do not always spell a file name alike (`drchrono_Inc_…` names the file
  // `Drchrono_Inc_…`): names are matched case-insensitively, and the file's own name is kept.
  const fileNamed = new Map<string, string>();
  for (const file of input.files) fileNamed.set(file.toLowerCase(), file);
  const byDeveloper = new Map<string, { item: ChplListItem; file: string }[]>();
  for (const item of input.chplLists) {
    const file = fileNamed.get(item.FileName.toLowerCase());
    if (file === undefined || isAggregatorOrPayer(file)) continue;
    const items = byDeveloper.get(item.EndpointName) ?? [];
    if (!items.some((i) => i.file === file)) items.push({ item, file });
    byDeveloper.set(item.EndpointName, items);
  }
  const vendors = new Map<string, VendorDefinition>();
  // The health plans (kind `payer`) are no CHPL developers: kept as they are (bun run data:payer-bundle).
  for (const payer of input.current) if (payer.kind === "payer") vendors.set(payer.id, structuredClone(payer));
  for (const [id] of Object.entries(KNOWN_DEVELOPERS).map(([, id]) => [id])) {
    const current = input.current.find((v) => v.id === id);
    if (!current) continue;
    // Lists an earlier run added from Lantern's files are made again below (regeneration is idempotent).
    const own = new Set(Object.values(KNOWN_FILES));
    const lists = current.lists.filter((l) => l.source !== "lantern" || own.has(l.id));
    vendors.set(id!, { ...structuredClone(current), lists: structuredClone(lists) });
  }
  for (const [developer, items] of [...byDeveloper].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const id = KNOWN_DEVELOPERS[developer] ?? vendorSlug(developer);
    const known = vendors.get(id);
    if (!known && KNOWN_DEVELOPERS[developer]) throw new Error(`vendor ${id} missing from the current registry`);
    if (!known && vendors.has(id)) throw new Error(`two developers make the vendor id ${id}`);
    const vendor: VendorDefinition = known ?? {
      id,
      name: displayName(developer),
      endpointListUrl: items[0]!.item.URL,
      lists: [],
    };
    const defaultFhirVersion = defaultVersionOf(developer, input.chplLists, input.chplProducts);
    if (defaultFhirVersion) vendor.defaultFhirVersion = defaultFhirVersion;
    else delete vendor.defaultFhirVersion;
    vendor.certifications = certificationsOf(developer, input.chplLists, input.chplProducts);
    for (const { item, file } of [...items].sort((a, b) => (a.file < b.file ? -1 : 1))) {
      const ownListId = KNOWN_FILES[item.FileName];
      const own = ownListId ? vendor.lists.find((l) => l.id === ownListId) : undefined;
      if (ownListId && !own) throw new Error(`${item.FileName}: vendor ${id} has no list ${ownListId}`);
      if (own) {
        own.bundledFile = file;
        markWithdrawn(own, item.URL, input.chplProducts);
        // A list the developer publishes only as a web page is read from Lantern's copy instead.
        if (own.manual || own.source === "lantern") {
          delete own.manual;
          Object.assign(own, {
            url: lanternRawUrl(file),
            format: "lantern-json",
            source: "lantern",
            publishedUrl: item.URL,
          });
        }
        continue;
      }
      const list: ListDefinition = {
        id: lanternListId(id, file),
        url: lanternRawUrl(file),
        format: "lantern-json",
        audience: null,
        fhirVersion: null,
        source: "lantern",
        bundledFile: file,
        publishedUrl: item.URL,
      };
      markWithdrawn(list, item.URL, input.chplProducts);
      if (vendor.lists.some((l) => l.id === list.id)) throw new Error(`list id ${list.id} twice`);
      vendor.lists.push(list);
    }
    vendors.set(id, vendor);
  }
  return [...vendors.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** The registry file's text: one vendor object per block, one list per line. */
export function formatRegistry(vendors: VendorDefinition[]): string {
  const blocks = vendors.map((vendor) => {
    const { lists, certifications, ...fields } = vendor;
    const head = Object.entries(fields)
      .map(([key, value]) => `      ${JSON.stringify(key)}: ${JSON.stringify(value)}`)
      .join(",\n");
    const fieldsOf = (object: object) =>
      Object.entries(object)
        .map(
          ([key, value]) =>
            `${JSON.stringify(key)}: ${JSON.stringify(value).replace(/,"/g, ', "').replace(/":/g, '": ')}`,
        )
        .join(", ");
    const rows = (items: object[]) => items.map((item) => `        { ${fieldsOf(item)} }`).join(",\n");
    const products =
      certifications === undefined
        ? ""
        : certifications.length === 0
          ? ',\n      "certifications": []'
          : `,\n      "certifications": [\n${rows(certifications)}\n      ]`;
    return `    {\n${head},\n      "lists": [\n${rows(lists)}\n      ]${products}\n    }`;
  });
  return `{\n  "vendors": [\n${blocks.join(",\n")}\n  ]\n}\n`;
}
