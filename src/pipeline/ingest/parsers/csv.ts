import { type CsvColumn, type CsvColumns, type ParseResult, type RawEntry, UnparseableListError } from "../types";

/** The delimiter of the first line: comma, semicolon or tab, whichever occurs most. */
function detectDelimiter(text: string): string {
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  let best = ",";
  let bestCount = 0;
  for (const candidate of [",", ";", "\t"]) {
    const count = firstLine.split(candidate).length - 1;
    if (count > bestCount) [best, bestCount] = [candidate, count];
  }
  return best;
}

/**
 * RFC 4180 rows: quoted fields may hold delimiters, `""` and line breaks; CRLF or LF. Malformed
 * quoting stops the parse, naming the line, as csv-parse does: a quote left open at the end of
 * the file (which would make the rest of the file one field) and text after a closing quote. A
 * quote inside an unquoted field is kept as text (csv-parse's `relax_quotes`), and rows may
 * differ in length (`relax_column_count`).
 */
export function parseCsvRows(text: string, delimiter = detectDelimiter(text)): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  /** Whether the field's closing quote was read: only a delimiter or a line end may follow. */
  let closed = false;
  let line = 1;
  let openedOn = 0;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === "\n") line++;
      if (char !== '"') field += char;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else {
        quoted = false;
        closed = true;
      }
    } else if (char === delimiter) {
      row.push(field);
      field = "";
      closed = false;
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      closed = false;
      line++;
    } else if (closed)
      throw new UnparseableListError(`CSV line ${line}: ${JSON.stringify(char)} after a closing quote`);
    else if (char === '"' && field.trim() === "") {
      quoted = true;
      openedOn = line;
      field = "";
    } else field += char;
  }
  if (quoted)
    throw new UnparseableListError(
      `CSV line ${openedOn}: a quote opened here is never closed (the file ends on line ${line})`,
    );
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((cell) => cell.trim() !== ""));
}

const key = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, "");
const looksLikeUrl = (cell: string) => /^\s*https?:\/\//i.test(cell);

/** How each field's header may read (normalised keys), most telling first. */
const HEADER_GUESSES: Record<keyof CsvColumns, ((k: string) => boolean)[]> = {
  url: [(k) => k.includes("url"), (k) => k === "endpoint" || k === "fhirendpoint" || k === "address"],
  organizationName: [
    (k) => k.includes("organization") || k.includes("practicename") || k.includes("facility"),
    (k) => k === "name",
  ],
  // Only by the list's mapping: a second name column is not guessed.
  organizationFallback: [],
  npi: [(k) => k.includes("npi")],
  city: [(k) => k.includes("city")],
  state: [(k) => k === "state" || k.endsWith("state")],
  zipCode: [(k) => k.includes("zip") || k.includes("postal")],
  fhirVersion: [(k) => k.includes("version")],
};

function columnIndex(headers: string[] | null, column: CsvColumn | undefined): number {
  if (column === undefined) return -1;
  if (typeof column === "number") return column;
  return headers ? headers.findIndex((h) => key(h) === key(column)) : -1;
}

function guessColumns(headers: string[]): Record<keyof CsvColumns, number> {
  const keys = headers.map(key);
  const result = {} as Record<keyof CsvColumns, number>;
  const taken = new Set<number>();
  for (const field of Object.keys(HEADER_GUESSES) as (keyof CsvColumns)[]) {
    result[field] = -1;
    for (const guess of HEADER_GUESSES[field]) {
      const index = keys.findIndex((k, i) => !taken.has(i) && guess(k));
      if (index < 0) continue;
      result[field] = index;
      taken.add(index);
      break;
    }
  }
  return result;
}

/**
 * A CSV endpoint list. Columns come from the list's mapping (header names or indexes); without
 * one they are guessed from the header row. A file whose first row already holds a URL has no header.
 */
export function parseCsv(text: string, mapping?: CsvColumns): ParseResult {
  const rows = parseCsvRows(text);
  const first = rows[0];
  if (!first) throw new UnparseableListError("CSV without rows");
  const hasHeader = !first.some(looksLikeUrl);
  const headers = hasHeader ? first.map((h) => h.trim()) : null;
  const columns = mapping
    ? (Object.fromEntries(
        Object.keys(HEADER_GUESSES).map((f) => [f, columnIndex(headers, mapping[f as keyof CsvColumns])]),
      ) as Record<keyof CsvColumns, number>)
    : headers
      ? guessColumns(headers)
      : ({
          url: first.findIndex(looksLikeUrl),
          organizationName: -1,
          organizationFallback: -1,
          npi: -1,
          city: -1,
          state: -1,
          zipCode: -1,
          fhirVersion: -1,
        } as Record<keyof CsvColumns, number>);
  if (columns.url < 0) throw new UnparseableListError("CSV without a URL column");

  const cell = (row: string[], index: number) => (index >= 0 ? (row[index] ?? null) : null);
  const entries: RawEntry[] = [];
  let skipped = 0;
  for (const row of hasHeader ? rows.slice(1) : rows) {
    const url = cell(row, columns.url)?.trim();
    if (!url) {
      skipped++;
      continue;
    }
    entries.push({
      url,
      organizationName: cell(row, columns.organizationName)?.trim() || cell(row, columns.organizationFallback),
      npi: cell(row, columns.npi),
      city: cell(row, columns.city),
      state: cell(row, columns.state),
      zipCode: cell(row, columns.zipCode),
      fhirVersion: cell(row, columns.fhirVersion),
    });
  }
  return { format: "csv", entries, skipped };
}
