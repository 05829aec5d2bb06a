import { type CsvColumns, type ListFormat, type ParseResult, UnparseableListError } from "../types";
import { parseCsv } from "./csv";
import { parseFhirBundle } from "./fhir-bundle";
import { isObject } from "./fhir-organization";
import { flatItems, parseFlatJson } from "./flat-json";

export { parseCsv, parseCsvRows } from "./csv";

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function formatOfJson(json: unknown): ListFormat | null {
  if (isObject(json) && json.resourceType === "Bundle") return "fhir-bundle";
  return flatItems(json) ? "lantern-json" : null;
}

function looksLikeCsv(text: string): boolean {
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  return (
    !firstLine.trimStart().startsWith("<") && /[,;\t]/.test(firstLine) && /https?:\/\//i.test(text.slice(0, 65536))
  );
}

/** Which of the formats the content is in, from the content alone; null when none. */
export function detectFormat(content: string): ListFormat | null {
  const text = stripBom(content).trimStart();
  if (text.startsWith("{") || text.startsWith("[")) {
    try {
      return formatOfJson(JSON.parse(text));
    } catch {
      return null;
    }
  }
  return looksLikeCsv(text) ? "csv" : null;
}

/**
 * Parses a list body in whatever format its content shows (a registry's format is only a
 * default). Throws UnparseableListError when the body is in none of them.
 */
export function parseList(content: string, csvColumns?: CsvColumns): ParseResult {
  const text = stripBom(content).trimStart();
  if (text.startsWith("{") || text.startsWith("[")) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new UnparseableListError(`invalid JSON: ${(error as Error).message}`);
    }
    if (isObject(json) && json.resourceType === "Bundle") return parseFhirBundle(json);
    const items = flatItems(json);
    if (items) return parseFlatJson(items);
    throw new UnparseableListError("JSON that is neither a FHIR Bundle nor an endpoint list");
  }
  if (looksLikeCsv(text)) return parseCsv(text, csvColumns);
  throw new UnparseableListError(
    text.startsWith("<") ? "an HTML or XML page, not an endpoint list" : "not JSON or CSV",
  );
}
