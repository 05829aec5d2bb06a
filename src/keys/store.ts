import type { Database } from "bun:sqlite";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { apiKeys } from "../db/schema";

export interface ApiKeyInfo {
  id: string;
  name: string;
  rateLimit: number | null;
  createdAt: string;
  revokedAt: string | null;
}

const hashKey = (key: string) => new Bun.CryptoHasher("sha256").update(key).digest("hex");

function randomToken(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

/** Stores a new key as its SHA-256 hash; the plain key is returned once and never stored. */
export function createApiKey(
  db: Db,
  opts: { name: string; rateLimit?: number | null; now: string },
): { id: string; key: string } {
  const id = `key_${randomToken(6)}`;
  const key = `edk_${randomToken(32)}`;
  db.orm
    .insert(apiKeys)
    .values({ id, name: opts.name, keyHash: hashKey(key), rateLimit: opts.rateLimit ?? null, createdAt: opts.now })
    .run();
  return { id, key };
}

export function listApiKeys(db: Db): ApiKeyInfo[] {
  return db.orm
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      rateLimit: apiKeys.rateLimit,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    .all();
}

/** Returns false when no such key exists or it was already revoked. */
export function revokeApiKey(db: Db, id: string, now: string): boolean {
  const revoked = db.orm
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
    .all();
  return revoked.length === 1;
}

export interface ActiveKey {
  id: string;
  rateLimit: number | null;
}

/**
 * Looks keys up by hash with one statement prepared once (on every request of a key holder);
 * revocation takes effect on the next request.
 */
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
