/**
 * The idle time-out of a connection sending a download file (the most Bun allows), instead of
 * the server's own (IDLE_TIMEOUT_SECONDS, 30 s): the runtime writes the file as the socket
 * drains, and behind socket buffers grown to megabytes a reader at 10 KB/s lets it write only
 * every minute or two, which 30 s would cut. A reader that takes nothing for this long is
 * disconnected (it holds no export slot; it resumes with Range).
 */
export const DOWNLOAD_IDLE_SECONDS = 255;
