import type { Database } from "bun:sqlite";

export interface ApiKeyInfo {
  id: string;
  name: string;
  rateLimit: number | null;
  createdAt: string;
  revokedAt: string | null;
}

export const hashKey = (key: string) => new Bun.CryptoHasher("sha256").update(key).digest("hex");

function randomToken(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

/** Stores a new key as its SHA-256 hash; the plain key is returned once and never stored. */
export function createApiKey(sqlite: Database, opts: { name: string; rateLimit?: number | null; now: string }): { id: string; key: string } {
  const id = `key_${randomToken(6)}`;
  const key = `edk_${randomToken(32)}`;
  sqlite
    .prepare("INSERT INTO api_keys (id, name, key_hash, rate_limit, created_at) VALUES (?, ?, ?, ?, ?)")
    .run(id, opts.name, hashKey(key), opts.rateLimit ?? null, opts.now);
  return { id, key };
}

export function listApiKeys(sqlite: Database): ApiKeyInfo[] {
  return sqlite
    .prepare("SELECT id, name, rate_limit AS rateLimit, created_at AS createdAt, revoked_at AS revokedAt FROM api_keys ORDER BY created_at, id")
    .all() as ApiKeyInfo[];
}

/** Returns false when no such key exists or it was already revoked. */
export function revokeApiKey(sqlite: Database, id: string, now: string): boolean {
  return sqlite.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(now, id).changes === 1;
}

export interface ActiveKey {
  id: string;
  rateLimit: number | null;
}

/** Looks keys up by hash with one prepared statement; revocation takes effect on the next request. */
export class ApiKeyLookup {
  private readonly statement;

  constructor(sqlite: Database) {
    this.statement = sqlite.prepare("SELECT id, rate_limit FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL");
  }

  find(key: string): ActiveKey | null {
    const row = this.statement.values(hashKey(key))[0] as [string, number | null] | undefined;
    return row ? { id: row[0], rateLimit: row[1] } : null;
  }
}
