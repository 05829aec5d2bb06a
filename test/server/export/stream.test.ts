/**
 * The export stream itself, below HTTP: a writer that holds entries back (as the FHIR writer does
 * while it gathers an organization's URLs) must not leave the response waiting. Every read of the
 * stream yields bytes promptly, and the whole body arrives.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../../src/db/client";
import { Directory } from "../../../src/directory/directory";
import { exportStream, FORMATS } from "../../../src/server/export/service";
import type { ByteBuffer } from "../../../src/server/http/byte-buffer";
import { generatedDatabase } from "../../support/built-once";

let dir: string;
let db: Db;
let directory: Directory;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "export-stream-"));
  const path = join(dir, "directory.sqlite");
  await generatedDatabase({ endpoints: 6_000, out: path, seed: 5 });
  db = openDatabase(path);
  directory = new Directory(db.path, db.sqlite, { buildInProcessBelow: 1_000_000 });
});

afterAll(() => {
  directory?.close();
  db?.sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A writer that writes nothing until the end, then one line per entry (its list position). */
function holdingWriter() {
  const held: number[] = [];
  return {
    begin: () => {},
    write(ordinals: readonly number[], from: number, to: number) {
      for (let i = from; i < to; i++) held.push(ordinals[i]!);
    },
    end: (out: ByteBuffer) => out.utf8(`${held.join("\n")}\n`),
  };
}

test("a writer that holds every entry back until the end: each read yields bytes at once, the whole body arrives", async () => {
  const snapshot = directory.current;
  const { total } = snapshot.list({ queryWords: [] }, 0, 1);
  expect(total).toBeGreaterThan(5_000);
  let released = 0;
  const slot = { progress: () => {}, release: () => released++ };
  const reader = exportStream(snapshot, { queryWords: [] }, holdingWriter(), slot).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let reads = 0;
  for (;;) {
    const next = await Promise.race([
      reader.read(),
      Bun.sleep(2_000).then(() => {
        throw new Error(`read ${reads + 1} yielded nothing within 2 s`);
      }),
    ]);
    if (next.done) break;
    reads++;
    expect(next.value.length).toBeGreaterThan(0);
    text += decoder.decode(next.value, { stream: true });
  }
  const ids = text.trim().split(/\s+/);
  expect(ids.length).toBe(total);
  expect(new Set(ids).size).toBe(total);
  expect(released).toBeGreaterThan(0);
});

for (const encoding of [null, "gzip", "br"] as const) {
  test(`a reader that stops reading holds the export (${encoding ?? "plain"}): rendering stops far before the end, and resumes`, async () => {
    const snapshot = directory.current;
    const progress = { done: 0, total: 0, released: 0 };
    const slot = {
      progress: (done: number, total: number) => Object.assign(progress, { done, total }),
      release: () => progress.released++,
    };
    const writer = FORMATS.ndjson.writer(snapshot, "http://localhost");
    const reader = exportStream(snapshot, { queryWords: [] }, writer, slot, encoding).getReader();
    expect((await reader.read()).done).toBe(false);
    // Wait until rendering stops moving.
    let previous = -1;
    for (let unchanged = 0; unchanged < 5; previous = progress.done) {
      await Bun.sleep(50);
      unchanged = progress.done === previous ? unchanged + 1 : 0;
    }
    expect(progress.total).toBeGreaterThan(5_000);
    expect(progress.done).toBeLessThan(progress.total / 2);
    // Reading on delivers the rest.
    while (!(await reader.read()).done);
    expect(progress.done).toBe(progress.total);
    expect(progress.released).toBeGreaterThan(0);
  });
}

for (const encoding of [null, "gzip", "br"] as const) {
  test(`a reader that cancels stops the rendering: the slot is given back, and the render loop ends (${encoding ?? "plain"})`, async () => {
    const snapshot = directory.current;
    const progress = { done: 0, total: 0, released: 0 };
    const slot = {
      progress: (done: number, total: number) => Object.assign(progress, { done, total }),
      release: () => progress.released++,
    };
    const writer = FORMATS.fhir.writer(snapshot, "http://localhost");
    const reader = exportStream(snapshot, { queryWords: [] }, writer, slot, encoding).getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    expect(progress.released).toBe(1);
    // The render loop gives the slot back once more when it ends (release is idempotent).
    for (let attempt = 0; attempt < 100 && progress.released < 2; attempt++) await Bun.sleep(20);
    expect(progress.released).toBe(2);
    expect(progress.done).toBeLessThan(progress.total);
  });
}
