/**
 * The operator's view of the ranking tunables (scripts/ranking.ts): list them as `key value`
 * pairs, or change one on the live index after validating the result as a whole.
 */
import type { RankingTunablesIndex } from '../store/elasticsearch/rankingTunables.js';
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
  rows.push(['stuffing', settings.stuffing], ['exactName', settings.exactName], ['rareWords.boost', settings.rareWords.boost], ['rareWords.maxListings', settings.rareWords.maxListings], ['window', settings.window], ['typos.weight', settings.typos.weight], ['typos.fuzziness', settings.typos.fuzziness], ['typos.spelling', settings.typos.spelling], ['synonyms.weight', settings.synonyms.weight], ['synonyms.phraseBoost', settings.synonyms.phraseBoost]);
  settings.synonyms.groups.forEach((group, i) => rows.push([`synonyms.groups.${i}`, group.join(', ')]));
  for (const [key, value] of Object.entries(settings.semantic)) rows.push([`semantic.${key}`, value]);
  for (const [key, value] of Object.entries(settings.direction)) rows.push([`direction.${key}`, value]);
  for (const [key, value] of Object.entries(settings.price)) rows.push([`price.${key}`, value]);
  for (const [key, value] of Object.entries(settings.recency)) rows.push([`recency.${key}`, value]);
  for (const [key, value] of Object.entries(settings.health)) rows.push([`health.${key}`, value]);
  for (const [key, value] of Object.entries(settings.popularity)) rows.push([`popularity.${key}`, value]);
  for (const [key, value] of Object.entries(settings.tasks)) rows.push([`tasks.${key}`, value]);
  for (const [key, value] of Object.entries(settings.outcomes)) rows.push([`outcomes.${key}`, value]);
  for (const [key, value] of Object.entries(settings.bm25)) rows.push([`bm25.${key}`, value]);
  return rows;
}

export async function showRanking(tunables: RankingTunablesIndex): Promise<{ index: string; settings?: RankingSettings; problems: string[] }> {
  const stored = await tunables.read();
  const result = validateRanking(stored.meta.ranking, stored.similarity, textFieldsOf(stored.properties));
  return { index: stored.index, problems: result.problems, ...(result.settings ? { settings: result.settings } : {}) };
}

const NUMERIC = new Set([
  'price.origin', 'price.scale', 'price.offset', 'price.decay', 'price.floor',
  'recency.decay', 'recency.floor', 'recency.neverSettled',
  'typos.weight', 'synonyms.weight', 'synonyms.phraseBoost', 'exactName', 'rareWords.boost', 'rareWords.maxListings', 'window', 'bm25.k1', 'bm25.b',
  'semantic.weight', 'semantic.k', 'semantic.numCandidates', 'semantic.minSimilarity', 'semantic.rankConstant', 'semantic.preFilterMaxShare',
  'health.threshold', 'health.floor', 'direction.phraseBoost', 'direction.opposite',
  'popularity.weight', 'popularity.saturation',
  'tasks.candidates', 'tasks.head', 'tasks.whole',
  'outcomes.weight', 'outcomes.k', 'outcomes.minSimilarity', 'outcomes.minPayers', 'outcomes.saturation', 'outcomes.halfLifeDays',
]);
const TEXT = new Set(['stuffing', 'price.function', 'recency.function', 'recency.scale', 'recency.offset', 'typos.fuzziness', 'typos.spelling', 'semantic.fusion', 'direction.field']);

function parseValue(key: string, raw: string): string | number {
  if (key.startsWith('fields.') || NUMERIC.has(key)) {
    const value = raw.trim() === '' ? NaN : Number(raw);
    if (!Number.isFinite(value)) throw new RankingChangeError([`${key}: ${JSON.stringify(raw)} is not a number`]);
    return value;
  }
  if (TEXT.has(key)) return raw;
  throw new RankingChangeError([
    `unknown tunable ${JSON.stringify(key)}; use fields.<text field>, ${[...NUMERIC, ...TEXT].sort().join(', ')} (synonym groups: the synonyms command)`,
  ]);
}

/**
 * Changes one tunable on the live index. The whole result is validated first, so a bad value
 * never reaches the index. BM25 k1/b need the index closed for a moment (see writeSimilarity).
 */
export async function setRanking(tunables: RankingTunablesIndex, key: string, raw: string): Promise<RankingSettings> {
  const value = parseValue(key, raw);
  const [group, ...rest] = key.split('.');
  const name = rest.join('.');
  return changeRanking(tunables, group === 'bm25', (ranking, similarity) => {
    if (group === 'bm25') similarity[name] = value;
    else if (name === '') (ranking as Record<string, unknown>)[group!] = value;
    else ranking[group!] = { ...(ranking[group!] ?? {}), [name]: value };
  });
}

/**
 * Adds a synonym group (`"speech to text, transcription"`) or removes one by its number in the
 * listing; the whole result is validated like any other change.
 */
export async function changeSynonyms(tunables: RankingTunablesIndex, change: { add: string } | { remove: number }): Promise<RankingSettings> {
  return changeRanking(tunables, false, (ranking) => {
    const synonyms = { weight: 0, groups: [] as unknown[], ...(ranking.synonyms ?? {}) };
    const groups = Array.isArray(synonyms.groups) ? [...synonyms.groups] : [];
    if ('add' in change) groups.push(change.add.split(',').map((phrase) => phrase.trim()));
    else if (change.remove >= 0 && change.remove < groups.length) groups.splice(change.remove, 1);
    else throw new RankingChangeError([`synonyms.groups.${change.remove}: no such group (there are ${groups.length})`]);
    ranking.synonyms = { ...synonyms, groups };
  });
}

async function changeRanking(
  tunables: RankingTunablesIndex,
  similarityChange: boolean,
  mutate: (ranking: Record<string, Record<string, unknown>>, similarity: Record<string, unknown>) => void,
): Promise<RankingSettings> {
  const stored = await tunables.read();
  const ranking = structuredClone((stored.meta.ranking ?? {}) as Record<string, Record<string, unknown>>);
  const similarity: Record<string, unknown> = { ...(stored.similarity ?? {}) };
  mutate(ranking, similarity);
  const result = validateRanking(ranking, similarity, textFieldsOf(stored.properties));
  if (!result.settings) throw new RankingChangeError(result.problems);
  if (similarityChange) {
    await tunables.writeSimilarity(stored.index, { k1: result.settings.bm25.k1, b: result.settings.bm25.b });
  } else {
    await tunables.writeRankingMeta(stored.index, { ...stored.meta, ranking });
  }
  return result.settings;
}
