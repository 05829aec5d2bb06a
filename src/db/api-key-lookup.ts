import type { Database } from "bun:sqlite";

/** A key as stored: its SHA-256 hash, in hex (the plain key is never stored). */
export const hashKey = (key: string) => new Bun.CryptoHasher("sha256").update(key).digest("hex");

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
