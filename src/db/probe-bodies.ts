import type { Database } from "bun:sqlite";
import { perConnection } from "./per-connection";

/**
 * The raw bodies probes keep (CapabilityStatements, SMART configurations), each distinct body
 * stored once in `probe_bodies` under its SHA-256; `probes.metadata_body_id` / `smart_body_id`
 * refer to them. Real servers repeat themselves (a vendor release serves one statement to
 * thousands of tenants), so a few thousand bodies serve a million entries.
 */

/** Hex SHA-256 of a body's UTF-8 bytes: the key a body is found by. */
function bodySha256(body: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(body).digest("hex");
}

const prepared = perConnection((sqlite) => ({
  find: sqlite.prepare("SELECT id FROM probe_bodies WHERE sha256 = ?"),
  text: sqlite.prepare("SELECT body FROM probe_bodies WHERE id = ?"),
  insert: sqlite.prepare("INSERT INTO probe_bodies (sha256, body) VALUES (?, ?)"),
  prune: sqlite.prepare(
    `DELETE FROM probe_bodies WHERE id = ?1
       AND NOT EXISTS (SELECT 1 FROM probes WHERE metadata_body_id = ?1)
       AND NOT EXISTS (SELECT 1 FROM probes WHERE smart_body_id = ?1)`,
  ),
}));

/** The text of stored body `id`; null for no id (that document was not kept) or an id not stored. */
export function bodyText(sqlite: Database, id: number | null): string | null {
  if (id === null) return null;
  const value = prepared(sqlite).text.values(id)[0]?.[0] as string | Uint8Array | undefined;
  // A database may hold a body as bytes (the probe writes text): read as UTF-8, bad bytes replaced.
  return value === undefined ? null : typeof value === "string" ? value : new TextDecoder().decode(value);
}

/**
 * A value derived once per pair of body ids (a statement's and a SMART configuration's): a body
 * id always names the same bytes, and a vendor release serves one pair to thousands of URLs.
 */
export function bodyPairMemo<T>() {
  const kept = new Map<string, T>();
  return {
    get size() {
      return kept.size;
    },
    clear: () => kept.clear(),
    /** `variant`: what else the value depends on besides the pair (the URL's scheme). */
    of(metadataId: number | null, smartId: number | null, derive: () => T, variant = ""): T {
      const key = `${metadataId}:${smartId}:${variant}`;
      let value = kept.get(key);
      if (value === undefined) {
        value = derive();
        kept.set(key, value);
      }
      return value;
    },
  };
}

/** The id of `body` in probe_bodies, stored first when new. Call inside the caller's write transaction. */
export function storeBody(sqlite: Database, body: string): number {
  const { find, insert } = prepared(sqlite);
  const sha256 = bodySha256(body);
  const found = find.values(sha256)[0] as [number] | undefined;
  if (found) return found[0];
  return Number(insert.run(sha256, body).lastInsertRowid);
}

/**
 * Deletes the given bodies that no probe refers to any more (the ones the caller just stopped
 * referring to); every body no probe refers to when `ids` is omitted. Returns how many went.
 */
export function pruneBodies(sqlite: Database, ids?: Iterable<number>): number {
  const { prune } = prepared(sqlite);
  const candidates = ids ?? (sqlite.prepare("SELECT id FROM probe_bodies").values() as [number][]).map(([id]) => id);
  let pruned = 0;
  for (const id of candidates) pruned += prune.run(id).changes;
  return pruned;
}

/**
 * Fills the SHA-256 of bodies that have none: the migration that moved bodies out of the probe
 * rows deduplicates them in SQL, which cannot hash. A body equal to one already hashed (which
 * that migration never leaves) is merged into it. Cheap when there is nothing to do (one index probe).
 */
export function fillBodyHashes(sqlite: Database): number {
  const missing = sqlite.prepare("SELECT id FROM probe_bodies WHERE sha256 IS NULL").values() as [number][];
  if (missing.length === 0) return 0;
  const read = sqlite.prepare("SELECT CAST(body AS BLOB) FROM probe_bodies WHERE id = ?");
  const { find } = prepared(sqlite);
  const setHash = sqlite.prepare("UPDATE probe_bodies SET sha256 = ? WHERE id = ?");
  const repoint = sqlite.prepare(
    `UPDATE probes SET
       metadata_body_id = CASE metadata_body_id WHEN ?1 THEN ?2 ELSE metadata_body_id END,
       smart_body_id = CASE smart_body_id WHEN ?1 THEN ?2 ELSE smart_body_id END
     WHERE metadata_body_id = ?1 OR smart_body_id = ?1`,
  );
  const remove = sqlite.prepare("DELETE FROM probe_bodies WHERE id = ?");
  sqlite
    .transaction(() => {
      for (const [id] of missing) {
        const [body] = read.values(id)[0] as [Uint8Array];
        const sha256 = bodySha256(body);
        const same = find.values(sha256)[0] as [number] | undefined;
        if (same) {
          repoint.run(id, same[0]);
          remove.run(id);
        } else setHash.run(sha256, id);
      }
    })
    .immediate();
  return missing.length;
}
