import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The tests' temporary directories: `tempDir` makes one under the system's temp dir and records
 * it; `removeTempDirs` deletes every one recorded so far. The preload test/support/remove-temp-dirs.ts
 * calls it after each test file's own afterAll hooks, so no file leaves one behind.
 */
const created: string[] = [];

export function tempDir(prefix = "endpoint-directory-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}
