import { expect, test } from "bun:test";
import { join } from "node:path";

/**
 * Commit subjects fit in 72 characters (what `git log --oneline`, shortlogs and most review
 * tools show whole). Checked for every commit after BASE, the last commit before this rule:
 * history before it is left as it is.
 */
const ROOT = join(import.meta.dir, "..", "..");
const BASE = "442c2bd6b12eaf8299240ff97f4e5e10976232ce";
const LIMIT = 72;

const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: ROOT });
// A whole history only: an export without .git or a shallow clone cannot tell which commits are new.
const whole = git("rev-parse", "--is-shallow-repository").stdout.toString().trim() === "false";

test.skipIf(!whole)(`every commit subject after ${BASE.slice(0, 7)} has at most ${LIMIT} characters`, () => {
  expect(git("cat-file", "-e", `${BASE}^{commit}`).exitCode).toBe(0);
  const log = git("log", "--format=%h %s", `${BASE}..HEAD`);
  expect(log.exitCode).toBe(0);
  const long = log.stdout
    .toString()
    .split("\n")
    .filter((line) => line !== "")
    .filter((line) => [...line.slice(line.indexOf(" ") + 1)].length > LIMIT);
  expect(long).toEqual([]);
});
