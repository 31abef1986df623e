import type { RankingSettings } from '../../src/door.js';

/**
 * Issue 10's text relevance without its additions: the typed words on the same boosted fields,
 * times the same price and recency factors, with no typo pass, synonyms, exact tool name, text
 * quality or kNN clause: the ranked query as it was before them (the ranking-cost baseline of
 * bench-search and bench-ranking-took).
 */
export function bm25Alone(settings: RankingSettings): RankingSettings {
  return {
    ...settings,
    typos: { ...settings.typos, weight: 0 },
    synonyms: { ...settings.synonyms, weight: 0 },
    semantic: { ...settings.semantic, weight: 0 },
    exactName: 0,
    stuffing: 'off',
  };
}
