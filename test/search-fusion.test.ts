import assert from 'node:assert/strict';
import { startHarness, type Harness } from './support/harness.js';
import { httpListing, mcpListing, seed } from './support/discoveryFixtures.js';
import { assertExplainMultiplies, idsOfEveryPage, rankedSearchSession } from './support/rankedSearch.js';
import type { Debug } from '../src/shapes/listing.js';

interface Result {
  id: string;
  type: string;
  payment: { amount: string };
  debug?: Debug;
}

/**
 * Fusion of the words' and the neighbours' scores on a scale of the query's own (semantic.fusion
 * normalised and rrf, search/semanticFusion.ts): what a buyer sees must hold as with the kNN
 * clause: explain's product, the read's filters on listings found by meaning, listings found only
 * by meaning, paging through the rank window and past it, and word order.
 */
describe('ranked search with semantic fusion (normalised, rrf)', () => {
  let h: Harness;
  const id: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    const specs = {
      transcribeAudio: mcpListing({ name: 'transcribe_audio', description: 'Transcribe an audio file URL.' }),
      ttsTool: mcpListing({ name: 'text_to_speech', description: 'Text to speech: turn any text into a natural spoken MP3, 40 voices.', tags: ['tts', 'voice'] }),
      readAloud: mcpListing({ name: 'readAloud', description: 'Text-to-speech in 30 languages: send text, get an MP3 read aloud.' }),
      speechHttp: httpListing({ path: 'asr', title: 'Speech to text', description: 'Upload audio, get a transcript with timestamps.', tags: ['speech-to-text'] }),
      // Found by meaning only (no word in common with the query below), cheap and expensive.
      plates: httpListing({ path: 'plates', title: 'Licence plate reader', description: 'Reads vehicle registration plates from camera frames.', tags: ['anpr'] }),
      platesPricey: httpListing({ path: 'plates-pro', title: 'ANPR camera service', description: 'Registration plate recognition for parking garages.', amount: '5000000' }),
      platesTool: mcpListing({ name: 'read_plate', description: 'Vehicle registration from a photo of the plate.' }),
      // Many listings that match the words of the paging query.
      ...Object.fromEntries(
        Array.from({ length: 14 }, (_, i) => [
          `weather${i}`,
          httpListing({ path: `weather-${i}`, title: `Weather forecast ${i}`, description: `Hourly weather forecast for region ${i}: rain, wind, temperature.`, amount: String(1000 + i * 500) }),
        ]),
      ),
      climate: httpListing({ path: 'climate', title: 'Climate normals', description: 'Thirty-year averages of temperature and precipitation per station.' }),
    };
    const ids = await seed(h, Object.values(specs));
    Object.keys(specs).forEach((key, i) => (id[key] = ids[i]!));
  });
  after(async () => h.close());

  const { set, page, search, names } = rankedSearchSession<Result>(() => h, id);
  const MEANING_ONLY = 'number recognition for cars in traffic images';

  for (const fusion of ['normalised', 'rrf'] as const) {
    describe(`semantic.fusion ${fusion}`, () => {
      before(async () => set('semantic.fusion', fusion));
      after(async () => set('semantic.fusion', 'weighted'));

      it('explain: relevance x priceBoost x recencyBoost x healthBoost x popularityBoost is the score within 1e-4', async () => {
        for (const q of ['speech to text', MEANING_ONLY, 'weather forecast', 'transcribe_audio']) {
          const results = await search(q, '&explain=1&limit=50');
          assert.ok(results.length > 0, q);
          for (const { debug } of results) assertExplainMultiplies(debug, q);
        }
      });

      it('a listing found only by meaning comes back, and only because of it (semantic.weight 0: gone)', async () => {
        assert.ok((await search(MEANING_ONLY)).some((r) => r.id === id.plates), names(await search(MEANING_ONLY)));
        const weight = String((await h.container.search.ranking.current()).semantic.weight);
        await set('semantic.weight', '0');
        try {
          assert.ok(!(await search(MEANING_ONLY)).some((r) => r.id === id.plates));
        } finally {
          await set('semantic.weight', weight);
        }
      });

      it("the read's filters hold on listings found by meaning (type, maxPrice)", async () => {
        const all = await search(MEANING_ONLY, '&limit=50');
        assert.ok(all.some((r) => r.id === id.platesPricey) && all.some((r) => r.id === id.platesTool), names(all));
        const tools = await search(MEANING_ONLY, '&type=mcp&limit=50');
        assert.ok(tools.length > 0 && tools.every((r) => r.type === 'mcp'), names(tools));
        const cheap = await search(MEANING_ONLY, '&maxPrice=10000&limit=50');
        assert.ok(cheap.some((r) => r.id === id.plates), names(cheap));
        assert.ok(cheap.every((r) => BigInt(r.payment.amount) <= 10_000n), names(cheap));
      });

      it('paging through the rank window and past it never repeats a listing and loses none', async () => {
        const window = String((await h.container.search.ranking.current()).window);
        await set('window', '5'); // a window smaller than the matches: pages cross into the tail
        try {
          const whole = (await search('weather forecast temperature', '&limit=100')).map((r) => r.id);
          assert.ok(whole.length > 10, `${whole.length} matches`);
          const seen = await idsOfEveryPage((cursor) => page('weather forecast temperature', `&limit=3${cursor}`));
          assert.equal(seen.length, new Set(seen).size, 'no listing twice');
          assert.deepEqual([...seen].sort(), [...whole].sort());
        } finally {
          await set('window', window);
        }
      });

      it('"speech to text" among MCP tools: the transcription tool first, text-to-speech tools below it', async () => {
        const results = await search('speech to text', '&type=mcp');
        assert.equal(results[0]?.id, id.transcribeAudio, names(results));
      });
    });
  }
});
