/**
 * bun run keys create --name <name> [--limit <requests per window>]   prints the key once
 * bun run keys list
 * bun run keys revoke <id>
 * DATABASE_PATH as for the server (default db/directory.sqlite).
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../config";
import { openDatabase } from "../db/client";
import { createApiKey, keyNameProblem, listApiKeys, printableKeyName, revokeApiKey } from "./store";

const USAGE = "usage: bun run keys create --name <name> [--limit <n>] | keys list | keys revoke <id>";

function fail(message: string, code = 2): never {
  console.error(`keys: ${message}`);
  if (code === 2) console.error(USAGE);
  process.exit(code);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      args: Bun.argv.slice(2),
      options: { name: { type: "string" }, limit: { type: "string" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return fail((error as Error).message);
  }
})();
const [command, ...rest] = positionals;
const db = openDatabase(loadConfig().databasePath);
const now = new Date().toISOString();

switch (command) {
  case "create": {
    if (!values.name?.trim()) fail("create needs --name");
    const nameProblem = keyNameProblem(values.name);
    if (nameProblem) fail(`--name: ${nameProblem}`);
    if (values.limit !== undefined && !/^[1-9]\d{0,8}$/.test(values.limit)) fail("--limit must be a whole number ≥ 1");
    const { id, key } = createApiKey(db, {
      name: values.name.trim(),
      rateLimit: values.limit === undefined ? null : Number(values.limit),
      now,
    });
    console.log(`created ${id} (${values.name.trim()})`);
    console.log(`key: ${key}`);
    console.log("Store it now: it is not shown again. Send it as X-API-Key: <key> or Authorization: Bearer <key>.");
    break;
  }
  case "list": {
    const keys = listApiKeys(db);
    if (keys.length === 0) console.log("no keys");
    for (const k of keys)
      console.log(
        [
          k.id,
          printableKeyName(k.name),
          k.rateLimit ?? "default",
          k.createdAt,
          k.revokedAt ? `revoked ${k.revokedAt}` : "active",
        ].join("\t"),
      );
    break;
  }
  case "revoke": {
    const id = rest[0];
    if (!id) fail("revoke needs the key id");
    if (!revokeApiKey(db, id, now)) fail(`no active key with id ${id}`, 1);
    console.log(`revoked ${id}`);
    break;
  }
  default:
    fail(command ? `unknown command ${command}` : "missing command");
}
db.sqlite.close();
