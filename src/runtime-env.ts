/**
 * Settings of the Bun runtime itself, read before any of our code runs (so not part of
 * `loadConfig()`): `npm start`, the Dockerfile and the benchmarks' servers set them, and a test
 * checks that they agree with this list.
 *
 * MIMALLOC_PURGE_DELAY: Bun's allocator (mimalloc) hands memory it no longer uses back to the
 * system 10 ms after it was freed, and a server answering thousands of requests a second asks
 * for it again moments later, each time through a page fault. Measured on a capabilities answer
 * (6.5 KB, random ids, 1M entries): 1.75 page faults per request and 42 µs of kernel time, against
 * 14 µs for a bare server sending a body of the same size. Keeping freed memory 10 s cut that to
 * 0.4 faults, but a server answering 20,000+ requests a second then still held 550–670 MB
 * seconds after a burst (1M entries; 537 MB when ready). Kept 1 s: 0.3 faults per request, about
 * 3 µs more per request, and 475 MB five seconds after the same burst (10 s: 549 MB).
 */
export const RUNTIME_ENV = { MIMALLOC_PURGE_DELAY: "1000" } as const;

/** The settings as shell assignments (`NAME=value ...`), as `npm start` writes them before its command. */
export const runtimeEnvPrefix = () =>
  Object.entries(RUNTIME_ENV)
    .map(([name, value]) => `${name}=${value}`)
    .join(" ");
