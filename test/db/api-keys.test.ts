/**
 * Key names reach an operator's terminal: `keys create` refuses names with control characters,
 * and `keys list` shows any such name already stored with its control characters escaped.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { runScript } from "../support/run-script";

const dir = mkdtempSync(join(tmpdir(), "keys-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const keys = (dbPath: string, ...args: string[]) => runScript("src/keys/cli.ts", args, { DATABASE_PATH: dbPath });

function storedNames(dbPath: string): string[] {
  const db = openDatabase(dbPath);
  try {
    return (db.sqlite.query("SELECT name FROM api_keys ORDER BY created_at").all() as { name: string }[]).map(
      (r) => r.name,
    );
  } finally {
    db.sqlite.close();
  }
}

describe("API key names and the terminal", () => {
  test("keys create refuses a name with control characters and stores nothing", async () => {
    const dbPath = join(dir, "create.sqlite");
    for (const name of ["evil\nname", "red\u001b[31mname", "bell\u0007", "del\u007fx", "tab\there", "c1\u009bname"]) {
      const run = await keys(dbPath, "create", "--name", name);
      expect([name, run.code]).toEqual([name, 2]);
      expect(run.stderr).toContain("control characters");
      expect(run.stdout).not.toContain("key: ");
    }
    expect(storedNames(dbPath)).toEqual([]);
  });

  test("control: an ordinary name with accents and spaces is accepted", async () => {
    const dbPath = join(dir, "ok.sqlite");
    const run = await keys(dbPath, "create", "--name", "  Señora Research Lab  ");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^key: edk_/m);
    expect(storedNames(dbPath)).toEqual(["Señora Research Lab"]);
  });

  test("keys list escapes control characters of names already stored", async () => {
    const dbPath = join(dir, "list.sqlite");
    const db = openDatabase(dbPath);
    db.sqlite
      .query(
        "INSERT INTO api_keys (id, name, key_hash, rate_limit, created_at) VALUES ('key_a', ?, 'h1', NULL, '2026-11-25T00:00:00Z')",
      )
      .run("line one\nforged\tactive\u001b[2J\u0007");
    db.sqlite.close();
    const run = await keys(dbPath, "list");
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]!.split("\t")).toEqual([
      "key_a",
      "line one\\nforged\\tactive\\x1b[2J\\x07",
      "default",
      "2026-11-25T00:00:00Z",
      "active",
    ]);
  });
});
