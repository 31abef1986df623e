/**
 * Ranking tunables (README "Catalog reads: the choices", Ranking): field boosts and decays live in the listing index's
 * mapping `_meta.ranking`, BM25 k1/b in its similarity settings, so operators tune ranking without
 * a deploy. This module validates what it reads; the cache and the ranking command both use it.
 */
import { isObject } from '../core/json.js';
import { loadIndexDefinition } from '../store/listingIndex.js';
import { SIMILARITY_NAME, type DecayFunction, type RankingSettings } from '../store/rankingTunables.js';

export type { DecayFunction, RankingSettings } from '../store/rankingTunables.js';

const DECAY_FUNCTIONS: readonly DecayFunction[] = ['exp', 'gauss', 'linear'];
/** Elasticsearch time units the decay accepts; whole numbers keep it simple to reason about. */
const DURATION = /^(\d{1,9})(ms|s|m|h|d)$/;


/** Numbers may arrive as strings (index settings always do). */
function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return NaN;
}

class Checker {
  readonly problems: string[] = [];
  number(path: string, value: unknown, min: number, max: number, opts: { minExclusive?: boolean; maxExclusive?: boolean } = {}): number {
    const n = toNumber(value);
    const tooLow = opts.minExclusive ? n <= min : n < min;
    const tooHigh = opts.maxExclusive ? n >= max : n > max;
    if (!Number.isFinite(n) || tooLow || tooHigh) {
      const range = `${opts.minExclusive ? '>' : '>='} ${min} and ${opts.maxExclusive ? '<' : '<='} ${max}`;
      this.problems.push(`${path}=${JSON.stringify(value)}: must be a number ${range}`);
    }
    return n;
  }
  duration(path: string, value: unknown, allowZero: boolean): string {
    const match = typeof value === 'string' ? DURATION.exec(value) : null;
    if (!match || (!allowZero && Number(match[1]) === 0)) {
      this.problems.push(`${path}=${JSON.stringify(value)}: must be a ${allowZero ? '' : 'positive '}duration like 7d, 12h, 30m, 90s`);
    }
    return String(value);
  }
  decayFunction(path: string, value: unknown): DecayFunction {
    if (value === undefined) return 'exp';
    if (!(DECAY_FUNCTIONS as readonly unknown[]).includes(value)) this.problems.push(`${path}=${JSON.stringify(value)}: must be one of ${DECAY_FUNCTIONS.join(', ')}`);
    return value as DecayFunction;
  }
}

/**
 * Checks raw tunables. `textFields` (the index's text fields) lets boosts on fields that do not
 * exist be rejected: a typo would otherwise silently drop a field from matching.
 */
export function validateRanking(
  ranking: unknown,
  similarity: unknown,
  textFields?: ReadonlySet<string>,
): { settings: RankingSettings; problems: [] } | { settings?: undefined; problems: string[] } {
  const check = new Checker();
  const raw = isObject(ranking) ? ranking : {};
  if (!isObject(ranking)) check.problems.push('_meta.ranking: missing or not an object');
  const fields: Record<string, number> = {};
  if (!isObject(raw.fields) || Object.keys(raw.fields).length === 0) check.problems.push('fields: must map at least one text field to a boost');
  else {
    for (const [field, boost] of Object.entries(raw.fields)) {
      if (textFields && !textFields.has(field)) check.problems.push(`fields.${field}: not a text field of the index`);
      fields[field] = check.number(`fields.${field}`, boost, 0, 1000);
    }
    if (Object.values(fields).every((b) => !(b > 0))) check.problems.push('fields: at least one boost must be above 0');
  }
  const price = isObject(raw.price) ? raw.price : {};
  const recency = isObject(raw.recency) ? raw.recency : {};
  const bm25 = isObject(similarity) ? similarity : {};
  const settings: RankingSettings = {
    fields,
    price: {
      function: check.decayFunction('price.function', price.function),
      origin: check.number('price.origin', price.origin, 0, Number.MAX_SAFE_INTEGER),
      scale: check.number('price.scale', price.scale, 0, Number.MAX_SAFE_INTEGER, { minExclusive: true }),
      offset: check.number('price.offset', price.offset ?? 0, 0, Number.MAX_SAFE_INTEGER),
      decay: check.number('price.decay', price.decay, 0, 1, { minExclusive: true, maxExclusive: true }),
    },
    recency: {
      function: check.decayFunction('recency.function', recency.function),
      scale: check.duration('recency.scale', recency.scale, false),
      offset: check.duration('recency.offset', recency.offset ?? '0s', true),
      decay: check.number('recency.decay', recency.decay, 0, 1, { minExclusive: true, maxExclusive: true }),
      neverSettled: check.number('recency.neverSettled', recency.neverSettled, 0, 1, { minExclusive: true }),
    },
    bm25: {
      k1: check.number('bm25.k1', bm25.k1 ?? 1.2, 0, 10),
      b: check.number('bm25.b', bm25.b ?? 0.75, 0, 1),
    },
  };
  return check.problems.length > 0 ? { problems: check.problems } : { settings, problems: [] };
}

/** Paths of the text fields (sub-fields included) of a mapping's properties. */
export function textFieldsOf(properties: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (!isObject(properties)) return out;
  for (const [name, field] of Object.entries(properties)) {
    if (!isObject(field)) continue;
    const path = prefix ? `${prefix}.${name}` : name;
    if (field.type === 'text') out.add(path);
    textFieldsOf(field.properties, path, out);
    textFieldsOf(field.fields, path, out);
  }
  return out;
}

/** The tunables mappings/listings.json ships with: used until the live index has been read. */
export function shippedRanking(): RankingSettings {
  const definition = loadIndexDefinition();
  const index = (definition.settings as { index?: { similarity?: Record<string, unknown> } }).index;
  const result = validateRanking(definition.mappings._meta?.ranking, index?.similarity?.[SIMILARITY_NAME]);
  if (!result.settings) throw new Error(`mappings/listings.json has invalid ranking tunables: ${result.problems.join('; ')}`);
  return result.settings;
}

