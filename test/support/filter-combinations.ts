import { Rng } from "../../tools/generate/prng";

/**
 * The filter combinations the list's brute-force test sends (and the export's, which must give
 * the same entries): every value alone, pairs drawn at random, random combinations of three to
 * seven filters, some with paging. One place, so both tests draw the very same sequence.
 */
const VALUES = {
  query: [
    "health",
    "clin",
    "CLÍNICA",
    "clinica",
    "san jose",
    "st. mary's",
    "o'brien",
    "magnolia cardio",
    "müller",
    "muller",
    "fam med",
    "ped",
    '100%_*"(:',
    "   ",
    "dr zo",
    "z",
    "riverside family medicine",
  ],
  vendor: ["epic", "oracle-health", "athenahealth", "eclinicalworks", "nextgen", "canvas", "elation", "no-such-vendor"],
  state: ["CA", "TX", "NY", "PR", "GU", "AS", "WY"],
  fhirVersion: ["DSTU2", "STU3", "R4", "R4B", "R5"],
  access: ["patient", "provider"],
  hasResource: [
    "Patient",
    "Patient,Observation,Condition",
    "Condition , Goal",
    "MedicationOrder",
    "ImagingStudy,Specimen",
    "Observation,Patient,Observation",
    "NoSuchResource",
  ],
  smartSupported: ["true", "false"],
  supports: ["pkce", "us-core, bulk-export", "smart-v2,launch-ehr", "backend-services", "launch-standalone,pkce,pkce"],
  ready: ["patient-apps", "provider-apps", "backend-services", "patient-apps,provider-apps"],
} as const;
type Key = keyof typeof VALUES;
const KEYS = Object.keys(VALUES) as Key[];

export interface Combo {
  query?: string;
  vendor?: string;
  state?: string;
  fhirVersion?: string;
  access?: string;
  hasResource?: string;
  smartSupported?: string;
  supports?: string;
  ready?: string;
  page?: number;
  limit?: number;
}

export function combinations(): Combo[] {
  const combos: Combo[] = [
    {},
    { page: 2 },
    { limit: 100 },
    { page: 100, limit: 100 },
    { page: 101, limit: 100 },
    { page: 1000, limit: 100 },
  ];
  // Every value alone, on page 1 and a later page.
  for (const key of KEYS)
    for (const value of VALUES[key]) combos.push({ [key]: value }, { [key]: value, page: 3, limit: 7 });
  // Every pair of filters with values drawn at random; then random combinations of three to seven.
  const rng = new Rng(20261126);
  for (let i = 0; i < KEYS.length; i++) {
    for (let j = i + 1; j < KEYS.length; j++) {
      for (let n = 0; n < 4; n++)
        combos.push({ [KEYS[i]!]: rng.pick(VALUES[KEYS[i]!]), [KEYS[j]!]: rng.pick(VALUES[KEYS[j]!]) });
    }
  }
  for (let n = 0; n < 250; n++) {
    const combo: Combo = {};
    const size = 3 + rng.int(5);
    for (const key of [...KEYS].sort(() => rng.next() - 0.5).slice(0, size))
      (combo as Record<string, string>)[key] = rng.pick(VALUES[key]);
    if (rng.chance(0.4)) combo.limit = rng.pick([1, 10, 50, 100]);
    if (rng.chance(0.4)) combo.page = 1 + rng.int(4);
    combos.push(combo);
  }
  return combos;
}
