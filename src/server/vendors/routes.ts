import { Elysia } from "elysia";
import type { Directory } from "../../directory/directory";
import { VendorListResponse } from "../../model/vendors";
import { dataResponse, successBody } from "../http/answers";
import { exchanges } from "../http/exchange";
import { API_ERRORS, NOT_MODIFIED, NoQuery } from "../http/schemas";
import { checkRawQuery, NO_PARAMETERS } from "../http/strict-query";

export const vendorRoutes = (directory: Directory) =>
  new Elysia({ name: "vendors", normalize: false }).use(exchanges).get(
    "/api/v1/vendors",
    ({ exchange }) => {
      const snapshot = directory.current;
      return dataResponse(exchange, snapshot, () => successBody(snapshot.vendors));
    },
    {
      query: NoQuery,
      transform: ({ request }) => checkRawQuery(request.url, NO_PARAMETERS),
      response: { 200: VendorListResponse, ...API_ERRORS },
      detail: {
        summary: "List vendors",
        description: "All vendors, sorted alphabetically by name, without pagination. Any query parameter → 400.",
        operationId: "listVendors",
        tags: ["Vendors"],
        responses: { 304: NOT_MODIFIED },
      },
    },
  );
