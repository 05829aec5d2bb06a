import type { Server } from "bun";
import { Elysia, t } from "elysia";
import type { TrustProxy } from "../../config";
import { brandsFilter } from "../../directory/brands";
import type { Directory } from "../../directory/directory";
import { type EndpointFilter, filterKey } from "../../directory/search";
import { checkSearchCost, toEndpointFilter } from "../endpoints/filter";
import { DATASET_ANSWER_HEADERS } from "../http/answers";
import { ApiError, validationError } from "../http/api-error";
import { clientGroup, clientIp } from "../http/client-ip";
import { negotiateEncoding } from "../http/compression";
import { datasetEtag, httpDate, notModified } from "../http/conditional";
import { type Exchange, exchanges, headersFor } from "../http/exchange";
import { DOWNLOAD_IDLE_SECONDS } from "../http/idle-timeout";
import { originOf } from "../http/public-origin";
import { API_ERRORS, ErrorEnvelope, NOT_MODIFIED } from "../http/schemas";
import { checkRawQuery } from "../http/strict-query";
import { downloadResponse, variantFor } from "./download";
import { type DownloadFiles, type ExportFiles, SupersededWrite } from "./files";
import { InFlightExports } from "./in-flight";
import type { ExportFormat } from "./schemas";
import {
  CsvExportSchema,
  EXPORT_QUERY_KEYS,
  ExportQuery,
  FhirBundleSchema,
  NdjsonExportSchema,
  PAGING_KEYS,
} from "./schemas";
import { exportStream, FORMATS } from "./service";

/**
 * Rows of a filtered export that cost one request of the rate limit: a filtered export of `n`
 * rows costs ⌈n / EXPORT_ROWS_PER_REQUEST⌉ requests, counted before it is written. Writing a row
 * takes 4–8 µs of CPU (the costliest: the brands bundle through gzip), so one request's worth is
 * at most about 35 ms, within the 40 ms every other request is bounded to (bench/README.md,
 * Fairness).
 */
export const EXPORT_ROWS_PER_REQUEST = 4_000;

/** Same policy as the other data answers: reusable for a few minutes, then revalidated with the ETag. */
const ACCEPTED_KEYS: ReadonlySet<string> = new Set([...EXPORT_QUERY_KEYS, ...PAGING_KEYS]);
/** The brands bundle's URL takes the list's filters (its format is its own). */
const BrandsQuery = t.Omit(ExportQuery, ["format"], { additionalProperties: false });
const BRANDS_KEYS: ReadonlySet<string> = new Set([...ACCEPTED_KEYS].filter((key) => key !== "format"));

const CSV_EXAMPLE = `id,url,vendorName,vendorId,organizationName,npi,tenantId,fhirVersion,access,city,state,zipCode,status,lastUpdated,environment,urlRepair,fhirVersionBasis
536e0e08…,https://mychart.stmaryshospital.com/FHIR/api/FHIR/R4,Epic Systems,epic,St. Mary's Hospital,,,R4,patient|provider,Charleston,WV,25398,verified,2026-11-03T04:00:00.000Z,production,,probe
cbf191d7…,https://fhir-ehr.cerner.com/r4/868d371e-…,Oracle Health,oracle-health,"Clinic ""Norte"", Main St.",1234567893,868d371e-…,R4,provider,Atlanta,GA,30368,unresponsive,2026-11-03T04:00:00.000Z,production,,list
`;

const NDJSON_EXAMPLE = `{"id":"536e0e08…","url":"https://mychart.stmaryshospital.com/FHIR/api/FHIR/R4","vendorName":"Epic Systems","vendorId":"epic","organizationName":"St. Mary's Hospital","npi":null,"tenantId":null,"fhirVersion":"R4","access":["patient","provider"],"city":"Charleston","state":"WV","zipCode":"25398","status":"verified","lastUpdated":"2026-11-03T04:00:00.000Z","environment":"production"}
{"id":"cbf191d7…","url":"https://fhir-ehr.cerner.com/r4/868d371e-…","vendorName":"Oracle Health","vendorId":"oracle-health","organizationName":"Clinic \\"Norte\\", Main St.","npi":"1234567893","tenantId":"868d371e-…","fhirVersion":"R4","access":["provider"],"city":"Atlanta","state":"GA","zipCode":"30368","status":"unresponsive","lastUpdated":"2026-11-03T04:00:00.000Z","environment":"production"}
`;

const FHIR_EXAMPLE = `{"resourceType":"Bundle","type":"collection","timestamp":"2026-11-04T09:00:00.000Z","entry":[
{"fullUrl":"https://directory.example.org/fhir/Organization/developer-epic","resource":{"resourceType":"Organization","id":"developer-epic","name":"Epic Systems"}},
{"fullUrl":"https://directory.example.org/fhir/Endpoint/744ce827e6abcf67a5fd243053cb2bd3e64604c6654f7dd49a5d1ec02f8a99b2","resource":{"resourceType":"Endpoint","id":"744ce827e6abcf67a5fd243053cb2bd3e64604c6654f7dd49a5d1ec02f8a99b2","extension":[{"url":"http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version","valueCode":"4.0.1"},{"url":"https://endpoint-directory.fly.dev/fhir/StructureDefinition/endpoint-fhir-version-basis","valueCode":"probe"}],"status":"active","connectionType":{"system":"http://terminology.hl7.org/CodeSystem/endpoint-connection-type","code":"hl7-fhir-rest"},"payloadType":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/endpoint-payload-type","code":"any","display":"Any"}]}],"address":"https://mychart.stmaryshospital.com/FHIR/api/FHIR/R4","managingOrganization":{"reference":"Organization/developer-epic"}}},
{"fullUrl":"https://directory.example.org/fhir/Organization/ea9e405b05baf745795d17847412be08299555ef8d0babd138cbf75fff375518","resource":{"resourceType":"Organization","id":"ea9e405b05baf745795d17847412be08299555ef8d0babd138cbf75fff375518","name":"St. Mary's Hospital","address":[{"city":"Charleston","state":"WV","postalCode":"25398"}],"endpoint":[{"reference":"Endpoint/744ce827e6abcf67a5fd243053cb2bd3e64604c6654f7dd49a5d1ec02f8a99b2"}]}}]}`;

const BRANDS_EXAMPLE = `{"resourceType":"Bundle","meta":{"lastUpdated":"2026-11-04T09:00:00.000Z"},"type":"collection","timestamp":"2026-11-04T09:00:00.000Z","entry":[
{"fullUrl":"https://endpoint-directory.fly.dev/fhir/Endpoint/744ce827e6abcf67a5fd243053cb2bd3e64604c6654f7dd49a5d1ec02f8a99b2","resource":{"resourceType":"Endpoint","id":"744ce827e6abcf67a5fd243053cb2bd3e64604c6654f7dd49a5d1ec02f8a99b2","meta":{"lastUpdated":"2026-11-03T04:00:00.000Z"},"extension":[{"url":"http://hl7.org/fhir/StructureDefinition/endpoint-fhir-version","valueCode":"4.0.1"},{"url":"https://endpoint-directory.fly.dev/fhir/StructureDefinition/endpoint-fhir-version-basis","valueCode":"probe"}],"status":"active","connectionType":{"system":"http://terminology.hl7.org/CodeSystem/endpoint-connection-type","code":"hl7-fhir-rest"},"payloadType":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/endpoint-payload-type","code":"none","display":"None"}]}],"address":"https://mychart.stmaryshospital.com/FHIR/api/FHIR/R4","contact":[{"system":"url","value":"https://open.epic.com/MyApps/Endpoints"}]}},
{"fullUrl":"https://endpoint-directory.fly.dev/fhir/Organization/ea9e405b05baf745795d17847412be08299555ef8d0babd138cbf75fff375518","resource":{"resourceType":"Organization","id":"ea9e405b05baf745795d17847412be08299555ef8d0babd138cbf75fff375518","meta":{"lastUpdated":"2026-11-03T04:00:00.000Z"},"name":"St. Mary's Hospital","telecom":[{"extension":[{"url":"http://hl7.org/fhir/StructureDefinition/data-absent-reason","valueCode":"asked-unknown"}],"system":"url"}],"address":[{"city":"Charleston","state":"WV","postalCode":"25398","country":"US"}],"endpoint":[{"reference":"Endpoint/744ce827e6abcf67a5fd243053cb2bd3e64604c6654f7dd49a5d1ec02f8a99b2"}]}}]}`;

const BRANDS_DESCRIPTION = `The whole directory (or the entries matching the list's filters, the same parameters validated the same way) as one SMART App Launch 2.2 **User-access Brands Bundle**: a FHIR R4 \`Bundle\` of type \`collection\` with \`meta.lastUpdated\` and \`timestamp\` (the dataset's last refresh), the resources and ids of \`export?format=fhir\` shaped to the User Access Brand and User Access Endpoint profiles, each with \`meta.lastUpdated\`:

- an \`Endpoint\` per distinct URL whose FHIR version is known (the profile requires the \`endpoint-fhir-version\` extension; unknown ones are left out), \`connectionType\` hl7-fhir-rest, \`payloadType\` none, \`address\`, \`contact\` the developer's page for app developers (its endpointListUrl) when it is https://, else a url whose value is absent with the data-absent-reason \`asked-unknown\` (no http:// link is given to a patient app); a host-guessed address is left out until a probe verifies it;
- an \`Organization\` (brand) per named organization with an Endpoint left: \`name\`, \`telecom\` a url with the data-absent-reason \`asked-unknown\` (no list publishes a brand's website), NPI \`identifier\`, \`address\` with \`country\` US, \`endpoint\` references; one brand per practice (names that differ only in letter case, punctuation or spacing and that share an Endpoint, or an NPI and an address, are one brand, the other spellings its \`alias\`); a brand whose NPI another brand carries under another name says why in its narrative (\`text\`); organizations published without a name are left out (a brand's name is required);
- a developer (\`developer-<vendorId>\`) as a brand, its page as \`telecom\` (when https://, else the data-absent-reason), only when some of its Endpoints are named by no organization: it offers exactly those, so that every Endpoint is named by a brand.

Non-production entries (test, QA, demo, sandbox, development, staging, training servers and placeholder organizations: the \`environment\` of the record) are left out unless \`environment=non-production\` asks for them.

The unfiltered bundle is a download file per dataset version, as \`export?format=brands\` (which names it as an attachment): \`Content-Length\`, a strong \`ETag\` (a hash of its bytes; 304 on \`If-None-Match\`), \`Accept-Ranges\`, gzip when accepted, its \`fullUrl\`s under the server's public origin (PUBLIC_ORIGIN). Filtered, it is streamed under the request's origin with a weak \`ETag\`, holding an export slot. CORS always. No portal or logo extensions: no list we read publishes them. See docs/api.md, "Brands bundle".`;

/** The 200's bodies, per format. */
const EXPORT_CONTENT = {
  "text/csv": { schema: CsvExportSchema, example: CSV_EXAMPLE },
  "application/x-ndjson": { schema: NdjsonExportSchema, example: NDJSON_EXAMPLE },
  "application/fhir+json": { schema: FhirBundleSchema as object, example: JSON.parse(FHIR_EXAMPLE) },
};

/** A response header of the OpenAPI document's components, by reference. */
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The headers of a download's 200: the file's name, and that a byte range of it may be asked for. */
const DOWNLOAD_HEADERS = {
  "Content-Disposition": headerRef("Content-Disposition"),
  "Accept-Ranges": headerRef("Accept-Ranges"),
};

/** A download's 206 answer: a byte range of the unfiltered `whose` download file, as `content` says. */
const partialAnswer = (whose: string, content: Record<string, { schema: object; example: string }>) => ({
  description: `Part of the unfiltered ${whose} download file: the one byte range \`Range\` asked for (with \`If-Range\`, only while the file is still the one its ETag names).`,
  headers: {
    "Content-Disposition": headerRef("Content-Disposition"),
    "Content-Range": headerRef("Content-Range"),
    "Accept-Ranges": headerRef("Accept-Ranges"),
  },
  content,
});

const fence = (text: string) => `\`\`\`\n${text.trimEnd()}\n\`\`\``;

const DESCRIPTION = `Every endpoint matching the list operation's filters (the same parameters, validated the same way; no \`page\` or \`limit\`), in the list's order, as one download: the entries the list would page through, removed entries excluded as there.

The file name in \`Content-Disposition\` carries the dataset version. The \`ETag\` depends on the dataset version, the format and the filters (not on their order in the URL): send it back in \`If-None-Match\` for a 304. The unfiltered export (a download file) counts as one request against the rate limit; a filtered one pays for its rows before any is written: ⌈rows / ${EXPORT_ROWS_PER_REQUEST}⌉ requests, 429 with Retry-After when the quota left in the window is less, 400 when the whole quota is (narrow the filters, use the download file, or an API key).

**The unfiltered export** (no filter: the whole directory) is a download file per dataset version and format (the FHIR and brands Bundles name the server's public origin, PUBLIC_ORIGIN, in their \`fullUrl\`s, whatever the Host), served with \`Content-Length\`, a strong \`ETag\` (a hash of its bytes) and \`Accept-Ranges: bytes\`, gzip-compressed when the client accepts gzip: a cut download resumes with \`Range: bytes=<first>-\` and \`If-Range: <ETag>\` (206 with \`Content-Range\`; the whole new file when the dataset moved on; 416 past the end). It holds no export slot, however slowly it is read.

**A filtered export** is streamed as it is produced (gzip or br when accepted): a client may run at most 2 at a time (an IPv6 client counted by its /48), a third gets 429 with \`Retry-After\` (when one of the running exports is expected to finish at its pace so far); the server runs at most \`EXPORT_MAX_RUNNING\` at a time, every client together: beyond it, 503 \`EXPORTS_BUSY\` with \`Retry-After\`. A reader that stalls is disconnected after 30 s without progress, giving its slot back.

**format=csv** (\`text/csv; charset=utf-8\`, RFC 4180, CRLF line ends): a header row of the Endpoint record's fields in the record's order then \`fhirVersionBasis\` (how the version is known: probe, list, url, certification — inferred, not seen — or unknown), \`access\` joined with \`|\`, an empty cell for null; a cell starting with \`=\`, \`+\`, \`-\`, \`@\`, tab or CR gets a \`'\` in front (spreadsheets would run it as a formula; other formats keep the text as published); a field holding a quote, comma or line break is quoted, its quotes doubled.

${fence(CSV_EXAMPLE)}

**format=ndjson** (\`application/x-ndjson\`): one Endpoint record per line, exactly as the list returns it.

${fence(NDJSON_EXAMPLE)}

**format=fhir** (\`application/fhir+json\`): one FHIR R4 \`Bundle\` of type \`collection\`, the shape vendors publish their lists in: an \`Endpoint\` per distinct URL (\`address\`; \`status\` active for listed and verified, error for unresponsive; \`connectionType\` hl7-fhir-rest; \`payloadType\` any; the FHIR version in the \`endpoint-fhir-version\` extension and how it is known in our own \`endpoint-fhir-version-basis\` extension (probe, list, url, certification), neither when unknown; status and version from the URL's first entry in list order; \`managingOrganization\` the developer), the developer as an \`Organization\` with id \`developer-<vendorId>\`, and an \`Organization\` per organization of a vendor (same name, NPI, city, state and ZIP: \`name\`, NPI \`identifier\` with system http://hl7.org/fhir/sid/us-npi, \`address\` city/state/postalCode, one \`endpoint\` reference per URL it publishes). Resource ids are SHA-256 hashes, stable across dataset versions; every entry's \`fullUrl\` is \`<origin>/fhir/<type>/<id>\`, under the public origin in the download file, under the origin the request addressed when filtered; no \`entry\` when nothing matches. Our own \`ingest\` reads the file back into the same entries.

${fence(FHIR_EXAMPLE)}

**format=brands** (\`application/fhir+json\`): the same resources as a SMART App Launch 2.2 User-access Brands Bundle; see \`GET /api/v1/brands\`.`;

/**
 * The ETag's target: the format and the parsed filter, so equivalent URLs (another parameter
 * order) share it, and for the FHIR Bundle the origin its absolute URLs are under.
 */
const etagTarget = (format: string, filter: object, origin: string) =>
  `http://export/api/v1/export?format=${format}&filter=${encodeURIComponent(filterKey(filter as never))}${format === "fhir" || format === "brands" ? `&origin=${encodeURIComponent(origin)}` : ""}`;

/**
 * Whom the filtered exports' per-client cap counts: the API key, else the address, an IPv6
 * client by its /48 (a site's whole allocation: rotating through its /64s is not more clients).
 */
function exportClient(exchange: Exchange, server: Server<unknown> | null, trustProxy: TrustProxy): string {
  const tag = exchange.client;
  if (tag?.startsWith("key:")) return tag;
  return clientGroup(clientIp(exchange.received, server, trustProxy), 48);
}

/** No filter at all: the whole directory, the export served from its download files. */
const unfiltered = (filter: EndpointFilter) => filter.queryWords.length === 0 && Object.keys(filter).length === 1;

export interface ExportOptions {
  /** The filtered exports' slots (per client and server-wide). */
  inFlight?: InFlightExports;
  /** The unfiltered exports' download files; without it every export is streamed. */
  files?: ExportFiles;
  trustProxy?: TrustProxy;
  /** The server's idle time-out (IDLE_TIMEOUT_SECONDS), set back on a request that waited for a download file. */
  idleTimeoutSeconds: number;
  /** Told when a download file cannot be written (the export is streamed instead). */
  onFileError?: (error: unknown) => void;
  /**
   * Counts `units` more requests of the client's rate limit for a filtered export's rows, or
   * throws its refusal (src/server/rate-limit/plugin.ts); exports are not charged without it.
   */
  charge?: (exchange: Exchange, server: Server<unknown> | null, units: number, what: string) => Promise<void>;
}

/**
 * The answer to an export request of `formatName`: the unfiltered export from its download
 * file, a filtered one streamed. `download` is false for the brands bundle's own URL, which
 * names no file (no Content-Disposition).
 */
function exportAnswer(
  directory: Directory,
  options: ExportOptions & { inFlight: InFlightExports },
  exchange: Exchange,
  server: Server<unknown> | null,
  query: Record<string, unknown>,
  formatName: ExportFormat,
  download: boolean,
): Response | Promise<Response> {
  const { inFlight, files, trustProxy = null, idleTimeoutSeconds, onFileError = () => {}, charge } = options;
  const snapshot = directory.current;
  const asked = toEndpointFilter(query as Parameters<typeof toEndpointFilter>[0]);
  // The brands bundle is what patient apps show patients: its own filter (brandsFilter).
  const filter = formatName === "brands" ? brandsFilter(asked) : asked;
  // The export reads what one list page does, bar the records (streamed page by page).
  checkSearchCost(snapshot.search.cost(filter, 0), filter);
  const format = FORMATS[formatName];
  const { request, received } = exchange;
  const origin = originOf(exchange);
  const lastModified = httpDate(snapshot.stats.lastUpdated);
  const headers = headersFor(exchange, DATASET_ANSWER_HEADERS, lastModified ? { "last-modified": lastModified } : {});
  const named = () => {
    headers.set("content-type", format.contentType);
    // The brands bundle's own URL is shown, not saved: `inline`, which also keeps the runtime
    // from naming the file on disk (it does for a file body without a Content-Disposition).
    headers.set(
      "content-disposition",
      download ? `attachment; filename="endpoint-directory-v${snapshot.version}.${format.extension}"` : "inline",
    );
  };
  const fromFile = (written: DownloadFiles) => {
    const file = variantFor(written, request);
    if (notModified(request, file.etag, snapshot.stats.lastUpdated)) {
      headers.set("etag", file.etag);
      return new Response(null, { status: 304, headers });
    }
    named();
    const response = downloadResponse(request, file, headers);
    // Set once the runtime has started the answer (it sets the server's own before that).
    setTimeout(() => server?.timeout(received, DOWNLOAD_IDLE_SECONDS), 0);
    return response;
  };
  const streamed = async () => {
    const etag = datasetEtag(snapshot.version, snapshot.stats.lastUpdated, etagTarget(formatName, filter, origin));
    headers.set("etag", etag);
    if (notModified(request, etag, snapshot.stats.lastUpdated)) return new Response(null, { status: 304, headers });
    named();
    const encoding = negotiateEncoding(request);
    if (encoding !== null) headers.set("content-encoding", encoding);
    if (request.method === "HEAD") {
      // The GET streams a body of unknown length: say so, not `Content-Length: 0` (what Bun
      // writes for a bodiless answer).
      headers.set("transfer-encoding", "chunked");
      return new Response(null, { status: 200, headers });
    }

    const client = exportClient(exchange, server, trustProxy);
    const slot = inFlight.acquire(client);
    if (slot === "server") {
      const seconds = String(inFlight.retryAfterSeconds(null));
      throw new ApiError(
        503,
        "EXPORTS_BUSY",
        `The server is running its most exports (${inFlight.maxRunning}); retry after ${seconds} s`,
        { "retry-after": seconds },
      );
    }
    if (slot === "client") {
      const seconds = String(inFlight.retryAfterSeconds(client));
      throw new ApiError(
        429,
        "TOO_MANY_REQUESTS",
        `At most ${inFlight.perClient} exports at a time per client; retry after ${seconds} s`,
        { "retry-after": seconds },
      );
    }
    // Its rows are paid for before any is written (the request itself counted one), once it has
    // a slot: an export refused for its slot pays nothing more.
    if (charge !== undefined) {
      const rows = snapshot.search.search(filter, 0, 0).total;
      const units = Math.ceil(rows / EXPORT_ROWS_PER_REQUEST) - 1;
      try {
        await charge(
          exchange,
          server,
          units,
          `This export of ${rows} rows (one request per ${EXPORT_ROWS_PER_REQUEST})`,
        );
      } catch (error) {
        slot.release();
        throw error;
      }
      const paid = exchange.rateLimit;
      if (paid !== undefined) headers.set("ratelimit-remaining", paid.remaining);
    }
    const writer = format.writer(snapshot, origin, filter);
    return new Response(exportStream(snapshot, filter, writer, slot, encoding), { status: 200, headers });
  };

  const file = unfiltered(asked) ? files?.get(snapshot, formatName, filter) : null;
  if (!file) return streamed();
  if (!(file instanceof Promise)) return fromFile(file);
  // The first requests of a version wait for the file to be written: no idle time-out meanwhile.
  server?.timeout(received, 0);
  return file.then(fromFile, (error) => {
    server?.timeout(received, idleTimeoutSeconds);
    if (!(error instanceof SupersededWrite)) onFileError(error);
    return streamed();
  });
}

/** The query of a whole download: only `accepted` keys, and no paging parameter (`why` says so). */
function checkWhole(url: string, query: object, accepted: ReadonlySet<string>, why: string) {
  checkRawQuery(url, accepted);
  for (const name of PAGING_KEYS)
    if ((query as Record<string, unknown>)[name] !== undefined) throw validationError(`${name}: ${why}`);
}

export const exportRoutes = (directory: Directory, options: ExportOptions) => {
  const settings = { ...options, inFlight: options.inFlight ?? new InFlightExports(2) };
  return new Elysia({ name: "export", normalize: false })
    .use(exchanges)
    .get(
      "/api/v1/export",
      ({ query, exchange, server }) =>
        exportAnswer(directory, settings, exchange, server, query, query.format as ExportFormat, true),
      {
        query: ExportQuery,
        transform: ({ request, query }) =>
          checkWhole(request.url, query, ACCEPTED_KEYS, "the export has no pages; it returns every matching entry"),
        // The answer is a streamed file, not JSON: the 200 is described here, its body schemas
        // per media type (an error answer is JSON, declared in `response`).
        // 503: the server-wide cap on running exports (EXPORT_MAX_RUNNING).
        // 416: a Range past the end of a download file.
        response: { ...API_ERRORS, 416: ErrorEnvelope, 503: ErrorEnvelope },
        detail: {
          summary: "Export endpoints (CSV, NDJSON, FHIR Bundle)",
          description: DESCRIPTION,
          operationId: "exportEndpoints",
          tags: ["Endpoints"],
          responses: {
            200: {
              description:
                "The export file; `Content-Disposition: attachment` names it. Unfiltered: its download file, with Content-Length, a strong ETag and `Accept-Ranges: bytes`; filtered: streamed.",
              headers: DOWNLOAD_HEADERS,
              content: EXPORT_CONTENT,
            },
            206: partialAnswer("export's", {
              "text/csv": { schema: { type: "string" }, example: CSV_EXAMPLE.slice(0, 120) },
              "application/x-ndjson": { schema: { type: "string" }, example: NDJSON_EXAMPLE.slice(0, 120) },
              "application/fhir+json": { schema: { type: "string" }, example: FHIR_EXAMPLE.slice(0, 120) },
            }),
            304: NOT_MODIFIED,
          },
        },
      },
    )
    .get(
      "/api/v1/brands",
      ({ query, exchange, server }) => exportAnswer(directory, settings, exchange, server, query, "brands", false),
      {
        query: BrandsQuery,
        transform: ({ request, query }) =>
          checkWhole(request.url, query, BRANDS_KEYS, "the brands bundle has no pages; it holds every matching entry"),
        response: { ...API_ERRORS, 416: ErrorEnvelope, 503: ErrorEnvelope },
        detail: {
          summary: "The directory as a SMART User-access Brands Bundle",
          description: BRANDS_DESCRIPTION,
          operationId: "getBrandsBundle",
          tags: ["FHIR"],
          responses: {
            200: {
              description:
                "The Brands Bundle (application/fhir+json). Unfiltered: its download file, with Content-Length, a strong ETag and `Accept-Ranges: bytes`; filtered: streamed.",
              headers: DOWNLOAD_HEADERS,
              content: {
                "application/fhir+json": { schema: FhirBundleSchema as object, example: JSON.parse(BRANDS_EXAMPLE) },
              },
            },
            206: partialAnswer("bundle's", {
              "application/fhir+json": { schema: { type: "string" }, example: BRANDS_EXAMPLE.slice(0, 120) },
            }),
            304: NOT_MODIFIED,
          },
        },
      },
    );
};
