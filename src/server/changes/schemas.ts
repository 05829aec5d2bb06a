import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { ChangeRecordSchema } from "../../model/changes";

export const CHANGES_DEFAULT_LIMIT = 100;
const LIMIT_MESSAGE = "limit: must be a whole number from 1 to 1000";
const SINCE_MESSAGE = "since: must be a dataset version: a whole number from 0 to the current version";
const AFTER_MESSAGE = "after: must be the whole number meta.next gave";

// Integers as TypeBox's own Integer, made numbers by the route's transform (as the list does).
export const ChangesQuery = t.Object(
  {
    since: t.Optional(
      Type.Integer({
        minimum: 0,
        "x-error": SINCE_MESSAGE,
        description:
          "A dataset version (`meta.until` of an earlier answer): the changes made after it. Without it the answer is empty and `meta.until` is the current version, where a client starts.",
        examples: [41],
      }),
    ),
    limit: t.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: CHANGES_DEFAULT_LIMIT,
        "x-error": LIMIT_MESSAGE,
        description: "Changes per page, 1 to 1000.",
        examples: [100],
      }),
    ),
    after: t.Optional(
      Type.Integer({
        minimum: 1,
        "x-error": AFTER_MESSAGE,
        description:
          "Where a page that ended inside a version resumes; only with `since`. Follow `meta.next` rather than writing it.",
      }),
    ),
  },
  { additionalProperties: false },
);
export const CHANGES_QUERY_KEYS = new Set(Object.keys(ChangesQuery.properties));
export const CHANGES_INTEGER_MESSAGES = { since: SINCE_MESSAGE, limit: LIMIT_MESSAGE, after: AFTER_MESSAGE };
export const CHANGES_INTEGER_KEYS = Object.keys(CHANGES_INTEGER_MESSAGES);

const EXAMPLE_ID = "536e0e0884148050bc026e5524449abd886ac72062eec8db25a12ab87d42f038";

export const ChangesResponse = t.Object(
  {
    success: t.Literal(true),
    data: t.Array(ChangeRecordSchema, { description: "Oldest first: by version, then by entry." }),
    meta: t.Object({
      since: t.Union([Type.Integer({ minimum: 0 }), t.Null()], { description: "`since` as asked; null without it." }),
      until: Type.Integer({
        minimum: 0,
        description:
          "The version this answer is complete up to: with `next` null, the current version (ask `since=<until>` later); else where the next page starts.",
      }),
      next: t.Union([t.String(), t.Null()], {
        description: "Path and query of the next page, or null when this page reaches `until`.",
      }),
    }),
  },
  {
    examples: [
      {
        success: true,
        data: [
          {
            version: 42,
            at: "2026-11-25T04:00:12.000Z",
            id: EXAMPLE_ID,
            change: "changed",
            fields: { status: { from: "listed", to: "verified" }, fhirVersion: { from: "UNKNOWN", to: "R4" } },
          },
          {
            version: 43,
            at: "2026-11-26T04:00:00.000Z",
            id: "0c0e7f2b4b6a1d7e9f3a5c8b2d4e6f8a0b1c3d5e7f9a2b4c6d8e0f1a3b5c7d9e",
            change: "removed",
          },
        ],
        meta: { since: 41, until: 43, next: null },
      },
    ],
  },
);
