/**
 * The strict query rules every read shares (the same problem codes as the catalog reads): an
 * unknown parameter is `unknown_filter`, a bad or repeated value `invalid_filter_value`, every bad
 * one reported at once.
 */
import { InvalidInput, type FieldError } from './errors.js';

export function rejectUnknown(query: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(query).filter((name) => !allowed.includes(name));
  if (unknown.length > 0) {
    throw new InvalidInput(
      'unknown_filter',
      `Unknown parameter: ${unknown.join(', ')}. Allowed: ${allowed.join(', ')}.`,
      unknown.map((path) => ({ path, message: 'is not a known parameter' })),
    );
  }
}

export function parseLimit(value: unknown, max: number, fallback: number, errors: FieldError[]): number {
  if (value === undefined) return fallback;
  const limit = typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (limit >= 1 && limit <= max) return limit;
  errors.push({ path: 'limit', message: typeof value === 'string' ? `must be an integer from 1 to ${max}` : 'must be given at most once' });
  return fallback;
}

export function throwIfAny(errors: FieldError[]): void {
  if (errors.length > 0) {
    throw new InvalidInput('invalid_filter_value', `Invalid value for ${errors.map((e) => e.path).join(', ')}: ${errors[0]!.message}`, errors);
  }
}
