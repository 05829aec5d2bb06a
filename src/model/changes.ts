import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { VerdictStatusesSchema } from "./capability-schemas";
import { EndpointRecordSchema } from "./endpoints";

/**
 * The fields of the Endpoint record a change can name: every served field but `id` (a change
 * of identity is a removal and an addition) and `lastUpdated` (it moves with every change).
 */
const RECORD_CHANGE_FIELDS = [
  "url",
  "vendorId",
  "vendorName",
  "organizationName",
  "npi",
  "tenantId",
  "fhirVersion",
  "access",
  "city",
  "state",
  "zipCode",
  "status",
] as const satisfies readonly (keyof typeof EndpointRecordSchema.properties)[];
/** And the verdict of the capabilities answer (its three statuses), which is not in the record. */
export const CHANGE_FIELDS = [...RECORD_CHANGE_FIELDS, "verdict"] as const;
export type ChangeField = (typeof CHANGE_FIELDS)[number];

const CHANGE_KINDS = ["added", "removed", "changed"] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** One field's change: its value before and after, each as the Endpoint record (or capabilities' verdict) serves it. */
const fieldChange = (field: ChangeField) => {
  const value = (field === "verdict" ? VerdictStatusesSchema : EndpointRecordSchema.properties[field]) as TSchema;
  return Type.Object({ from: value, to: value }, { additionalProperties: false });
};

export const ChangeRecordSchema = Type.Object(
  {
    version: Type.Integer({ minimum: 1, description: "The dataset version the change made." }),
    at: Type.String({ format: "date-time", description: "When that version was written." }),
    id: Type.String({ pattern: "^[0-9a-f]{64}$", description: "The entry's id (GET /api/v1/endpoints/{id})." }),
    change: Type.Union(
      CHANGE_KINDS.map((kind) => Type.Literal(kind)),
      {
        description:
          "added: the entry entered the list (new, or back after removal); removed: it left the list (gone from its vendor's list, or found unusable); changed: a listed entry's served fields changed.",
      },
    ),
    fields: Type.Optional(
      Type.Partial(Type.Object(Object.fromEntries(CHANGE_FIELDS.map((field) => [field, fieldChange(field)]))), {
        additionalProperties: false,
        minProperties: 1,
        description:
          "For `changed` only: each Endpoint field whose value changed, with its value before (`from`) and after (`to`); `verdict`: the statuses of the capabilities verdict (GET /api/v1/endpoints/{id}/capabilities) changed, `unknown` while unprobed.",
      }),
    ),
  },
  { additionalProperties: false, description: "What one dataset version changed in one entry." },
);
export type ChangeRecord = Static<typeof ChangeRecordSchema>;
