/**
 * If-Modified-Since (RFC 9110 §13.1.3) by one rule for the JSON API's data answers and /fhir:
 * compared at the whole seconds Last-Modified has, so echoing Last-Modified back gives 304 even
 * when the dataset's refresh time has milliseconds; anything that is not an HTTP-date is ignored.
 * Through a real server on 127.0.0.1.
 */
import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../../src/db/client";
import { appOnGeneratedDataset } from "../../support/generated-app";

/** The dataset's last refresh, with milliseconds (as a real refresh records it). */
const REFRESHED_AT = "2026-11-20T06:00:05.750Z";
const LAST_MODIFIED = "Fri, 20 Nov 2026 06:00:05 GMT";

const live = appOnGeneratedDataset(
  { endpoints: 300, seed: 5 },
  {
    listen: true,
    prepare: (path) => {
      const writer = openDatabase(path);
      writer.sqlite.prepare("UPDATE dataset_meta SET value = ? WHERE key = 'last_refresh_at'").run(REFRESHED_AT);
      writer.sqlite.close();
    },
  },
);

const PATHS = ["/api/v1/endpoints?limit=2", "/api/v1/stats", "/fhir/Organization?name=health", "/fhir/metadata"];

async function statusWith(path: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(`${live.origin}${path}`, { headers });
  await response.arrayBuffer();
  return response.status;
}

describe("If-Modified-Since", () => {
  test("every data answer, /fhir included, carries Last-Modified at whole seconds; echoing it back is a 304", async () => {
    for (const path of PATHS) {
      const first = await fetch(`${live.origin}${path}`);
      await first.arrayBuffer();
      expect(first.status).toBe(200);
      expect(first.headers.get("last-modified")).toBe(LAST_MODIFIED);
      const again = await fetch(`${live.origin}${path}`, { headers: { "if-modified-since": LAST_MODIFIED } });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(again.headers.get("last-modified")).toBe(LAST_MODIFIED);
    }
  });

  test("a date before the refresh is a 200; the obsolete HTTP-date forms of the same second are a 304", async () => {
    for (const path of PATHS) {
      expect(await statusWith(path, { "if-modified-since": "Fri, 20 Nov 2026 06:00:04 GMT" })).toBe(200);
      expect(await statusWith(path, { "if-modified-since": "Friday, 20-Nov-26 06:00:05 GMT" })).toBe(304);
      expect(await statusWith(path, { "if-modified-since": "Fri Nov 20 06:00:05 2026" })).toBe(304);
    }
  });

  test("a value that is not an HTTP-date is ignored: a 200, never a 304", async () => {
    for (const path of PATHS)
      for (const value of [
        "3000",
        "99999",
        "Sat, 31 Feb 2027",
        "Sat, 31 Feb 2027 00:00:00 GMT",
        "Mon, 20 Nov 2026 06:00:05 GMT", // 20 November 2026 is a Friday
        "2027-01-01T00:00:00Z",
        "Fri, 20 Nov 2026 06:00:05 +0000",
      ])
        expect(await statusWith(path, { "if-modified-since": value })).toBe(200);
  });

  test("If-None-Match wins over If-Modified-Since, on /fhir as on the JSON API", async () => {
    for (const path of PATHS)
      expect(await statusWith(path, { "if-none-match": '"other"', "if-modified-since": LAST_MODIFIED })).toBe(200);
  });
});
