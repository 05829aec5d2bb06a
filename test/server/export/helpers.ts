import { afterAll, beforeAll } from "bun:test";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { generatedDatabase } from "../../support/built-once";
import { type ServerProcess, startServer } from "../../support/server-process";
import { removeTempDirs, tempDir } from "../../support/temp-db";

type App = { handle(request: Request): Promise<Response> };

export type { App };

export interface ListRecord {
  id: string;
  url: string;
  vendorName: string;
  vendorId: string;
  organizationName: string | null;
  npi: string | null;
  tenantId: string | null;
  fhirVersion: string;
  access: string[];
  city: string | null;
  state: string | null;
  zipCode: string | null;
  status: string;
  lastUpdated: string;
  environment: string;
  /** Present only for a repaired URL. */
  urlRepair?: string;
}

/**
 * How each record's fhirVersion is known, as the list's `meta.fhirVersionBasis` said it (kept
 * beside the records: they stay exactly the list's JSON).
 */
export const basisOfRecord = new WeakMap<object, string>();

/** Every record the list operation returns for these filters, paging through it 100 at a time. */
export async function pageThroughList(app: App, filters: string): Promise<ListRecord[]> {
  const records: ListRecord[] = [];
  for (let page = 1; ; page++) {
    const qs = `${filters}${filters ? "&" : ""}limit=100&page=${page}`;
    const response = await app.handle(new Request(`http://localhost/api/v1/endpoints?${qs}`));
    if (response.status !== 200) throw new Error(`list ${qs}: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as {
      data: ListRecord[];
      meta: { total: number; fhirVersionBasis: string[] };
    };
    for (const [i, record] of body.data.entries()) basisOfRecord.set(record, body.meta.fhirVersionBasis[i]!);
    records.push(...body.data);
    if (records.length >= body.meta.total || body.data.length === 0) return records;
  }
}

export async function exportText(
  app: App,
  query: string,
  init?: RequestInit,
): Promise<{ response: Response; text: string }> {
  const response = await app.handle(new Request(`http://localhost/api/v1/export?${query}`, init));
  return { response, text: await response.text() };
}

/** An unquoted field's characters: anything but a quote, a comma, CR or LF. */
const UNQUOTED = /[^",\r\n]*/y;

/**
 * An RFC 4180 reader written for the tests (quoted fields with doubled quotes, CRLF records): a
 * quoted field is followed by a comma or CRLF, a quote, CR or LF elsewhere outside quotes is an
 * error, and the last record ends with CRLF. Fields are sliced out whole (the export tests read
 * megabytes of CSV: a character at a time took them seconds).
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field: string;
    if (text[i] === '"') {
      field = "";
      let from = i + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote === -1) throw new Error(`quoted field from ${i} does not end`);
        field += text.slice(from, quote);
        if (text[quote + 1] !== '"') {
          i = quote + 1;
          break;
        }
        field += '"';
        from = quote + 2;
      }
    } else {
      UNQUOTED.lastIndex = i;
      field = UNQUOTED.exec(text)![0];
      i += field.length;
    }
    row.push(field);
    if (text[i] === ",") {
      i++;
      if (i === text.length) throw new Error("last record does not end with CRLF");
    } else if (text[i] === "\r" && text[i + 1] === "\n") {
      rows.push(row);
      row = [];
      i += 2;
    } else if (i === text.length) throw new Error("last record does not end with CRLF");
    else throw new Error(`bare ${JSON.stringify(text[i])} at ${i}`);
  }
  return rows;
}

/** The spec's Endpoint record fields, in the spec's order (written out here, not read from the code). */
export const SPEC_FIELDS = [
  "id",
  "url",
  "vendorName",
  "vendorId",
  "organizationName",
  "npi",
  "tenantId",
  "fhirVersion",
  "access",
  "city",
  "state",
  "zipCode",
  "status",
  "lastUpdated",
] as const;

/** The CSV export's columns: the spec's fields, the environment, then how the version is known. */
export const CSV_FIELDS = [...SPEC_FIELDS, "environment", "urlRepair", "fhirVersionBasis"] as const;

/** A list record as the CSV row the export should hold for it (its basis from basisOfRecord). */
export function expectedCsvRow(record: ListRecord): string[] {
  const basis = basisOfRecord.get(record);
  if (basis === undefined) throw new Error(`no fhirVersionBasis recorded for ${record.id}`);
  return [
    ...SPEC_FIELDS.map((field) => {
      const value = record[field];
      if (value === null) return "";
      return Array.isArray(value) ? value.join("|") : value;
    }),
    record.environment,
    record.urlRepair ?? "",
    basis,
  ];
}

export interface FhirBundle {
  resourceType: string;
  type: string;
  /** Absent when nothing matched (FHIR JSON has no empty arrays). */
  entry?: { fullUrl: string; resource: Record<string, unknown> & { resourceType: string; id: string } }[];
}

/**
 * Starts an export of `path` on the server at `baseUrl` over a raw socket, as `client`
 * (X-Forwarded-For), compressed when `encoding` is given, and stops reading once the headers
 * are in: the body then fills the socket buffers and the export stays in flight.
 */
export function stalledExport(
  baseUrl: string,
  path: string,
  client: string,
  encoding?: string,
): Promise<{ socket: Socket; head: string }> {
  const { hostname, port } = new URL(baseUrl);
  const accept = encoding === undefined ? "" : `Accept-Encoding: ${encoding}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\n${accept}X-Forwarded-For: ${client}\r\n\r\n`);
    });
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      const end = received.indexOf("\r\n\r\n");
      if (end !== -1) {
        socket.pause();
        socket.removeAllListeners("data");
        resolve({ socket, head: received.slice(0, end) });
      }
    });
    socket.on("error", reject);
  });
}

/** A filtered export: streamed, holding a slot (the unfiltered one is a download file and holds none). */
export const STREAMED_EXPORT = "/api/v1/export?format=fhir&fhirVersion=R4";

/**
 * A real server (`bun src/index.ts`) with `env` on a generated dataset of `endpoints` entries
 * (`seed`) in a temporary directory: started before this file's tests (within `timeoutMs`),
 * stopped and deleted after them.
 */
export function serveGeneratedDataset(
  dataset: { endpoints: number; seed: number },
  env: Record<string, string>,
  timeoutMs = 120_000,
): { server: ServerProcess; path: string } {
  const live = {} as { server: ServerProcess; path: string };
  beforeAll(async () => {
    live.path = join(tempDir(), "directory.sqlite");
    await generatedDatabase({ ...dataset, out: live.path });
    live.server = await startServer({ DATABASE_PATH: live.path, ...env }, timeoutMs);
  }, timeoutMs);
  afterAll(async () => {
    await live.server?.stop();
    removeTempDirs();
  });
  return live;
}
