import { afterAll, describe, expect, test } from "bun:test";
import { createApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { VENDORS } from "../support/fixture";
import { seedDatabase, tempDbPath } from "../support/seed";

/**
 * `query` compares names and queries in one folded form: lowercase, accents removed, and
 * compatibility forms (ligatures, fullwidth letters and digits) read as the plain letters they
 * stand for, on both sides: in what a client types and in the names the index is built from.
 * A real server on 127.0.0.1 over a real SQLite file.
 */
const NAMES = [
  "Fidelity Family Clinic",
  "\uFB01eld Hospital", // "ﬁeld": the fi ligature in the stored name
  "\uFF2E\uFF4F\uFF52\uFF54\uFF48 Clinic \uFF17", // "Ｎｏｒｔｈ Clinic ７": fullwidth letters and digit
  "Hôpital Sainte-Justine",
] as const;

describe("query folds compatibility forms as well as case and accents", () => {
  const db = seedDatabase(tempDbPath(), {
    vendors: VENDORS,
    entries: NAMES.map((name, i) => ({
      vendorId: "epic",
      url: `https://fhir${i}.example/api/FHIR/R4/`,
      organizationName: name,
      state: "MA",
      fhirVersion: "R4",
      access: ["patient"],
      status: "verified",
    })),
  });
  const app = createApp({ db, config: loadConfig({ LOG_LEVEL: "error", RATE_LIMIT_MAX: "0" }) });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  afterAll(() => app.stop(true));

  const found = async (query: string) => {
    const response = await fetch(
      `http://127.0.0.1:${app.server!.port}/api/v1/endpoints?query=${encodeURIComponent(query)}`,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { organizationName: string }[] };
    return body.data.map((entry) => entry.organizationName);
  };

  test.each([
    ["fidelity", [NAMES[0]]],
    ["\uFB01delity", [NAMES[0]]], // ﬁdelity
    ["\uFF26\uFF29\uFF24\uFF25\uFF2C\uFF29\uFF34\uFF39", [NAMES[0]]], // ＦＩＤＥＬＩＴＹ
    ["\uFF46\uFF41\uFF4D family", [NAMES[0]]], // ｆａｍ family
    ["field", [NAMES[1]]],
    ["\uFB01eld hosp", [NAMES[1]]],
    ["north clinic 7", [NAMES[2]]],
    ["\uFF2E\uFF2F\uFF32\uFF34\uFF28", [NAMES[2]]],
    ["hopital", [NAMES[3]]],
    ["HO\u0302PITAL", [NAMES[3]]], // a combining circumflex
  ] as [string, string[]][])("query=%p finds %p", async (query, expected) => {
    expect(await found(query)).toEqual(expected);
  });
});
