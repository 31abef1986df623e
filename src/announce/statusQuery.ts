/**
 * The query of GET /discovery/announce/status: `id`, or `resource` (and `method`), each at most
 * once. Strict like the catalog reads: an unknown parameter is refused, never ignored.
 */
import { InvalidInput } from '../core/errors.js';

export interface StatusQuery {
  id?: string;
  resource?: string;
  method?: string;
  /** An announced origin (src/federation): its manifests and each resource they named. */
  origin?: string;
}

const PARAMETERS = ['id', 'resource', 'method', 'origin'] as const;

export function parseStatusQuery(query: Record<string, unknown>): StatusQuery {
  const unknown = Object.keys(query).filter((k) => !(PARAMETERS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new InvalidInput(
      'unknown_filter',
      `Unknown query parameter ${unknown[0]}; use id, resource and method, or origin.`,
      unknown.map((path) => ({ path, message: 'is not an accepted parameter' })),
    );
  }
  const parsed: StatusQuery = {};
  for (const name of PARAMETERS) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length === 0 || value.length > 2048) {
      throw new InvalidInput('invalid_filter_value', `${name} must be given once, as a non-empty string.`, [
        { path: name, message: 'must be a single non-empty value' },
      ]);
    }
    parsed[name] = value;
  }
  return parsed;
}
