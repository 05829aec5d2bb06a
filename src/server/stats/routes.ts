import { Elysia, t } from "elysia";
import { emptyCounts, sumCounts } from "../../directory/capability-stats";
import type { Directory } from "../../directory/directory";
import { CapabilityStatsResponse } from "../../model/capability-schemas";
import { StatsResponse } from "../../model/stats";
import { VENDOR_KINDS } from "../../model/vendors";
import { dataResponse, successBody } from "../http/answers";
import { validationError } from "../http/api-error";
import { exchanges } from "../http/exchange";
import { API_ERRORS, NOT_MODIFIED, NoQuery } from "../http/schemas";
import { checkRawQuery, NO_PARAMETERS } from "../http/strict-query";

const CAPABILITY_STATS_QUERY = new Set(["vendor", "kind"]);

export const statsRoutes = (directory: Directory) =>
  new Elysia({ name: "stats", normalize: false })
    .use(exchanges)
    .get(
      "/api/v1/stats",
      ({ exchange }) => {
        const snapshot = directory.current;
        return dataResponse(exchange, snapshot, () => successBody(snapshot.stats));
      },
      {
        query: NoQuery,
        transform: ({ request }) => checkRawQuery(request.url, NO_PARAMETERS),
        response: { 200: StatsResponse, ...API_ERRORS },
        detail: {
          summary: "Dataset statistics",
          description: "Any query parameter → 400.",
          operationId: "getStats",
          tags: ["Statistics"],
          responses: { 304: NOT_MODIFIED },
        },
      },
    )
    .get(
      "/api/v1/stats/capabilities",
      ({ query, exchange }) => {
        const snapshot = directory.current;
        return dataResponse(exchange, snapshot, () => {
          const { overall, vendors: all } = snapshot.capabilityStats;
          const kind = query.kind === "ehr" || query.kind === "payer" ? query.kind : null;
          const ofKind = new Set(snapshot.vendors.filter((v) => v.kind === kind).map((v) => v.id));
          const vendors = kind === null ? all : all.filter((v) => ofKind.has(v.vendorId));
          if (query.vendor === undefined)
            return successBody({
              vendor: null,
              kind,
              ...(kind === null ? overall : sumCounts(vendors)),
              vendors,
            });
          const one = vendors.find((v) => v.vendorId === query.vendor);
          if (one === undefined) {
            if (!snapshot.vendors.some((v) => v.id === query.vendor))
              throw validationError("vendor: no vendor has this id (see /api/v1/vendors)");
            return successBody({ vendor: query.vendor, kind, ...emptyCounts(), vendors: [] });
          }
          const { vendorId: _id, vendorName: _name, ...counts } = one;
          return successBody({ vendor: query.vendor, kind, ...counts, vendors: [one] });
        });
      },
      {
        query: t.Object(
          {
            vendor: t.Optional(
              t.String({
                maxLength: 100,
                "x-error": "vendor: must be a vendor id of at most 100 characters",
                description: "Only this developer's entries (a vendor id of /api/v1/vendors); unknown → 400.",
                examples: ["epic"],
              }),
            ),
            kind: t.Optional(
              t.String({
                pattern: `^(?:${VENDOR_KINDS.join("|")})$`,
                enum: [...VENDOR_KINDS],
                "x-error": `kind: must be ${VENDOR_KINDS.join(" or ")}`,
                description:
                  "Only the developers of this kind (`ehr`: certified health IT developers; `payer`: health plans' Patient Access APIs), summed; with `vendor=`, that developer if it is of this kind.",
                examples: ["payer"],
              }),
            ),
          },
          { additionalProperties: false },
        ),
        transform: ({ request }) => checkRawQuery(request.url, CAPABILITY_STATS_QUERY),
        response: { 200: CapabilityStatsResponse, ...API_ERRORS },
        detail: {
          summary: "What servers offer, counted",
          description:
            "Counts of the directory's entries per capability facet, check and verdict (docs/api.md, Facets, Checks, Verdict), in all and per developer: how many verified endpoints publish PKCE, SMART v2, bulk export, how many are ready for patient apps. Facets and checks count verified entries; verdicts count every entry (`unknown`: not probed). `vendor=` narrows to one developer.",
          operationId: "getCapabilityStats",
          tags: ["Statistics"],
          responses: { 304: NOT_MODIFIED },
        },
      },
    );
