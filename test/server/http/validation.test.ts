import { describe, expect, test } from "bun:test";
import { fixtureApp, get } from "../../support/fixture";

const { app } = fixtureApp();

async function expect400(path: string, parameter: string) {
  const { status, body, response } = await get(app, path);
  expect(status).toBe(400);
  expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(body.success).toBe(false);
  expect(body.error.code).toBe("VALIDATION_ERROR");
  expect(body.error.message.startsWith(`${parameter}: `)).toBe(true);
  return body.error.message as string;
}

describe("list parameters are validated and the message names the parameter", () => {
  test.each([
    ["page=0", "page"],
    ["page=1001", "page"],
    ["page=-1", "page"],
    ["page=1.5", "page"],
    ["page=abc", "page"],
    ["page=", "page"],
    ["page=1e2", "page"],
    ["page=0x10", "page"],
    ["page=%205", "page"],
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=ten", "limit"],
    ["limit=99999999999999999999", "limit"],
    ["state=ca", "state"],
    ["state=ZZ", "state"],
    ["state=CAL", "state"],
    ["state=", "state"],
    ["fhirVersion=R9", "fhirVersion"],
    ["fhirVersion=r4", "fhirVersion"],
    ["fhirVersion=UNKNOWN", "fhirVersion"],
    ["access=both", "access"],
    ["access=Patient", "access"],
    ["smartSupported=maybe", "smartSupported"],
    ["smartSupported=TRUE", "smartSupported"],
    ["smartSupported=1", "smartSupported"],
    ["hasResource=Patient,,Observation", "hasResource"],
    ["hasResource=,", "hasResource"],
    ["hasResource=", "hasResource"],
    ["hasResource=patient", "hasResource"],
    ["hasResource=Patient;DROP", "hasResource"],
    [
      `hasResource=${Array.from({ length: 21 }, (_, i) => `Type${String.fromCharCode(65 + i)}`).join(",")}`,
      "hasResource",
    ],
    [`query=${"a".repeat(201)}`, "query"],
    [`vendor=${"v".repeat(101)}`, "vendor"],
    ["foo=1", "foo"],
    ["Page=1", "Page"],
    ["limit=1&limit=2", "limit"],
    ["vendor=epic&vendor=epic", "vendor"],
    ["query=%zz", "query"],
  ])("%s → 400 naming %s", async (query, parameter) => {
    await expect400(`/api/v1/endpoints?${query}`, parameter);
  });

  test("the first offending parameter is named", async () => {
    expect(await expect400("/api/v1/endpoints?vendor=epic&bogus=1&limit=500", "bogus")).toBe(
      "bogus: unknown parameter",
    );
  });

  test("range messages say the allowed range", async () => {
    expect(await expect400("/api/v1/endpoints?limit=101", "limit")).toContain("1 to 100");
    expect(await expect400("/api/v1/endpoints?page=0", "page")).toContain("1 to 1000");
  });

  test("boundary values are accepted", async () => {
    for (const query of [
      "page=1",
      "page=1000",
      "limit=1",
      "limit=100",
      `query=${"a".repeat(200)}`,
      "hasResource=Patient%20%2C%20Observation",
    ]) {
      expect((await get(app, `/api/v1/endpoints?${query}`)).status).toBe(200);
    }
    const twenty = Array.from({ length: 20 }, (_, i) => `Type${String.fromCharCode(65 + i)}`).join(",");
    expect((await get(app, `/api/v1/endpoints?hasResource=${twenty}`)).status).toBe(200);
  });
});

describe("operations without parameters reject any parameter", () => {
  test.each([
    "/api/v1/vendors?x=1",
    "/api/v1/stats?page=1",
    "/api/v1/endpoints/abc?x=1",
    "/api/v1/endpoints/abc/capabilities?limit=5",
  ])("%s → 400", async (path) => {
    const parameter = new URL(`http://localhost${path}`).searchParams.keys().next().value!;
    await expect400(path, parameter);
  });

  test("/health ignores query parameters", async () => {
    const { status, body } = await get(app, "/health?cacheBuster=12345&x=%zz");
    expect(status).toBe(200);
    expect(body.data.status).toBe("ok");
  });
});
