/**
 * Probe: enriches the directory from each distinct base URL's live `/metadata` and
 * `/.well-known/smart-configuration`.
 */

import type { ProbeResult } from "../../model/probe";
import { type ProbeAdvancedOptions, type ProbeOptions, Prober } from "./prober";

export { selectDueUrls } from "../../db/due-urls";
export type { ProbeResult } from "../../model/probe";
export type { ProbeAdvancedOptions, ProbeOptions } from "./prober";
export { Prober } from "./prober";
export { probeDue } from "./run";
export { recordProbe, recordProbes } from "./store";

/** Probes one base URL (its own limiter and DNS cache). Never throws; failures are in the result. */
export async function probeUrl(url: string, opts: ProbeOptions & ProbeAdvancedOptions = {}): Promise<ProbeResult> {
  return new Prober(opts).probe(url);
}
