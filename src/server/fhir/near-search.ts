import { MAX_RADIUS_MILES } from "../../model/endpoints";
import { invalid } from "./outcome";

/** A `near` value read: a point in degrees and a distance in miles. */
export interface NearValue {
  latitude: number;
  longitude: number;
  miles: number;
}

const MILES_PER_KM = 0.621371192;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * Reads Organization's `near`, written as FHIR's Location `near`: `latitude|longitude|distance|units`
 * (degrees; `units` `mi` or `km`, FHIR's default `km` when left out; the distance at most
 * MAX_RADIUS_MILES, the list's own bound). A malformed value is a 400 `invalid`.
 */
export function parseNearValue(value: string): NearValue {
  const parts = value.split("|");
  const [latitude, longitude, distance, units = "km"] = parts;
  const bad = (why: string) =>
    invalid(
      `near: ${why}; write latitude|longitude|distance|units (degrees; units mi or km), not "${value.slice(0, 64)}"`,
    );
  if (parts.length < 3 || parts.length > 4) throw bad("four parts separated by |");
  for (const part of [latitude, longitude, distance])
    if (!NUMBER.test(part!)) throw bad(`"${part!.slice(0, 32)}" is not a number`);
  const lat = Number(latitude);
  const lon = Number(longitude);
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180)
    throw bad("latitude from -90 to 90, longitude from -180 to 180");
  if (units !== "mi" && units !== "km") throw bad(`units "${units.slice(0, 16)}" is neither mi nor km`);
  const miles = units === "mi" ? Number(distance) : Number(distance) * MILES_PER_KM;
  if (miles > MAX_RADIUS_MILES)
    throw bad(`the distance is at most ${MAX_RADIUS_MILES} miles (${Math.floor(MAX_RADIUS_MILES / MILES_PER_KM)} km)`);
  return { latitude: lat, longitude: lon, miles };
}
