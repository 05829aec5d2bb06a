/**
 * Probe: enriches the directory from each distinct base URL's live `/metadata` and
 * `/.well-known/smart-configuration` (issue 4).
 */
import type { Db } from "../db/client";
import { type ProbeAdvancedOptions, type ProbeOptions, Prober } from "./prober";
import type { ProbeResult } from "./types";

export { accessFromCapabilities, derive, mapFhirVersion, supportedResources } from "./derive";
export { selectDueUrls } from "./due";
export { blockedAddressReason } from "./ip";
export type { ProbeAdvancedOptions, ProbeOptions } from "./prober";
export { PROBE_DEFAULTS, Prober } from "./prober";
export type { ProbeDueOptions, ProbeRunSummary } from "./run";
export { DEFAULT_STALE_AFTER_MS, probeDue } from "./run";
export { type ProbeRecord, recordProbe, recordProbes } from "./store";
export type { DocumentResult, ErrorKind, ProbeOutcomeStatus, ProbeResult, ProbeSummary } from "./types";
export { defaultUserAgent } from "./user-agent";
export type { Db };

/** Probes one base URL (its own limiter and DNS cache). Never throws; failures are in the result. */
export async function probeUrl(url: string, opts: ProbeOptions & ProbeAdvancedOptions = {}): Promise<ProbeResult> {
  return new Prober(opts).probe(url);
}
