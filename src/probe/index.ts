/**
 * Probe: enriches the directory from each distinct base URL's live `/metadata` and
 * `/.well-known/smart-configuration` (issue 4).
 */
import type { Db } from "../db/client";
import { Prober, type ProbeAdvancedOptions, type ProbeOptions } from "./prober";
import type { ProbeResult } from "./types";

export type { ProbeOptions, ProbeAdvancedOptions } from "./prober";
export { PROBE_DEFAULTS, Prober } from "./prober";
export type { ProbeRunSummary, ProbeDueOptions } from "./run";
export { probeDue, DEFAULT_STALE_AFTER_MS } from "./run";
export type { DocumentResult, ErrorKind, ProbeResult, ProbeSummary, ProbeOutcomeStatus } from "./types";
export { recordProbe, recordProbes, type ProbeRecord } from "./store";
export { selectDueUrls } from "./due";
export { accessFromCapabilities, derive, mapFhirVersion, supportedResources } from "./derive";
export { blockedAddressReason } from "./ip";
export { defaultUserAgent } from "./user-agent";
export type { Db };

/** Probes one base URL (its own limiter and DNS cache). Never throws; failures are in the result. */
export async function probeUrl(url: string, opts: ProbeOptions & ProbeAdvancedOptions = {}): Promise<ProbeResult> {
  return new Prober(opts).probe(url);
}
