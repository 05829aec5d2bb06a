/**
 * Argument parsing shared by every command-line tool: `node:util` `parseArgs` (strict), one
 * usage shape, `-h`/`--help` prints it and exits 0, a bad argument prints the problem and the
 * usage to stderr and exits 2.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";

export type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

export interface CliDefinition<O extends OptionsConfig> {
  /** How the tool is run, e.g. `bun run probe`. */
  command: string;
  /** What follows the command on the usage line(s), e.g. `[options]`. */
  synopsis: readonly string[];
  /** What the tool does, in a sentence or two. */
  description: string;
  options: O;
  /** The options' help, in order: `[flag with its value, meaning]`; `-h, --help` is added. */
  optionHelp: readonly (readonly [string, string])[];
  /** The configuration the tool reads (environment variables), one line. */
  environment?: string;
  allowPositionals?: boolean;
  /** Exit statuses other than 0 (done) and 2 (bad arguments). */
  exitStatus?: readonly (readonly [number, string])[];
}

/** The parsed values: a string (or boolean) for each option given, undefined for the others. */
type Values<O extends OptionsConfig> = {
  [K in keyof O]?: O[K] extends { type: "boolean" } ? boolean : string;
};

const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

/** The usage text of a tool: usage line(s), description, options, environment, exit status. */
function usageText(definition: CliDefinition<OptionsConfig>): string {
  const rows: (readonly [string, string])[] = [...definition.optionHelp, ["-h, --help", "this text"]];
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  const lines = definition.synopsis.map((synopsis, i) =>
    `${i === 0 ? "Usage:" : "      "} ${definition.command} ${synopsis}`.trimEnd(),
  );
  lines.push("", definition.description, "", "Options:");
  for (const [flag, meaning] of rows) lines.push(`  ${flag.padEnd(width)}${meaning}`);
  if (definition.environment) lines.push("", `Environment: ${definition.environment}`);
  const statuses = [[0, "done"] as const, [2, "bad arguments"] as const, ...(definition.exitStatus ?? [])];
  statuses.sort((a, b) => a[0] - b[0]);
  lines.push("", `Exit status: ${statuses.map(([code, meaning]) => `${code} ${meaning}`).join(", ")}.`);
  return lines.join("\n");
}

/**
 * Parses the command line (default `process.argv`). `--help` prints the usage and exits 0; an
 * unknown option, a missing value or a stray positional prints the problem and the usage and exits 2.
 * `fail` does the same for a problem found afterwards; `check` turns an Error thrown while reading
 * the values into such a failure.
 */
export function parseCli<const O extends OptionsConfig>(
  definition: CliDefinition<O>,
  args: string[] = process.argv.slice(2),
) {
  const usage = usageText(definition);
  const name = definition.command.replace(/^bun (run )?/, "");
  const fail = (message: string): never => {
    process.stderr.write(`${name}: ${message}\n\n${usage}\n`);
    process.exit(2);
  };
  let parsed: { values: Values<O & typeof HELP_OPTION>; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      options: { ...definition.options, ...HELP_OPTION },
      strict: true,
      allowPositionals: definition.allowPositionals ?? false,
    }) as typeof parsed;
  } catch (error) {
    return fail((error as Error).message);
  }
  if (parsed.values.help === true) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const check = <T>(read: () => T): T => {
    try {
      return read();
    } catch (error) {
      return fail((error as Error).message);
    }
  };
  return { values: parsed.values, positionals: parsed.positionals, fail, check };
}

/** A whole number ≥ `min` from an option value, or undefined when the option is absent; throws otherwise. */
export function wholeNumber(value: string | undefined, flag: string, min = 1): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new Error(`${flag} must be a whole number ≥ ${min}, got "${value}"`);
  return Number(value);
}

/**
 * Runs a command's `main` and exits with the status it resolves to; an error thrown prints
 * `<command> failed:` with its stack and exits 1.
 */
export function exitWhenDone(command: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`${command} failed: ${(error as Error).stack ?? error}\n`);
      process.exit(1);
    },
  );
}
