/**
 * The documented list order as a plain string key, for tests to check the read model against:
 * vendorName, organizationName (entries without one last), url, id; case-insensitive.
 */
export function listOrderKey(vendorName: string, organizationName: string | null, url: string, id: string): string {
  const org =
    organizationName === null || organizationName === "" ? "\u0001" : `\u0000${organizationName.toLowerCase()}`;
  return `${vendorName.toLowerCase()}\u0000${org}\u0000${url.toLowerCase()}\u0000${id}`;
}
