/**
 * Seconds a connection may stay idle (nothing read or written) before the server closes it:
 * src/index.ts listens with it, and a handler that holds a request longer on purpose (the first
 * request for a download file waits for it to be written) lifts it and sets it back.
 */
export const IDLE_TIMEOUT_SECONDS = 30;
