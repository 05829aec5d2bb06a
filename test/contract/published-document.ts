import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";

/**
 * Checks answers against the OpenAPI document the API publishes at /docs/json, with Ajv's
 * JSON Schema 2020-12 validator (what OpenAPI 3.1 schemas are): not against our own TypeBox
 * objects, so a schema the document publishes wrongly fails here.
 */

interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, ResponseObject>; headers: Record<string, { schema: { type: string } }> };
}
interface Operation {
  responses: Record<string, ResponseObject>;
}
interface ResponseObject {
  $ref?: string;
  headers?: Record<string, { $ref?: string; schema?: { type: string } }>;
  content?: Record<string, { schema: unknown }>;
}

/** The headers a client reads: every one we send must be documented on the answer that sends it. */
const READABLE_HEADERS = [
  "etag",
  "last-modified",
  "cache-control",
  "vary",
  "x-request-id",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "ratelimit-policy",
  "retry-after",
  "content-disposition",
  "link",
  "allow",
  "www-authenticate",
];

const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

export class PublishedDocument {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { path: string; pattern: RegExp }[];

  constructor(readonly document: OpenApiDocument) {
    this.ajv.addFormat(
      "date-time",
      (value: string) => !Number.isNaN(Date.parse(value)) && /^\d{4}-\d\d-\d\dT/.test(value),
    );
    this.ajv.addFormat("uri", (value: string) => URL.canParse(value));
    this.ajv.addSchema(document as object, "https://published.invalid/openapi.json");
    // Concrete paths before templated ones, as OpenAPI matches them (`/fhir/Endpoint/_search`
    // before `/fhir/{type}/_search` and `/fhir/Endpoint/{id}`).
    const templated = (path: string) => (path.match(/\{/g) ?? []).length;
    this.templates = Object.keys(document.paths)
      .sort((a, b) => templated(a) - templated(b))
      .map((path) => ({ path, pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`) }));
  }

  static async of(app: { handle(request: Request): Promise<Response> }): Promise<PublishedDocument> {
    const response = await app.handle(new Request("http://localhost/docs/json"));
    if (response.status !== 200) throw new Error(`/docs/json answered ${response.status}`);
    return new PublishedDocument((await response.json()) as OpenApiDocument);
  }

  /** The response object (its `$ref` followed) and its JSON pointer in the document. */
  private responseOf(path: string, method: string, status: number) {
    const operations = this.document.paths[path]!;
    // A method a path does not take (405) is documented on the path's GET.
    const name = operations[method.toLowerCase()] ? method.toLowerCase() : "get";
    const declared = operations[name]?.responses[String(status)];
    if (declared === undefined) return undefined;
    if (declared.$ref !== undefined) {
      const key = declared.$ref.replace("#/components/responses/", "");
      return { response: this.document.components.responses[key]!, at: `/${pointer("components", "responses", key)}` };
    }
    return { response: declared, at: `/${pointer("paths", path, name, "responses", String(status))}` };
  }

  /**
   * What is wrong with this answer by the document: an undocumented path, status, media type or
   * header, a header of the wrong type, or a body its schema rejects. [] when nothing is.
   */
  problems(method: string, url: string, status: number, headers: Headers, body: string): string[] {
    const path = new URL(url, "http://localhost").pathname;
    // A CORS preflight is the browser's, not an operation of the API.
    if (method === "OPTIONS") return [];
    // The first path that matches and takes the method; else the first that matches (a 405).
    const matching = this.templates.filter((candidate) => candidate.pattern.test(path));
    const template =
      matching.find((candidate) => this.document.paths[candidate.path]![method.toLowerCase()] !== undefined) ??
      matching[0];
    if (template === undefined) return [];
    const where = `${method} ${path} → ${status}`;
    const found = this.responseOf(template.path, method, status);
    if (found === undefined) return [`${where}: status not documented`];
    const problems: string[] = [];
    const documented = new Map(
      Object.entries(found.response.headers ?? {}).map(([name, header]) => {
        const resolved = header.$ref
          ? this.document.components.headers[header.$ref.replace("#/components/headers/", "")]
          : header;
        return [name.toLowerCase(), resolved?.schema?.type];
      }),
    );
    for (const name of READABLE_HEADERS) {
      const value = headers.get(name);
      if (value === null) continue;
      if (!documented.has(name)) problems.push(`${where}: header ${name} not documented`);
      else if (documented.get(name) === "integer" && !/^\d+$/.test(value))
        problems.push(`${where}: header ${name} is not an integer: ${value}`);
    }
    if (body === "" || method === "HEAD") return problems;
    const mediaType = (headers.get("content-type") ?? "").split(";")[0]!.trim();
    if (found.response.content?.[mediaType] === undefined)
      return [...problems, `${where}: ${mediaType} not documented`];
    const at = `${found.at}/${pointer("content", mediaType, "schema")}`;
    let validate = this.validators.get(at);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `https://published.invalid/openapi.json#${at}` });
      this.validators.set(at, validate);
    }
    // CSV and NDJSON are documented as text; every other media type we send is JSON.
    const text = mediaType === "text/csv" || mediaType === "application/x-ndjson";
    if (!validate(text ? body : JSON.parse(body)))
      problems.push(`${where}: ${this.ajv.errorsText(validate.errors, { separator: "; " })}`);
    return problems;
  }
}

let published: Promise<PublishedDocument> | undefined;

/**
 * Throws when the answer breaks the published document (for the API tests' helper: every
 * response they see is checked). The document is read once per process from the /docs/json of
 * `reference()`, an app of its own, so that reading it adds no request to the app under test.
 */
export async function assertPublished(
  reference: () => { handle(request: Request): Promise<Response> },
  method: string,
  url: string,
  response: Response,
  body: string,
) {
  if (new URL(url, "http://localhost").pathname.startsWith("/docs")) return;
  published ??= PublishedDocument.of(reference());
  const problems = (await published).problems(method, url, response.status, response.headers, body);
  if (problems.length > 0) throw new Error(`the answer breaks the published document:\n${problems.join("\n")}`);
}
