/**
 * GET /api/v1/endpoints/:id/source for lists read from local files: the answer names the list,
 * where it is published and the file's name, never a path on the server.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config";
import { openDatabase } from "../../../src/db/client";
import { entryId } from "../../../src/model/identity";
import { ingestFile, syncVendorRegistry } from "../../../src/pipeline/ingest";
import { acmeRegistry } from "../../support/acme";
import { createTestApp } from "../../support/app";
import { removeTempDirs, tempDir } from "../../support/temp-db";

const REGISTRY = acmeRegistry(
  [
    {
      id: "acme-r4",
      url: "https://acme.example/r4/endpoints.json",
      format: "lantern-json",
      publishedUrl: "https://acme.example/developers/endpoints.json",
    },
  ],
  { defaultFhirVersion: "R4" },
);

const list = (url: string, name: string) => JSON.stringify({ Endpoints: [{ URL: url, OrganizationName: name }] });
const dir = join(tempDir(), "secret-server-folder", "lists");
let root: string;
let stop: () => void;

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "acme-r4.json"), list("https://fhir.acme.example/r4/one", "One Clinic"));
  writeFileSync(join(dir, "extra list.json"), list("https://fhir.acme.example/r4/two", "Two Clinic"));
  const db = openDatabase(join(dir, "..", "directory.sqlite"));
  syncVendorRegistry(db, REGISTRY);
  const registered = await ingestFile(db, {
    vendorId: "acme",
    listId: "acme-r4",
    file: join(dir, "acme-r4.json"),
    registry: REGISTRY,
  });
  const own = await ingestFile(db, { vendorId: "acme", file: join(dir, "extra list.json"), registry: REGISTRY });
  expect([registered.ok, own.ok]).toEqual([true, true]);
  const app = createTestApp({ db, config: loadConfig({ RATE_LIMIT_MAX: "1000" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  root = `http://127.0.0.1:${app.server!.port}/api/v1`;
  stop = () => app.stop(true);
});
afterAll(() => {
  stop?.();
  removeTempDirs();
});

const source = async (url: string, name: string) => {
  const response = await fetch(`${root}/endpoints/${entryId("acme", url, null, name)}/source`);
  expect(response.status).toBe(200);
  const text = await response.text();
  expect(text).not.toContain("secret-server-folder");
  expect(text).not.toContain("file:");
  return JSON.parse(text).data.list;
};

test("a registered list read from a file: its id, its published URL, the file's name", async () => {
  expect(await source("https://fhir.acme.example/r4/one", "One Clinic")).toMatchObject({
    id: "acme-r4",
    publishedAt: "https://acme.example/developers/endpoints.json",
    readFrom: "acme-r4.json",
  });
});

test("a list of its own from a file: named by the file, no path anywhere", async () => {
  expect(await source("https://fhir.acme.example/r4/two", "Two Clinic")).toMatchObject({
    id: "acme-file-extra-list",
    publishedAt: "extra list.json",
    readFrom: "extra list.json",
  });
});
