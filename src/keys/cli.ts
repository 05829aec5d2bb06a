/**
 * `bun run keys`: creates, lists and revokes API keys in the database the server reads. The key
 * itself is printed once, at creation; only its SHA-256 hash is stored.
 */
import { parseCli } from "../cli/args";

const { values, positionals, fail } = parseCli({
  command: "bun run keys",
  synopsis: ["create --name <name> [--limit <n>]", "list", "revoke <id>"],
  description: "Creates an API key (printed once), lists the keys, or revokes one.",
  options: { name: { type: "string" }, limit: { type: "string" } },
  optionHelp: [
    ["--name <name>", "create: who the key is for"],
    ["--limit <n>", "create: its own requests per window (default RATE_LIMIT_MAX_WITH_KEY)"],
  ],
  environment: "DATABASE_PATH as for the server (default db/directory.sqlite).",
  allowPositionals: true,
  exitStatus: [[1, "no such active key"]],
});
const [command, ...rest] = positionals;
if (!["create", "list", "revoke"].includes(command ?? ""))
  fail(command ? `unknown command ${command}` : "missing command");
// Loaded once the arguments are read: `--help` and a bad argument answer without them.
const { loadConfig } = await import("../config");
const { createApiKey, keyNameProblem, listApiKeys, printableKeyName, revokeApiKey } = await import("../db/api-keys");
const { openDatabase } = await import("../db/client");
const db = openDatabase(loadConfig().databasePath);
const now = new Date().toISOString();

switch (command) {
  case "create": {
    const name = values.name?.trim() || fail("create needs --name");
    const nameProblem = keyNameProblem(name);
    if (nameProblem) fail(`--name: ${nameProblem}`);
    if (values.limit !== undefined && !/^[1-9]\d{0,8}$/.test(values.limit)) fail("--limit must be a whole number ≥ 1");
    const { id, key } = createApiKey(db, {
      name,
      rateLimit: values.limit === undefined ? null : Number(values.limit),
      now,
    });
    console.log(`created ${id} (${name})`);
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
    const id = rest[0] || fail("revoke needs the key id");
    if (!revokeApiKey(db, id, now)) {
      console.error(`keys: no active key with id ${id}`);
      db.sqlite.close();
      process.exit(1);
    }
    console.log(`revoked ${id}`);
    break;
  }
}
db.sqlite.close();
