/**
 * The requests of the Prism session (cli.ts): every operation of the document (POST for the
 * FHIR form searches), typical and edge values, repeated FHIR parameters, conditional requests
 * (`conditional`: sent with the ETag of the same URL's last answer) and ranges, HEAD, and each
 * error status with a request the document allows (a value its schema cannot rule out, an
 * unknown key or id, the quota). `expect` is the status the request must get.
 *
 * Left out, and checked by test/contract/published-document.test.ts instead: HEAD of a JSON
 * answer (Prism 5.14–5.16 parses the body of every JSON answer, and a HEAD answer has none:
 * it answers 500 "invalid json response body") and 405 (a method the document does not list
 * for a path: Prism refuses it as "Selected route not found" before forwarding it).
 */
export interface SessionRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  expect?: number;
  conditional?: true;
}

const FORM = { "content-type": "application/x-www-form-urlencoded" };

export async function requestsOf(upstream: string, key: string): Promise<SessionRequest[]> {
  const auth = { "x-api-key": key };
  const read = async <T>(path: string) => {
    const response = await fetch(`${upstream}${path}`, { headers: auth });
    return { body: (await response.json()) as T, headers: response.headers };
  };
  const list = await read<{ data: { id: string; state: string | null }[] }>("/api/v1/endpoints?limit=100");
  const ids = list.body.data.map((entry) => entry.id);
  const vendors = (await read<{ data: { id: string }[] }>("/api/v1/vendors")).body.data.map((vendor) => vendor.id);
  const endpoints = await read<{ entry?: { resource: { id: string } }[] }>("/fhir/Endpoint?_count=20");
  const fhirIds = (endpoints.body.entry ?? []).map((entry) => entry.resource.id);
  const organizations = await read<{ entry?: { resource: { id: string } }[] }>("/fhir/Organization?_count=20");
  const organizationIds = (organizations.body.entry ?? []).map((entry) => entry.resource.id);
  const metadata = await read<{ rest: { resource: { searchParam: { definition?: string }[] }[] }[] }>("/fhir/metadata");
  const ownParameters = metadata.body.rest[0]!.resource.flatMap((resource) =>
    resource.searchParam
      .map((parameter) => parameter.definition ?? "")
      .filter((definition) => definition.startsWith(`${upstream}/fhir/SearchParameter/`))
      .map((definition) => definition.slice(definition.lastIndexOf("/") + 1)),
  );
  const until = (await read<{ meta: { until: number } }>("/api/v1/changes")).body.meta.until;

  const requests: SessionRequest[] = [];
  const get = (path: string, expect = 200, headers: Record<string, string> = {}) =>
    requests.push({ method: "GET", path, headers: { ...auth, ...headers }, expect });
  /** GET and HEAD (an answer that is not JSON). */
  const getAndHead = (path: string, expect = 200, headers: Record<string, string> = {}) => {
    get(path, expect, headers);
    requests.push({ method: "HEAD", path, headers: { ...auth, ...headers }, expect });
  };
  const post = (path: string, body: string, expect = 200, headers: Record<string, string> = {}) =>
    requests.push({ method: "POST", path, headers: { ...auth, ...FORM, ...headers }, body, expect });
  /** A GET, then the same by GET and by HEAD with its ETag in If-None-Match: 304 (no body, so HEAD works in Prism too). */
  const conditional = (path: string) => {
    get(path);
    for (const method of ["GET", "HEAD"])
      requests.push({ method, path, headers: auth, expect: 304, conditional: true });
  };

  // The JSON API.
  get("/health");
  for (const query of [
    "",
    "?limit=1",
    "?limit=100&page=2",
    "?page=1000",
    "?state=MA",
    "?state=CA&fhirVersion=R4",
    "?fhirVersion=DSTU2",
    "?fhirVersion=STU3&access=patient",
    "?access=provider",
    "?smartSupported=true",
    "?smartSupported=false&limit=5",
    "?hasResource=Patient,Observation",
    "?hasResource=Patient%2C%20Condition",
    "?query=mass%20gen",
    "?query=%25_*%22(%3A",
    "?supports=smart-v2",
    "?supports=pkce,us-core",
    "?ready=patient-apps",
    `?vendor=${vendors[0]}`,
    `?vendor=${vendors.at(-1)}&state=NY`,
  ])
    conditional(`/api/v1/endpoints${query}`);
  for (const id of ids.slice(0, 12)) {
    conditional(`/api/v1/endpoints/${id}`);
    get(`/api/v1/endpoints/${id}/capabilities`);
    get(`/api/v1/endpoints/${id}/availability`);
    get(`/api/v1/endpoints/${id}/source`);
  }
  conditional("/api/v1/vendors");
  conditional("/api/v1/stats");
  conditional("/api/v1/stats/capabilities");
  for (const vendor of vendors.slice(0, 4)) get(`/api/v1/stats/capabilities?vendor=${vendor}`);
  conditional("/api/v1/changes");
  get(`/api/v1/changes?since=${until}`);
  get(`/api/v1/changes?since=${Math.max(0, until - 1)}&limit=10`);
  for (const format of ["csv", "ndjson", "fhir", "brands"]) conditional(`/api/v1/export?format=${format}`);
  getAndHead("/api/v1/export?format=csv");
  getAndHead("/api/v1/export?format=ndjson");
  getAndHead("/api/v1/export?format=csv&state=MA");
  getAndHead("/api/v1/export?format=ndjson&fhirVersion=R4&vendor=epic");
  get("/api/v1/export?format=fhir&state=OH");
  // A range of the file as stored (identity): Prism's client would otherwise ask for gzip and
  // fail to decompress a part of the compressed file.
  const identity = { "accept-encoding": "identity" };
  getAndHead("/api/v1/export?format=csv", 206, { range: "bytes=0-99", ...identity });
  getAndHead("/api/v1/export?format=ndjson", 206, { range: "bytes=100-", ...identity });
  get("/api/v1/export?format=csv", 416, { range: "bytes=999999999-", ...identity });
  conditional("/api/v1/brands");

  // The JSON API's errors, each with a request the document allows.
  get("/api/v1/endpoints?hasResource=Patient,,Observation", 400);
  get("/api/v1/endpoints?supports=teleport", 400);
  get("/api/v1/endpoints?unknown=1", 400);
  get("/api/v1/vendors?unknown=1", 400);
  get("/api/v1/stats?x=1", 400);
  get("/api/v1/export?format=csv&page=2", 400);
  get(`/api/v1/endpoints/${"0".repeat(64)}`, 404);
  get(`/api/v1/endpoints/${"0".repeat(64)}/capabilities`, 404);
  get("/api/v1/endpoints/not-an-id/availability", 404);
  get("/api/v1/vendors", 401, { "x-api-key": "not-a-key" });
  get("/api/v1/stats", 401, { "x-api-key": "", authorization: "Bearer not-a-key" });
  get(`/api/v1/changes?since=${until + 1000}`, 400);

  // FHIR: searches by GET, repeated parameters, POST forms, reads, metadata.
  for (const query of [
    "",
    "?_count=1",
    "?_count=0",
    "?_count=500",
    "?status=active",
    "?status=active,off",
    "?status=active&status=active",
    "?_lastUpdated=ge2000-01-01&_lastUpdated=lt2100-01-01",
    "?_lastUpdated=gt2026-11&_count=2",
    "?fhir-version=4.0.1",
    "?fhir-version=4.0.1,1.0.2&_total=accurate",
    "?address:contains=fhir&_count=3",
    "?address=https://",
    "?connection-type=hl7-fhir-rest",
    "?supports=smart-v2&supports=pkce",
    "?ready=patient-apps",
    "?_include=Endpoint:organization&_count=5",
    "?_summary=count",
    "?_total=none",
    "?_format=json",
    "?_format=application/fhir%2Bjson",
    `?_id=${fhirIds.slice(0, 3).join(",")}`,
    `?organization=${organizationIds[0]}`,
  ])
    conditional(`/fhir/Endpoint${query}`);
  for (const query of [
    "",
    "?_count=2",
    "?name=health",
    "?name=health&name=center",
    "?name:exact=Epic%20Systems",
    "?address-state=MA",
    "?address-state=MA,NY&address-city=Boston",
    "?address-postalcode=02114",
    "?identifier=http://hl7.org/fhir/sid/us-npi|",
    "?_include=Organization:endpoint&_count=3",
    "?_revinclude=Endpoint:organization&_count=3",
    "?_lastUpdated=ge2000&_lastUpdated=le2100-12-31T23:59:59Z",
    `?endpoint=Endpoint/${fhirIds[0]}`,
    `?_id=${organizationIds.slice(0, 2).join(",")}`,
  ])
    conditional(`/fhir/Organization${query}`);
  // Following next links, as a client pages.
  let next: string | undefined = "/fhir/Endpoint?_count=50";
  for (let page = 0; page < 6 && next !== undefined; page++) {
    get(next);
    const bundle = (await (await fetch(`${upstream}${next}`, { headers: auth })).json()) as {
      link: { relation: string; url: string }[];
    };
    const url = bundle.link.find((link) => link.relation === "next")?.url;
    next = url === undefined ? undefined : url.slice(new URL(url).origin.length);
  }
  for (const body of [
    "",
    "status=active&_count=2",
    "_lastUpdated=ge2000-01-01&_lastUpdated=lt2100-01-01&_count=1",
    "fhir-version=4.0.1&_include=Endpoint:organization",
    "_summary=count",
  ])
    post("/fhir/Endpoint/_search", body);
  post("/fhir/Endpoint/_search?_count=1", "status=active");
  for (const body of [
    "address-state=MA&_count=2",
    "name=health&name=center",
    "_revinclude=Endpoint:organization&_count=2",
  ])
    post("/fhir/Organization/_search", body);
  for (const id of fhirIds.slice(0, 10)) conditional(`/fhir/Endpoint/${id}`);
  for (const id of organizationIds.slice(0, 10)) conditional(`/fhir/Organization/${id}`);
  conditional("/fhir/metadata");
  for (const id of ownParameters) conditional(`/fhir/SearchParameter/${id}`);

  // FHIR errors, each with a request the document allows.
  get("/fhir/Endpoint?_total=sometimes", 400);
  get("/fhir/Endpoint?_summary=true", 400);
  get("/fhir/Endpoint?status:missing=true", 400);
  get("/fhir/Endpoint?_lastUpdated=ap2026", 400);
  get("/fhir/Organization?colour=blue", 400, { prefer: "handling=strict" });
  get("/fhir/Endpoint?_include=Organization:endpoint", 400);
  post("/fhir/Endpoint/_search", "_total=sometimes", 400);
  post("/fhir/Organization/_search", "_revinclude=Endpoint:organization&_count=500", 400);
  post("/fhir/Endpoint/_search", "name=%E0%A4%A", 400);
  post("/fhir/Organization/_search", `name=${"a".repeat(20_000)}`, 413);
  get("/fhir/metadata", 401, { "x-api-key": "not-a-key" });
  get(`/fhir/Endpoint/${"0".repeat(64)}`, 404);
  get("/fhir/Organization/nobody", 404);
  get("/fhir/SearchParameter/nothing-of-ours", 404);
  get("/fhir/Patient", 404);
  get("/fhir/Patient?name=x", 404);
  get("/fhir/Observation/1", 404);
  post("/fhir/Patient/_search", "name=x", 404);
  post("/fhir/Practitioner/_search", "", 404);
  get("/fhir/Endpoint?_format=xml", 406);
  get("/fhir/metadata", 406, { accept: "application/fhir+xml" });
  get("/fhir/Endpoint?_count=2&_offset=2&_snapshot=1", 410);

  // Past the anonymous quota (30 a minute, unknown keys counted in it): 429, on the JSON API and on /fhir.
  for (let i = 0; i < 34; i++) {
    const path = i % 2 === 0 ? "/api/v1/stats" : "/fhir/metadata";
    requests.push({ method: "GET", path, headers: {}, ...(i >= 32 ? { expect: 429 } : {}) });
  }
  return requests;
}
