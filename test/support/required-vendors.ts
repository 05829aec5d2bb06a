/** The ten developers the directory must always cover: the registry keeps them, the generator models them. */
export const REQUIRED_VENDOR_IDS = [
  "epic",
  "oracle-health",
  "athenahealth",
  "eclinicalworks",
  "meditech",
  "veradigm",
  "nextgen",
  "greenway",
  "practice-fusion",
  "medhost",
] as const;
