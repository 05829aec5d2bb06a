import { and, asc, eq, isNull } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { hashKey } from "./api-key-lookup";
import type { Db } from "./client";
import { apiKeys } from "./schema";

/** Drizzle's query builder on the database's connection, for the key administration below. */
const orm = (db: Db) => drizzle(db.sqlite);

export interface ApiKeyInfo {
  id: string;
  name: string;
  rateLimit: number | null;
  createdAt: string;
  revokedAt: string | null;
}

function randomToken(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

/** Control characters (C0, DEL, C1) and bidi embedding/override/isolate controls. */
const CONTROL = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/** A key's name is printed to operators' terminals: it may not hold control characters. */
export function keyNameProblem(name: string): string | null {
  if (name.trim() === "") return "the name is empty";
  if (CONTROL.test(name)) return "the name contains control characters (line breaks, tabs, escape codes…)";
  return null;
}

const NAMED_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** A name as it is safe to print: every control character written as an escape (`\n`, `\x1b`, `\u202e`). */
export function printableKeyName(name: string): string {
  return name.replace(new RegExp(CONTROL.source, "gu"), (c) => {
    if (c in NAMED_ESCAPES) return NAMED_ESCAPES[c]!;
    const code = c.codePointAt(0)!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** Stores a new key as its SHA-256 hash; the plain key is returned once and never stored. */
export function createApiKey(
  db: Db,
  opts: { name: string; rateLimit?: number | null; now: string },
): { id: string; key: string } {
  const problem = keyNameProblem(opts.name);
  if (problem) throw new RangeError(problem);
  const id = `key_${randomToken(6)}`;
  const key = `edk_${randomToken(32)}`;
  orm(db)
    .insert(apiKeys)
    .values({ id, name: opts.name, keyHash: hashKey(key), rateLimit: opts.rateLimit ?? null, createdAt: opts.now })
    .run();
  return { id, key };
}

export function listApiKeys(db: Db): ApiKeyInfo[] {
  return orm(db)
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
  const revoked = orm(db)
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
    .all();
  return revoked.length === 1;
}
