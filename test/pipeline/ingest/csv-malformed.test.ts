import { describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { parseCsvRows } from "../../../src/pipeline/ingest/parsers";

/**
 * The list parser's CSV rows against csv-parse, a maintained parser, on malformed and tricky
 * files: where csv-parse stops on bad quoting, ours stops too, naming the line: the line
 * csv-parse names for text after a closing quote; for a quote never closed, the line where it
 * opened (csv-parse names where its parse ended, which says less); where csv-parse
 * reads rows, ours reads the same ones. Ours keeps two leniencies on purpose, given to csv-parse
 * for the well-formed files: a quote inside an unquoted field is text (`relax_quotes`), and rows
 * may differ in length (`relax_column_count`); blank lines are skipped and a BOM dropped.
 */
const OPTIONS = { relax_column_count: true, skip_empty_lines: true, bom: true };
const strict = (text: string) => parse(text, OPTIONS) as string[][];
const lenient = (text: string) => parse(text, { ...OPTIONS, relax_quotes: true }) as string[][];

/** The lines an error names, or the rows read. */
function outcome(read: () => string[][]): { lines: number[] } | { rows: string[][] } {
  try {
    return { rows: read() };
  } catch (error) {
    return { lines: [...(error as Error).message.matchAll(/line (\d+)/g)].map((match) => Number(match[1])) };
  }
}

/** Each malformed file, and for a quote never closed the line where it opens. */
const MALFORMED: Record<string, [string, number?]> = {
  "a quote never closed (the rest of the file would be one field)": [
    'url,name\nhttps://a.example/r4,"Clinic A\nhttps://b.example/r4,Clinic B\nhttps://c.example/r4,Clinic C\n',
    2,
  ],
  "a quote never closed on the last line": [
    'url,name\nhttps://a.example/r4,Clinic A\nhttps://b.example/r4,"Clinic B',
    3,
  ],
  "a quoted field spanning lines, then one left open": ['url,name\nhttps://a.example/r4,"two\nlines"\nx,"open\n\n', 4],
  "text after a closing quote": ['url,name\nhttps://a.example/r4,"Clinic" A\nhttps://b.example/r4,B\n'],
  "text after a closing quote, further down": ['url,name\na,b\nc,d\nhttps://e.example/r4,"E"x,f\n'],
  "a closing quote followed by a space": ['url,name\nhttps://a.example/r4,"A" \n'],
};

const WELL_FORMED: Record<string, string> = {
  "CRLF, a BOM, quoted delimiters, doubled quotes and a line break":
    '\ufeffurl,name\r\n"https://a.example/r4","A, ""the"" clinic\r\nsecond line"\r\n',
  "a quote inside an unquoted field": 'url,name\nhttps://a.example/r4,St Mary"s\n',
  "rows of different lengths and blank lines":
    "url,name,city\n\nhttps://a.example/r4,A\n\nhttps://b.example/r4,B,Boston,extra\n",
  "an empty quoted field and a trailing delimiter": 'url,name,\nhttps://a.example/r4,"",\n',
  "no line end at the end": "url,name\nhttps://a.example/r4,A",
};

describe("CSV lists: malformed quoting stops the parse at the line csv-parse names", () => {
  for (const [name, [text, opened]] of Object.entries(MALFORMED))
    test(name, () => {
      const theirs = outcome(() => strict(text));
      expect(theirs).toEqual({ lines: [expect.any(Number)] });
      const ours = outcome(() => parseCsvRows(text, ","));
      expect(ours).toEqual({
        lines: [opened ?? (theirs as { lines: number[] }).lines[0]!, ...(opened ? [expect.any(Number)] : [])],
      });
    });
});

describe("CSV lists: well-formed files read as csv-parse reads them", () => {
  for (const [name, text] of Object.entries(WELL_FORMED))
    test(name, () => {
      expect(outcome(() => parseCsvRows(text, ","))).toEqual({ rows: lenient(text) });
    });
});
