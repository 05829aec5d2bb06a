import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { loadConfig } from "../../src/config";
import { createApiKey, revokeApiKey } from "../../src/db/api-keys";
import { openDatabase } from "../../src/db/client";
import { createLogger } from "../../src/logger";
import { createTestApp } from "../support/app";
import { fixtureDb, get } from "../support/fixture";
import { runScript } from "../support/run-script";
import { startServer } from "../support/server-process";

function appWithKeys(env: Record<string, string> = {}) {
  const db = fixtureDb();
  const lines: string[] = [];
  const log = createLogger("info", { write: (line) => lines.push(line), flush: () => {} });
  const app = createTestApp({
    db,
    config: loadConfig({ RATE_LIMIT_MAX: "2", RATE_LIMIT_MAX_WITH_KEY: "5", ...env }),
    log,
  });
  return { db, app, lines };
}

describe("API keys", () => {
  test("a valid key gets the key quota, in its own window, by either header", async () => {
    const { db, app } = appWithKeys();
    const { key } = createApiKey(db, { name: "researcher", now: "2026-11-25T00:00:00Z" });
    const anonymous = await get(app, "/api/v1/stats");
    expect(anonymous.response.headers.get("ratelimit-limit")).toBe("2");
    const viaHeader = await get(app, "/api/v1/stats", { headers: { "x-api-key": key } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.response.headers.get("ratelimit-limit")).toBe("5");
    expect(viaHeader.response.headers.get("ratelimit-remaining")).toBe("4");
    const viaBearer = await get(app, "/api/v1/stats", { headers: { authorization: `Bearer ${key}` } });
    expect(viaBearer.response.headers.get("ratelimit-remaining")).toBe("3");
    expect((await get(app, "/api/v1/stats")).response.headers.get("ratelimit-remaining")).toBe("0");
  });

  test("a key's own limit overrides the default; beyond it, 429", async () => {
    const { db, app } = appWithKeys();
    const { key } = createApiKey(db, { name: "partner", rateLimit: 3, now: "2026-11-25T00:00:00Z" });
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await get(app, "/api/v1/vendors", { headers: { "x-api-key": key } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  test("unknown, empty and revoked keys → 401 INVALID_API_KEY, even with limiting off", async () => {
    const { db, app } = appWithKeys({ RATE_LIMIT_MAX: "0" });
    const { id, key } = createApiKey(db, { name: "old", now: "2026-11-25T00:00:00Z" });
    expect((await get(app, "/api/v1/stats", { headers: { "x-api-key": key } })).status).toBe(200);
    revokeApiKey(db, id, "2026-11-25T01:00:00Z");
    const attempts: Record<string, string>[] = [
      { "x-api-key": key },
      { "x-api-key": "edk_typo" },
      { authorization: "Bearer " },
      { authorization: "Bearer nope" },
    ];
    for (const headers of attempts) {
      const { status, body } = await get(app, "/api/v1/stats", { headers });
      expect(status).toBe(401);
      expect(body.error.code).toBe("INVALID_API_KEY");
    }
    expect((await get(app, "/health", { headers: { "x-api-key": "edk_typo" } })).status).toBe(200);
  });

  test("unknown keys count against the client's anonymous quota: 401 with RateLimit headers, then 429 with Retry-After", async () => {
    const { app } = appWithKeys({ RATE_LIMIT_MAX: "3" });
    const seen: { status: number; remaining: string | null; retryAfter: string | null }[] = [];
    for (let i = 0; i < 5; i++) {
      const { response } = await get(app, "/api/v1/stats", { headers: { "x-api-key": `edk_guess_${i}` } });
      expect(response.headers.get("ratelimit-limit")).toBe("3");
      expect(response.headers.get("ratelimit-policy")).toBe("3;w=60");
      expect(response.headers.get("ratelimit-reset")).not.toBeNull();
      seen.push({
        status: response.status,
        remaining: response.headers.get("ratelimit-remaining"),
        retryAfter: response.headers.get("retry-after"),
      });
    }
    expect(seen.map((s) => s.status)).toEqual([401, 401, 401, 429, 429]);
    expect(seen.map((s) => s.remaining)).toEqual(["2", "1", "0", "0", "0"]);
    expect(seen[0]!.retryAfter).toBeNull();
    expect(Number(seen[3]!.retryAfter)).toBeGreaterThan(0);
    // The same quota: a request without a key from that client is refused too.
    expect((await get(app, "/api/v1/stats")).status).toBe(429);
  });

  test("the plain key is stored only as a hash and never logged", async () => {
    const { db, app, lines } = appWithKeys();
    const { key } = createApiKey(db, { name: "secret", now: "2026-11-25T00:00:00Z" });
    await get(app, "/api/v1/stats", { headers: { "x-api-key": key } });
    await get(app, "/api/v1/stats", { headers: { authorization: `Bearer ${key}` } });
    await Bun.sleep(10);
    const files = [db.path, `${db.path}-wal`]
      .map((path) => (existsSync(path) ? readFileSync(path).toString("latin1") : ""))
      .join("");
    expect(files.includes(key)).toBe(false);
    expect(files.includes(new Bun.CryptoHasher("sha256").update(key).digest("hex"))).toBe(true);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join("\n")).not.toContain(key);
  });
});

describe("bun run keys", () => {
  const run = (dbPath: string, ...args: string[]) => runScript("src/keys/cli.ts", args, { DATABASE_PATH: dbPath });

  test("create prints the key once; list shows it without the key; revoke stops it working on a running server", async () => {
    const db = fixtureDb();
    db.sqlite.close();
    const created = await run(db.path, "create", "--name", "ops team", "--limit", "7");
    expect(created.code).toBe(0);
    const key = /key: (edk_\S+)/.exec(created.stdout)![1]!;
    const id = /created (key_\S+)/.exec(created.stdout)![1]!;
    const listed = await run(db.path, "list");
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain("ops team");
    expect(listed.stdout).toContain("7");
    expect(listed.stdout).not.toContain(key);

    const server = await startServer({ DATABASE_PATH: db.path });
    try {
      const ok = await fetch(`${server.baseUrl}/api/v1/stats`, { headers: { "x-api-key": key } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("ratelimit-limit")).toBe("7");
      expect((await run(db.path, "revoke", id)).code).toBe(0);
      expect((await fetch(`${server.baseUrl}/api/v1/stats`, { headers: { "x-api-key": key } })).status).toBe(401);
      expect((await run(db.path, "revoke", id)).code).toBe(1);
    } finally {
      await server.stop();
    }
    expect(server.output()).not.toContain(key);
    const reopened = openDatabase(db.path);
    expect(JSON.stringify(reopened.sqlite.prepare("SELECT * FROM api_keys").all())).not.toContain(key);
  });

  test("usage errors exit 2", async () => {
    const db = fixtureDb();
    expect((await run(db.path, "create")).code).toBe(2);
    expect((await run(db.path, "create", "--name", "x", "--limit", "0")).code).toBe(2);
    expect((await run(db.path, "frobnicate")).code).toBe(2);
  });
});
