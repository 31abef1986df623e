/** The request budgets (docs/announce.md "Rate limits", docs/facilitator.md "Rate limits"): `<requests>/<window>` rules read from the environment. */
import type { EnvReader } from './envReader.js';

/** `limit` requests per `windowMs` per key (client address or token), fixed window. */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

export interface RateLimitSettings {
  announce?: RateLimitRule;
  publish?: RateLimitRule;
  publishPerToken?: RateLimitRule;
  /** /discovery/search, /discovery/resources, /mcp/tools: off unless the operator sets it. */
  reads?: RateLimitRule;
  /** /verify and /settle (each its own budget), per client address (issue 9). */
  facilitator?: RateLimitRule;
  /** /verify and /settle (each its own budget), per payer wallet, counting distinct payments (issue 9). */
  facilitatorPayer?: RateLimitRule;
}

const WINDOW_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `120/1m`, `10/30s`, `off`. */
export function parseRateRule(value: string): RateLimitRule | undefined | string {
  if (value.trim().toLowerCase() === 'off') return undefined;
  const match = /^\s*(\d{1,9})\s*\/\s*(\d{1,9})?\s*(ms|s|m|h)\s*$/.exec(value);
  if (!match || Number(match[1]) < 1) return 'must be "off" or <requests>/<window> such as 120/1m, 10/30s (units ms, s, m, h)';
  const windowMs = Number(match[2] ?? 1) * WINDOW_UNITS[match[3]!]!;
  if (windowMs < 100 || windowMs > 86_400_000) return 'the window must be between 100ms and 24h';
  return { limit: Number(match[1]), windowMs };
}

export function readRateRule(read: EnvReader, name: string, fallback: string): RateLimitRule | undefined {
  const value = read.string(name, fallback, (v) => {
    const rule = parseRateRule(v);
    return typeof rule === 'string' ? rule : undefined;
  });
  const rule = parseRateRule(value);
  return typeof rule === 'string' ? undefined : rule;
}
