/**
 * Preloaded by `bun test` (bunfig.toml): every server and CLI a test starts inherits this
 * process's environment, so none refreshes its directory on its own schedule (REFRESH=off)
 * unless the test sets REFRESH itself, as the refresh schedule's tests do.
 */
process.env.REFRESH = "off";
