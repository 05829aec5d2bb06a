interface ValueErrorLike {
  path?: string;
  message?: string;
  schema?: { "x-error"?: unknown };
}

/**
 * `<parameter>: <reason>` for Elysia's ValidationError. Each field schema carries its own
 * message (`x-error`, an OpenAPI extension keyword), because for range errors on converted numbers Elysia reports an empty
 * path and the parameter name would be lost.
 */
export function validationMessage(error: { all?: ValueErrorLike[]; type?: string }): string {
  const first = error.all?.[0];
  if (!first) return `${error.type ?? "request"}: invalid`;
  const own = first.schema?.["x-error"];
  if (typeof own === "string") return own;
  const name = first.path?.replace(/^\//, "").split("/")[0] || error.type || "request";
  return `${name}: ${first.message ?? "invalid"}`;
}
