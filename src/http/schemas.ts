import { t } from "elysia";

export const ErrorEnvelope = t.Object(
  {
    success: t.Literal(false),
    error: t.Object({
      code: t.String({
        description:
          "Machine-readable code: VALIDATION_ERROR, NOT_FOUND, ENDPOINT_NOT_FOUND, METHOD_NOT_ALLOWED, TOO_MANY_REQUESTS, EXPORTS_BUSY, INVALID_API_KEY, INTERNAL_ERROR.",
      }),
      message: t.String({
        description:
          "Human-readable; for validation errors `<parameter>: <reason>` naming the first offending parameter.",
      }),
    }),
  },
  { description: "Every error has this envelope." },
);

/** Operations without parameters still reject any query parameter with 400. */
export const NoQuery = t.Object({}, { additionalProperties: false });
