import type { Static } from "@sinclair/typebox";
import { AFTER_VERSION, readChanges, readChangesFrom } from "../../db/changes";
import type { DatasetSnapshot } from "../../directory/snapshot";
import { ApiError, validationError } from "../http/api-error";
import { CHANGES_DEFAULT_LIMIT, type ChangesQuery } from "./schemas";

const PATH = "/api/v1/changes";

/**
 * The answer to `GET /api/v1/changes` at the snapshot's version, as JSON text. The snapshot's
 * connection is pinned at its version, so the answer is complete up to it and the same URL
 * always gives the same changes (`meta.until` and `next` only move on as new versions come).
 */
export function changesBody(snapshot: DatasetSnapshot, query: Static<typeof ChangesQuery>): string {
  const { since, after } = query;
  const limit = query.limit ?? CHANGES_DEFAULT_LIMIT;
  const current = snapshot.version;
  if (since === undefined) {
    if (after !== undefined) throw validationError("after: only with since");
    return JSON.stringify({ success: true, data: [], meta: { since: null, until: current, next: null } });
  }
  if (since > current) throw validationError(`since: must not be greater than the current version (${current})`);
  return snapshot.read((sqlite) => {
    const from = readChangesFrom(sqlite);
    if (since < from)
      throw new ApiError(
        410,
        "CHANGES_EXPIRED",
        `since: changes before version ${from} are no longer kept; download the export (GET /api/v1/export) and follow the changes from the version GET ${PATH} gives`,
      );
    const position =
      after === undefined ? { version: since, rowId: AFTER_VERSION } : { version: since + 1, rowId: after };
    const page = readChanges(sqlite, position, current, limit);
    let until = current;
    let next: string | null = null;
    if (page.last) {
      const { version, rowId, nextVersion } = page.last;
      // A page that ends with a version's last change is complete up to that version.
      until = nextVersion > version ? version : version - 1;
      next =
        until === version
          ? `${PATH}?since=${until}&limit=${limit}`
          : `${PATH}?since=${until}&after=${rowId}&limit=${limit}`;
    }
    // Each change written as text: `fields` is stored as the JSON recordChanges made, so it goes
    // out as it is rather than parsed and written again; the id comes from the read model.
    const data = page.changes.map(([version, at, change, fields, rowId]) => {
      const id = snapshot.idOfRow(rowId);
      if (id === null) throw new Error(`change of version ${version} names row ${rowId}, which this version lacks`);
      const head = `{"version":${version},"at":${JSON.stringify(at)},"id":"${id}","change":"${change}"`;
      return fields === null ? `${head}}` : `${head},"fields":${fields}}`;
    });
    return `{"success":true,"data":[${data.join(",")}],"meta":${JSON.stringify({ since, until, next })}}`;
  });
}
