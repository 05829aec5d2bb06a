/**
 * Preloaded by `bun test` (bunfig.toml): after each test file's own afterAll hooks (those of a
 * preload run last), the temporary directories the file made with `tempDir` are deleted, so a run
 * leaves nothing in the system's temp dir however the file ends. With `bun test --parallel` each
 * file runs in a fresh global and this runs once per file; in one process, once at the end.
 */
import { afterAll } from "bun:test";
import { removeTempDirs } from "./temp-dirs";

afterAll(removeTempDirs);
