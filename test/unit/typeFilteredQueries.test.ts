import assert from 'node:assert/strict';
import { typeFilteredQueries, type JudgedQuery, type JudgedSet } from '../../lab/lib/judgedSet.js';

const query = (id: string, judgments: Record<string, number>, extra: Partial<JudgedQuery> = {}): JudgedQuery => ({ id, q: id, categories: [], intent: '', judgments, ...extra });
const setOf = (queries: JudgedQuery[]): JudgedSet => ({ referenceTime: new Date(0), entries: [], spam: new Set(), queries });

/** The filtered queries of bench filtered-relevance (lab/lib/judgedSet.ts): judgments restricted to the type the filter keeps. */
describe('unit: type-filtered judged queries (lab/lib/judgedSet.ts)', () => {
  it('an untyped query is sent once per type with a relevant listing, judged only on listings of that type', () => {
    const out = typeFilteredQueries(setOf([query('weather', { 'https://a.example/w': 3, 'mcp://m.example/get_weather': 2, 'https://b.example/x': 1 })]));
    assert.deepEqual(
      out.map((q) => [q.id, q.type, q.judgments]),
      [
        ['weather~mcp', 'mcp', { 'mcp://m.example/get_weather': 2 }],
        ['weather~http', 'http', { 'https://a.example/w': 3, 'https://b.example/x': 1 }],
      ],
    );
  });
  it('a type with only related (grade 1) listings is not sent; a typed query keeps its id and its type only; task queries are left out', () => {
    const out = typeFilteredQueries(
      setOf([
        query('ocr', { 'https://a.example/ocr': 2, 'mcp://m.example/ocr': 1 }),
        query('tool', { 'mcp://m.example/t': 3, 'https://a.example/t': 3 }, { type: 'mcp' }),
        query('task', { 'https://a.example/w': 3 }, { needs: [['https://a.example/w']] }),
      ]),
    );
    assert.deepEqual(out.map((q) => [q.id, q.type, Object.keys(q.judgments)]), [
      ['ocr~http', 'http', ['https://a.example/ocr']],
      ['tool', 'mcp', ['mcp://m.example/t']],
    ]);
  });
});
