/**
 * The value readers of the read grammar (search/readGrammar.ts): each turns one parameter's raw
 * value into what the validated read holds, or records why it cannot. Strict: an unknown or
 * malformed value never reaches Elasticsearch. A raw value is what a query string carries (a
 * string; an array when the parameter is repeated) or a tool argument (search/readGrammar.ts
 * gives a number or a boolean its query-string form first, so both transports read alike).
 */
import type { FieldError } from '../core/errors.js';
import { toCaip2Network } from '../x402/networks.js';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_TEXT_LENGTH } from './readRequest.js';

/** Largest value of an Elasticsearch `long`: a ceiling at or above it excludes nothing. */
const LONG_MAX = 9223372036854775807n;

/** One value of a parameter that must appear at most once (the `simple` query parser gives arrays for repeats). */
export function single(name: string, value: unknown, errors: FieldError[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    errors.push({ path: name, message: 'must be given at most once' });
    return undefined;
  }
  return value;
}

/** A free-text filter: trimmed; blank, too long or with control characters refused. */
export function text(name: string, raw: unknown, errors: FieldError[], maxLength = MAX_TEXT_LENGTH): string | undefined {
  const value = single(name, raw, errors);
  if (value === undefined) return undefined;
  if (value.trim() === '') errors.push({ path: name, message: 'must not be empty' });
  else if (value.length > maxLength) errors.push({ path: name, message: `must be at most ${maxLength} characters` });
  else if (/[\u0000-\u001f\u007f]/.test(value)) errors.push({ path: name, message: 'must not contain control characters' });
  else return value.trim();
  return undefined;
}

export function oneOf<T extends string>(name: string, raw: unknown, allowed: readonly T[], errors: FieldError[]): T | undefined {
  const value = single(name, raw, errors);
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  errors.push({ path: name, message: `must be one of ${allowed.join(', ')}` });
  return undefined;
}

export function limit(raw: unknown, errors: FieldError[]): number {
  const value = single('limit', raw, errors);
  if (value === undefined) return DEFAULT_LIMIT;
  const parsed = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (parsed >= 1 && parsed <= MAX_LIMIT) return parsed;
  errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
  return DEFAULT_LIMIT;
}

/** `maxPrice`: a non-negative integer in the asset's smallest unit, compared as an integer. */
export function maxPrice(raw: unknown, errors: FieldError[]): string | undefined {
  const value = single('maxPrice', raw, errors);
  if (value === undefined) return undefined;
  if (!/^\d{1,200}$/.test(value)) {
    errors.push({ path: 'maxPrice', message: 'must be a non-negative integer amount in the asset\'s smallest unit' });
    return undefined;
  }
  const ceiling = BigInt(value);
  return ceiling >= LONG_MAX ? undefined : ceiling.toString();
}

/** `minUptime`: a decimal from 0 to 1 (`0.95`, `1`, `.5`); no exponents, signs or hex. */
export function minUptime(raw: unknown, errors: FieldError[]): number | undefined {
  const value = single('minUptime', raw, errors);
  if (value === undefined) return undefined;
  const uptime = /^(?:\d{1,3}(?:\.\d{0,12})?|\.\d{1,12})$/.test(value) ? Number(value) : NaN;
  if (uptime >= 0 && uptime <= 1) return uptime;
  errors.push({ path: 'minUptime', message: 'must be a number from 0 to 1 (share of health checks that found a valid 402)' });
  return undefined;
}

export function network(raw: unknown, errors: FieldError[]): string | undefined {
  const value = text('network', raw, errors);
  if (value === undefined) return undefined;
  const caip2 = toCaip2Network(value);
  if (caip2 === undefined) errors.push({ path: 'network', message: 'must be a CAIP-2 network id such as eip155:84532 (or a known x402 v1 name)' });
  return caip2;
}
