interface ValueErrorLike {
  path?: string;
  message?: string;
  schema?: { error?: unknown };
}

/**
 * `<parameter>: <reason>` for Elysia's ValidationError. Each field schema carries its own
 * message (`error`), because for range errors on converted numbers Elysia reports an empty
 * path and the parameter name would be lost.
 */
export function validationMessage(error: { all?: ValueErrorLike[]; type?: string }): string {
  const first = error.all?.[0];
  if (!first) return `${error.type ?? "request"}: invalid`;
  if (typeof first.schema?.error === "string") return first.schema.error;
  const name = first.path?.replace(/^\//, "").split("/")[0] || error.type || "request";
  return `${name}: ${first.message ?? "invalid"}`;
}
