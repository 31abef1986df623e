/**
 * The operator's view of the ranking tunables (scripts/ranking.ts): list them as `key value`
 * pairs, or change one on the live index after validating the result as a whole.
 */
import type { RankingTunablesIndex } from '../store/rankingTunables.js';
import { textFieldsOf, validateRanking, type RankingSettings } from './rankingSettings.js';

export class RankingChangeError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'RankingChangeError';
  }
}

/** `fields.describe.title`, `price.scale`, `bm25.k1`, ... -> value, in a stable order. */
export function flattenRanking(settings: RankingSettings): Array<[string, string | number]> {
  const rows: Array<[string, string | number]> = [];
  for (const [field, boost] of Object.entries(settings.fields)) rows.push([`fields.${field}`, boost]);
  for (const [key, value] of Object.entries(settings.price)) rows.push([`price.${key}`, value]);
  for (const [key, value] of Object.entries(settings.recency)) rows.push([`recency.${key}`, value]);
  for (const [key, value] of Object.entries(settings.bm25)) rows.push([`bm25.${key}`, value]);
  return rows;
}

export async function showRanking(tunables: RankingTunablesIndex): Promise<{ index: string; settings?: RankingSettings; problems: string[] }> {
  const stored = await tunables.read();
  const result = validateRanking(stored.meta.ranking, stored.similarity, textFieldsOf(stored.properties));
  return { index: stored.index, problems: result.problems, ...(result.settings ? { settings: result.settings } : {}) };
}

const NUMERIC = new Set(['price.origin', 'price.scale', 'price.offset', 'price.decay', 'recency.decay', 'recency.neverSettled', 'bm25.k1', 'bm25.b']);
const TEXT = new Set(['price.function', 'recency.function', 'recency.scale', 'recency.offset']);

function parseValue(key: string, raw: string): string | number {
  if (key.startsWith('fields.') || NUMERIC.has(key)) {
    const value = raw.trim() === '' ? NaN : Number(raw);
    if (!Number.isFinite(value)) throw new RankingChangeError([`${key}: ${JSON.stringify(raw)} is not a number`]);
    return value;
  }
  if (TEXT.has(key)) return raw;
  throw new RankingChangeError([
    `unknown tunable ${JSON.stringify(key)}; use fields.<text field>, ${[...NUMERIC, ...TEXT].sort().join(', ')}`,
  ]);
}

/**
 * Changes one tunable on the live index. The whole result is validated first, so a bad value
 * never reaches the index. BM25 k1/b need the index closed for a moment (store/rankingTunables.ts).
 */
export async function setRanking(tunables: RankingTunablesIndex, key: string, raw: string): Promise<RankingSettings> {
  const value = parseValue(key, raw);
  const stored = await tunables.read();
  const ranking = structuredClone((stored.meta.ranking ?? {}) as Record<string, Record<string, unknown>>);
  const similarity: Record<string, unknown> = { ...(stored.similarity ?? {}) };
  const [group, ...rest] = key.split('.');
  const name = rest.join('.');
  if (group === 'bm25') similarity[name] = value;
  else ranking[group!] = { ...(ranking[group!] ?? {}), [name]: value };
  const result = validateRanking(ranking, similarity, textFieldsOf(stored.properties));
  if (!result.settings) throw new RankingChangeError(result.problems);
  if (group === 'bm25') {
    await tunables.writeSimilarity(stored.index, { k1: result.settings.bm25.k1, b: result.settings.bm25.b });
  } else {
    await tunables.writeRankingMeta(stored.index, { ...stored.meta, ranking });
  }
  return result.settings;
}
