declare module "zipcodes" {
  interface ZipRow {
    zip: string;
    city: string;
    state: string;
    country: string;
    latitude: number;
    longitude: number;
  }
  export const codes: Record<string, ZipRow | undefined>;
}
