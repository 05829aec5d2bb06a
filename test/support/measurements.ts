/**
 * A measurement a test makes on the way (sizes, counts), for whoever tunes the code: printed only
 * with `TEST_VERBOSE=1`, so that a green run prints test results and nothing else.
 */
export function reportMeasurement(line: string): void {
  if (process.env.TEST_VERBOSE === "1") console.log(line);
}
