import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { STORED_ERROR_KINDS } from "../../db/history-format";
import { UnusableMeta } from "../../model/endpoints";

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T, description: string) =>
  t.Union([schema, t.Null()], { description });

const Uptime = (window: string) =>
  nullable(
    t.Number({ minimum: 0, maximum: 1 }),
    `Share of the probes of the last ${window} whose /metadata returned a CapabilityStatement, 0 to 1, rounded to 4 places; null when the window holds no probe.`,
  );

const ERROR_KINDS = STORED_ERROR_KINDS.filter((kind) => kind !== null);

const RecentProbeSchema = t.Object({
  at: t.String({ format: "date-time", description: "When the probe was stored (the probe run's clock)." }),
  outcome: t.Union([t.Literal("success"), t.Literal("partial"), t.Literal("failed")], {
    description: "The probe's probeStatus: success both documents, partial one, failed neither.",
  }),
  httpStatus: nullable(Type.Integer(), "Status of /metadata's last HTTP response; null when none arrived."),
  smartHttpStatus: nullable(
    Type.Integer(),
    "Status of /.well-known/smart-configuration's last HTTP response; null when none arrived.",
  ),
  responseTimeMs: nullable(
    Type.Integer({ minimum: 0 }),
    "Time until /metadata's answer was complete (redirects and the one retry included); null when no response arrived.",
  ),
  error: nullable(
    t.String({ enum: ERROR_KINDS }),
    `Why /metadata gave no CapabilityStatement (${ERROR_KINDS.join(", ")}); null when it did.`,
  ),
});

const EXAMPLE = {
  endpointId: "536e0e0884148050bc026e5524449abd886ac72062eec8db25a12ab87d42f038",
  url: "https://mychart.stmaryshospital.com/FHIR/api/FHIR/R4",
  lastProbed: "2026-11-25T04:00:12.000Z",
  uptime: { "1d": 1, "7d": 0.8571, "30d": 0.9667, "365d": 0.9918 },
  responseTimeMs: { median: 412, p95: 1730 },
  lastSuccessAt: "2026-11-25T04:00:12.000Z",
  lastFailureAt: "2026-11-21T04:00:09.000Z",
  recent: [
    {
      at: "2026-11-25T04:00:12.000Z",
      outcome: "success",
      httpStatus: 200,
      smartHttpStatus: 200,
      responseTimeMs: 388,
      error: null,
    },
    {
      at: "2026-11-21T04:00:09.000Z",
      outcome: "failed",
      httpStatus: null,
      smartHttpStatus: null,
      responseTimeMs: null,
      error: "timeout",
    },
  ],
};

/** An endpoint URL's availability: the `data` of /api/v1/endpoints/{id}/availability. */
export const AvailabilitySchema = t.Object({
  endpointId: t.String(),
  url: t.String({ description: "The endpoint's base URL; entries sharing a URL share its availability." }),
  lastProbed: nullable(t.String({ format: "date-time" }), "The URL's newest probe; null while unchecked."),
  uptime: t.Object(
    { "1d": Uptime("24 hours"), "7d": Uptime("7 days"), "30d": Uptime("30 days"), "365d": Uptime("365 days") },
    {
      description:
        "Windows end at the dataset's last update (or the URL's newest probe, if later) and hold the probes after their start (a probe exactly 24 h old is outside 1d). Raw probes are kept 30 days; the older part of 365d counts whole UTC days from the daily figures.",
    },
  ),
  responseTimeMs: t.Object(
    {
      median: nullable(Type.Integer(), "Median /metadata response time; null without a success."),
      p95: nullable(Type.Integer(), "95th percentile (nearest rank); null without a success."),
    },
    { description: "Over the probes of the last 30 days whose /metadata returned a CapabilityStatement." },
  ),
  lastSuccessAt: nullable(
    t.String({ format: "date-time" }),
    "The newest probe whose /metadata returned a CapabilityStatement, within the 400 days kept.",
  ),
  lastFailureAt: nullable(
    t.String({ format: "date-time" }),
    "The newest probe whose /metadata did not, within the 400 days kept.",
  ),
  recent: t.Array(RecentProbeSchema, { description: "The last 20 probes (of the last 30 days), newest first." }),
});

export const AvailabilityResponse = t.Object(
  { success: t.Literal(true), data: AvailabilitySchema, meta: UnusableMeta },
  { examples: [{ success: true, data: EXAMPLE }] },
);
