import {
  type AppKind,
  READY,
  READY_KIND,
  type Ready,
  type Supports,
  VERDICT_STATUS_MEANINGS,
  type VerdictStatus,
} from "../../../model/capability-rules";
import type { ProbeStatus } from "../../../model/types";
import type { VendorKind } from "../../../model/vendors";

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
  "permission-offline": "Refresh tokens",
  "sso-openid-connect": "OpenID Connect",
  "dynamic-registration": "Dynamic registration",
  "client-public": "Public clients",
  "client-confidential-symmetric": "Client secret",
  "client-confidential-asymmetric": "Private key JWT",
  "carin-bb": "CARIN Blue Button",
  "davinci-pdex": "Da Vinci PDex",
  "plan-net": "Plan Net directory",
  "explanation-of-benefit": "ExplanationOfBenefit",
};
/** The developers' kinds as the page names them (`kind` of /api/v1/vendors). */
export const VENDOR_KIND_LABELS: Record<VendorKind, string> = {
  ehr: "EHR developer (certified health IT)",
  payer: "Health plan (Patient Access API)",
};
/** The same kinds as the `kind` filter's choices name them: short, so a narrow select shows them whole. */
export const KIND_FILTER_LABELS: Record<VendorKind, string> = {
  ehr: "EHR developers",
  payer: "Health plans",
};
/** The verdict's statuses as the page names them, with what each means (docs/api.md, Verdict). */
const VERDICT_STATUS_LABELS: Record<VerdictStatus, { label: string; meaning: string }> = {
  ready: { label: "Ready", meaning: VERDICT_STATUS_MEANINGS.ready },
  partial: { label: "Incomplete", meaning: VERDICT_STATUS_MEANINGS.partial },
  no: { label: "Not offered", meaning: VERDICT_STATUS_MEANINGS.no },
  undeclared: { label: "Nothing declared", meaning: VERDICT_STATUS_MEANINGS.undeclared },
  unknown: { label: "Unknown", meaning: VERDICT_STATUS_MEANINGS.unknown },
};
/** A status as the API sends it (typed as a string), named; an unknown one as itself. */
export const verdictStatusLabel = (status: string): { label: string; meaning: string } =>
  (VERDICT_STATUS_LABELS as Record<string, { label: string; meaning: string } | undefined>)[status] ?? {
    label: status,
    meaning: "",
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
/** A probe's outcome (`recent[].outcome`) as the availability strip names it. */
export const OUTCOME_LABELS: Record<Exclude<ProbeStatus, "unchecked">, string> = {
  success: "answered",
  partial: "answered in part",
  failed: "failed",
};
