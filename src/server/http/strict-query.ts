import { WHOLE_NUMBER } from "../../model/request-caps";
import { validationError } from "./api-error";

function decode(part: string, name: string): string {
  if (!part.includes("%") && !part.includes("+")) return part;
  try {
    return decodeURIComponent(part.replaceAll("+", " "));
  } catch {
    throw validationError(`${name}: malformed percent-encoding`);
  }
}

export const NO_PARAMETERS: ReadonlySet<string> = new Set();

function displayName(name: string): string {
  return name === "" ? "(empty name)" : name.length > 64 ? `${name.slice(0, 64)}…` : name;
}

/**
 * Checks what Elysia's query parsing would otherwise let through silently: bad
 * percent-encoding, unknown and repeated parameters, and numbers written other than as
 * plain digits without a leading zero (`WHOLE_NUMBER`). Range, type and enum rules stay in each route's TypeBox schema.
 */
export function checkRawQuery(
  url: string,
  allowed: ReadonlySet<string>,
  integerMessages: Readonly<Record<string, string>> = {},
) {
  const start = url.indexOf("?");
  if (start === -1) return;
  const seen = new Set<string>();
  for (const pair of url.slice(start + 1).split("&")) {
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const name = displayName(decode(rawName, displayName(rawName)));
    const value = decode(equals === -1 ? "" : pair.slice(equals + 1), name);
    if (!allowed.has(name)) throw validationError(`${name}: unknown parameter`);
    if (seen.has(name)) throw validationError(`${name}: given more than once`);
    seen.add(name);
    const integerMessage = integerMessages[name];
    if (integerMessage !== undefined && !WHOLE_NUMBER.test(value)) throw validationError(integerMessage);
  }
}

/**
 * Turns the integer parameters (already checked to be plain digits) into numbers, so the
 * route's schema can declare and range-check them as integers without a TypeBox transform
 * (Elysia decodes transformed query schemas twice a request).
 */
export function integerParams(query: Record<string, unknown>, names: readonly string[]) {
  for (const name of names) {
    const value = query[name];
    if (typeof value === "string") query[name] = Number(value);
  }
}
