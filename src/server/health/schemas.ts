import { t } from "elysia";

/** The liveness answer of /health. */
export const HealthResponse = t.Object(
  {
    success: t.Literal(true),
    data: t.Object({ status: t.Literal("ok"), timestamp: t.String({ format: "date-time" }) }),
  },
  { examples: [{ success: true, data: { status: "ok", timestamp: "2026-11-26T18:00:00.000Z" } }] },
);
