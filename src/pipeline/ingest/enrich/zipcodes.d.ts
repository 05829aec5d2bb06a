declare module "zipcodes" {
  interface ZipRow {
    zip: string;
    city: string;
    state: string;
    country: string;
  }
  export const codes: Record<string, ZipRow | undefined>;
}
