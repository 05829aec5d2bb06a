/**
 * End to end: probe real local servers, then read /capabilities through the API. The raw bodies
 * come back byte-for-byte as the servers sent them (the API splices the stored text).
 */
import { afterAll, afterEach, beforeEach, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { probeDue } from "../../../src/pipeline/probe";
import { createTestApp } from "../../support/app";
import { fixture, insertEntry, json, realCapability, serve, tempDb } from "./helpers";

const R4 = fixture("r4-capability.json");
const SMART = fixture("smart-patient.json");
/** Non-ASCII text raw and escaped, odd number forms, odd spacing: all must come back as sent. */
const UNICODE = `{ "resourceType" : "CapabilityStatement", "fhirVersion": "4.0.1", "publisher": "Hôpital Saint-Éloi — 東京 🏥",
  "description": "caf\\u00e9 \\"quoted\\"", "version": 1.0E2, "copyright": "${"©é".repeat(400)}", "rest": [{"mode": "server", "resource": [{"type": "Patient"}]}] }`;

const server = serve({
  "/own/metadata": R4,
  "/own/.well-known/smart-configuration": SMART,
  "/epic/metadata": () => json(realCapability("epic_capability_dstu2.json")),
  "/epic/.well-known/smart-configuration": () => json(realCapability("authorization_cerner_smart_response.json")),
  "/partial/metadata": R4,
  "/unicode/metadata": UNICODE,
  "/html/metadata": () => new Response("<html>hi</html>", { headers: { "content-type": "text/html" } }),
});
afterAll(() => server.stop());

let ctx: ReturnType<typeof tempDb>;
beforeEach(() => {
  ctx = tempDb();
});
afterEach(() => ctx.cleanup());

async function capabilities(id: string) {
  const app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
  const response = await app.handle(new Request(`http://localhost/api/v1/endpoints/${id}/capabilities`));
  return { status: response.status, text: await response.text() };
}

/** The raw text of `"key":<value>` in a JSON document whose value is `raw`. */
function containsRaw(text: string, key: string, raw: string): boolean {
  return text.includes(`"${key}":${raw}`);
}

test("our R4 fixture: success, raw bodies byte-for-byte", async () => {
  const id = insertEntry(ctx.db, { url: `${server.url}/own` });
  await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 2000 });
  const { status, text } = await capabilities(id);
  expect(status).toBe(200);
  const body = JSON.parse(text);
  expect(body.data.probeStatus).toBe("success");
  expect(body.data.summary.fhirVersion).toBe("R4");
  expect(body.data.summary.grantTypes).toEqual(["authorization_code", "client_credentials"]);
  expect(containsRaw(text, "capabilityStatement", R4)).toBe(true);
  expect(containsRaw(text, "smartConfiguration", SMART)).toBe(true);
});

test("a real Epic DSTU2 Conformance: byte-for-byte through the API", async () => {
  const id = insertEntry(ctx.db, { url: `${server.url}/epic` });
  await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 2000 });
  const { text } = await capabilities(id);
  expect(JSON.parse(text).data.summary.fhirVersion).toBe("DSTU2");
  expect(containsRaw(text, "capabilityStatement", realCapability("epic_capability_dstu2.json"))).toBe(true);
  expect(containsRaw(text, "smartConfiguration", realCapability("authorization_cerner_smart_response.json"))).toBe(
    true,
  );
});

test("a statement with non-ASCII text and odd formatting: the same bytes, plain and gzip", async () => {
  const id = insertEntry(ctx.db, { url: `${server.url}/unicode` });
  await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 2000 });
  const app = createTestApp({ db: ctx.db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
  const path = `http://localhost/api/v1/endpoints/${id}/capabilities`;
  const plain = Buffer.from(await (await app.handle(new Request(path))).arrayBuffer());
  const zipped = await app.handle(new Request(path, { headers: { "accept-encoding": "gzip" } }));
  expect(zipped.headers.get("content-encoding")).toBe("gzip");
  const unzipped = Buffer.from(Bun.gunzipSync(new Uint8Array(await zipped.arrayBuffer())));
  expect(unzipped.equals(plain)).toBe(true);
  expect(plain.includes(Buffer.from(`"capabilityStatement":${UNICODE}`))).toBe(true);
  const body = JSON.parse(plain.toString("utf8"));
  expect(body.data.capabilityStatement.publisher).toBe("Hôpital Saint-Éloi — 東京 🏥");
  expect(body.data.summary.supportedResources).toEqual(["Patient"]);
});

test("partial and failed probes: null where a document did not come back as JSON", async () => {
  const partial = insertEntry(ctx.db, { url: `${server.url}/partial` });
  const html = insertEntry(ctx.db, { url: `${server.url}/html` });
  await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 2000 });
  const p = JSON.parse((await capabilities(partial)).text).data;
  expect(p.probeStatus).toBe("partial");
  expect(p.smartConfiguration).toBeNull();
  expect(p.summary.smartSupported).toBe(false);
  const h = JSON.parse((await capabilities(html)).text).data;
  expect(h.probeStatus).toBe("failed");
  expect(h.capabilityStatement).toBeNull();
  expect(h.smartConfiguration).toBeNull();
});
