/**
 * Command-line handling every npm command shares (operator commands and benchmarks): a wrong option
 * or configuration ends the process with a message and exit code 2 instead of a stack trace, and a
 * mistyped number is refused rather than running with NaN or a 100,000-listing default.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config/index.js';

export function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** node:util parseArgs (strict: an unknown option is an error) that fails with the usage text. */
export function parseCommandLine<T extends ParseArgsConfig>(config: T, usage: string): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    return fail(`${(err as Error).message}\n${usage}`);
  }
}

export function loadConfigOrFail(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

export interface NumberRange {
  /** Without it, any value above zero: counts, rates and durations of zero make no run. */
  min?: number;
  max?: number;
  /** Default true; rates and durations may be fractional. */
  integer?: boolean;
}

/** A numeric `--name` option as parsed by parseCommandLine (a string), checked against a range. */
export function numberOption(name: string, text: string | undefined, range: NumberRange = {}): number {
  const { min, max = Number.POSITIVE_INFINITY, integer = true } = range;
  const value = Number(text);
  const inRange = (min === undefined ? value > 0 : value >= min) && value <= max;
  if (text === undefined || text.trim() === '' || !inRange || (integer && !Number.isInteger(value))) {
    const kind = integer ? 'an integer' : 'a number';
    const low = min ?? (integer ? 1 : undefined);
    const bounds = max < Number.POSITIVE_INFINITY ? (low === undefined ? `above 0, at most ${max}` : `from ${low} to ${max}`) : low === undefined ? 'above 0' : `of at least ${low}`;
    fail(`--${name} must be ${kind} ${bounds}`);
  }
  return value;
}

/**
 * Exits when `main` settles: clients and workers a run leaves open would otherwise keep the process
 * alive after the report was written.
 */
export function runMain(name: string, main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${name} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
