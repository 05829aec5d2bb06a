/**
 * A table's substring index is built once per version: a search that needs it at once while a
 * stepped build of it is running finishes that build, and both get the same index (not a second
 * build that later replaces the first).
 */
import { expect, test } from "bun:test";
import { fhirIndexOf } from "../../../src/server/fhir/fhir-index";
import { appOnGeneratedDataset } from "../../support/generated-app";

const live = appOnGeneratedDataset({ endpoints: 2_000, seed: 3 });

test("an index needed at once during its stepped build is that build's, finished", async () => {
  const index = await fhirIndexOf(live.app.directory.current);
  const stepped = index.substringIndex("organizationNames");
  expect(stepped).toBeInstanceOf(Promise);
  const now = index.substringIndexNow("organizationNames");
  expect(await stepped).toBe(now);
  expect(index.substringIndex("organizationNames")).toBe(now);
  expect(index.substringIndexNow("organizationNames")).toBe(now);
});
