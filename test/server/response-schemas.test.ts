import { describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { fixtureApp, get } from "../support/fixture";

/**
 * Handlers build their bytes themselves (the answers cache, the capabilities body spliced from
 * stored bytes), so Elysia never checks a body against the route's response schema. This test
 * does: every route's typical and edge requests, each 200 body checked against the 200 schema
 * the route registered (the one the OpenAPI document publishes), the first answer and the
 * cached one alike.
 */
const { app, db } = fixtureApp({}, () => new Date("2026-11-25T12:00:00.000Z"));

/** The route's registered 200 schema, with every object closed (no key the schema does not name) unless it says otherwise. */
function schemaOf(path: string): TSchema {
  const route = app.routes.find((r) => r.method === "GET" && r.path === path);
  const schema = (route?.hooks as { response?: Record<number, TSchema> } | undefined)?.response?.[200];
  if (!schema) throw new Error(`no 200 schema registered for ${path}`);
  return closed(schema);
}

function closed<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(closed) as T;
  if (schema === null || typeof schema !== "object") return schema;
  const copy: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(schema)) copy[key] = closed((schema as Record<string | symbol, unknown>)[key]);
  if (copy.type === "object" && copy.properties !== undefined && copy.additionalProperties === undefined)
    copy.additionalProperties = false;
  return copy as T;
}

async function checked(route: string, target: string) {
  const schema = schemaOf(route);
  const bodies = [];
  for (let i = 0; i < 2; i++) {
    const { status, body, text } = await get(app, target);
    expect({ target, status }).toEqual({ target, status: 200 });
    const errors = [...Value.Errors(schema, body)].map((e) => `${e.path}: ${e.message}`);
    expect({ target, errors }).toEqual({ target, errors: [] });
    expect(Value.Check(schema, body)).toBe(true);
    bodies.push(text);
  }
  expect(bodies[1]).toBe(bodies[0]!);
  return JSON.parse(bodies[0]!);
}

describe("every 200 body matches its route's response schema", () => {
  test("the list operation: no filter, each filter, a page past the end, the smallest and largest pages", async () => {
    const targets = [
      "/api/v1/endpoints",
      "/api/v1/endpoints?limit=1",
      "/api/v1/endpoints?limit=100&page=1",
      "/api/v1/endpoints?page=1000",
      "/api/v1/endpoints?query=clinica%20senor",
      "/api/v1/endpoints?query=zzzz-no-match",
      "/api/v1/endpoints?query=%20%20",
      "/api/v1/endpoints?vendor=epic&state=MA",
      "/api/v1/endpoints?vendor=nobody",
      "/api/v1/endpoints?fhirVersion=DSTU2",
      "/api/v1/endpoints?access=patient",
      "/api/v1/endpoints?hasResource=Patient,Observation",
      "/api/v1/endpoints?smartSupported=true",
      "/api/v1/endpoints?smartSupported=false",
    ];
    for (const target of targets) await checked("/api/v1/endpoints", target);
    const pastEnd = await checked("/api/v1/endpoints", "/api/v1/endpoints?page=1000");
    expect(pastEnd.data).toEqual([]);
  });

  test("every entry by id and its capabilities, through every probe status (success, partial, failed, unchecked)", async () => {
    // Every entry of the database: removed ones are not listed but still answer by id.
    const ids = (db.sqlite.prepare("SELECT id FROM entries").values() as [string][]).map(([id]) => id);
    const statuses = new Set<string>();
    const entryStatuses = new Set<string>();
    for (const id of ids) {
      const record = await checked("/api/v1/endpoints/:id", `/api/v1/endpoints/${id}`);
      entryStatuses.add(record.data.status);
      const capabilities = await checked("/api/v1/endpoints/:id/capabilities", `/api/v1/endpoints/${id}/capabilities`);
      statuses.add(capabilities.data.probeStatus);
    }
    expect([...statuses].sort()).toEqual(["failed", "partial", "success", "unchecked"]);
    expect([...entryStatuses].sort()).toEqual(["listed", "removed", "unresponsive", "verified"]);
  });

  test("vendors, stats and health", async () => {
    await checked("/api/v1/vendors", "/api/v1/vendors");
    await checked("/api/v1/stats", "/api/v1/stats");
    await checked("/health", "/health?cache-buster=1");
  });

  test("a body that drifts from the schema is caught (the check can fail)", async () => {
    const { body } = await get(app, "/api/v1/stats");
    delete body.data.fhirVersionCounts.R4;
    expect(Value.Check(schemaOf("/api/v1/stats"), body)).toBe(false);
    const list = (await get(app, "/api/v1/endpoints?limit=1")).body;
    list.data[0].access = ["nobody"];
    expect(Value.Check(schemaOf("/api/v1/endpoints"), list)).toBe(false);
    const record = (await get(app, "/api/v1/endpoints?limit=1")).body;
    record.data[0].lastUpdated = "yesterday";
    expect(Value.Check(schemaOf("/api/v1/endpoints"), record)).toBe(false);
    const extra = (await get(app, "/api/v1/vendors")).body;
    extra.data[0].internal = 1;
    expect(Value.Check(schemaOf("/api/v1/vendors"), extra)).toBe(false);
  });
});
