import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Audience } from "../../model/types";
import type { ListDefinition, VendorDefinition } from "./types";

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/\.[a-z0-9]+$/, "")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "list"
  );
}

/**
 * The list a file is ingested as: `listId` from the registry (its audience replaced by `access`
 * when given), else a list of its own named after the vendor and the file.
 */
export function fileList(
  registry: VendorDefinition[],
  vendor: VendorDefinition,
  file: string,
  listId?: string,
  access?: Audience,
): ListDefinition {
  const registered = vendor.lists.find((l) => l.id === listId);
  if (registered) return access ? { ...registered, audience: access } : registered;
  const owner = registry.find((v) => v.lists.some((l) => l.id === listId));
  if (owner) throw new Error(`list ${listId} belongs to vendor ${owner.id}, not ${vendor.id}`);
  if (listId !== undefined && !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(listId))
    throw new Error(`list id "${listId}" must be a lowercase slug`);
  return {
    id: listId ?? `${vendor.id}-file-${slug(basename(file))}`,
    url: pathToFileURL(resolve(file)).href,
    format: "fhir-bundle",
    audience: access ?? null,
    fhirVersion: null,
  };
}
