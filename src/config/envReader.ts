/**
 * Reading environment variables for the configuration (src/config/index.ts): each variable through a
 * parser that reports a problem instead of throwing, so every bad value is listed at once.
 */

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/** Reads one variable with a parser; a parser returns an error message instead of throwing. */
export class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: string, fallback: string, check?: (v: string) => string | undefined): string {
    const raw = this.env[name];
    const value = raw === undefined || raw === '' ? fallback : raw;
    const problem = check?.(value);
    if (problem) this.problems.push(`${name}=${JSON.stringify(value)}: ${problem}`);
    return value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^-?\d+$/.test(raw.trim())) {
      this.problems.push(`${name}=${JSON.stringify(raw)}: must be an integer between ${min} and ${max}`);
      return fallback;
    }
    const value = Number(raw.trim());
    if (value < min || value > max) {
      this.problems.push(`${name}=${JSON.stringify(raw)}: must be an integer between ${min} and ${max}`);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.string(name, fallback, (v) =>
      (allowed as readonly string[]).includes(v) ? undefined : `must be one of ${allowed.join(', ')}`,
    );
    return value as T;
  }
}

/** `a, b,,c` -> `['a', 'b', 'c']`: the form of every list-valued variable. */
export function commaList(value: string): string[] {
  return value.split(',').map((item) => item.trim()).filter(Boolean);
}

/** Several URLs, comma-separated, each checked like `checkUrl`. */
export function checkUrlList(protocols: string[]) {
  const one = checkUrl(protocols);
  return (value: string): string | undefined => {
    const urls = commaList(value);
    if (urls.length === 0) return `must be a URL (${protocols.join(' or ')}) or a comma-separated list of them`;
    if (urls.length === 1) return one(urls[0]!);
    const bad = urls.map((url) => [url, one(url)] as const).filter(([, problem]) => problem !== undefined);
    return bad.length > 0 ? bad.map(([url, problem]) => `${url}: ${problem}`).join('; ') : undefined;
  };
}

export function checkUrl(protocols: string[]) {
  return (value: string): string | undefined => {
    try {
      const url = new URL(value);
      return protocols.includes(url.protocol) ? undefined : `must be a ${protocols.join(' or ')} URL`;
    } catch {
      return `must be a URL (${protocols.join(' or ')})`;
    }
  };
}
