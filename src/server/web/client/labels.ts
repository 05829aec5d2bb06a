import {
  type AppKind,
  READY,
  READY_KIND,
  type Ready,
  type Supports,
  type VERDICT_STATUSES,
} from "../../../model/capability-rules";
import type { ProbeStatus } from "../../../model/types";

/** How the page names capability values; the page shell (page-html.ts) and the script share them. */

/** The `supports=` values as the page names them (docs/api.md, Facets). */
export const SUPPORTS_LABELS: Record<Supports, string> = {
  "us-core": "US Core",
  "bulk-export": "Bulk export",
  "smart-v2": "SMART v2",
  pkce: "PKCE (S256)",
  "backend-services": "Backend services",
  "launch-ehr": "EHR launch",
  "launch-standalone": "Standalone launch",
};
/** The verdict's app kinds as the page names them. */
export const APP_KIND_LABELS: Record<AppKind, string> = {
  patientApps: "Patient apps",
  providerApps: "Provider apps",
  backendServices: "Backend services",
};
/** The `ready=` values, named as their app kinds (docs/api.md, Verdict). */
export const READY_LABELS = Object.fromEntries(
  READY.map((value) => [value, APP_KIND_LABELS[READY_KIND[value]]]),
) as Record<Ready, string>;
/**
 * The verdict's statuses as the page names them: one label per value of the schema's list, so a
 * new status must be named here (the type requires it); a status the page does not know yet
 * (a newer server) shows as sent.
 */
export const VERDICT_LABELS: Record<(typeof VERDICT_STATUSES)[number], string> = {
  ready: "Ready",
  partial: "Partly",
  no: "No",
  unknown: "Not known",
};
/** A probe's outcome (`recent[].outcome`) as the availability strip names it. */
export const OUTCOME_LABELS: Record<Exclude<ProbeStatus, "unchecked">, string> = {
  success: "answered",
  partial: "answered in part",
  failed: "failed",
};
