import assert from 'node:assert/strict';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { buildContainer } from '../src/container.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpListing, mcpListing, seed } from './support/discoveryFixtures.js';
import { assertExplainMultiplies, idsOfEveryPage } from './support/rankedSearch.js';
import type { Debug } from '../src/shapes/listing.js';

interface Result {
  id: string;
  debug?: Debug;
}
type Page = { results: Result[]; nextCursor?: string };

const TTL_MS = 4000;
/** No word in common with the plate readers below: found by meaning alone. */
const MEANING_ONLY = 'number recognition for cars in traffic images';

/**
 * The neighbour cache (src/search/neighbourCache.ts): with it on (as shipped), a ranked search's
 * neighbours are found by a kNN search of their own and kept for NEIGHBOUR_CACHE_MS. What a buyer
 * sees must be what the kNN clause gives (the cache off), repeats and later pages must send no
 * kNN search, a listing removed meanwhile must never show, and a new one must be found by
 * meaning once the entry is older than its lifetime.
 */
describe('ranked search with the neighbour cache', () => {
  let h: Harness;
  /** The same catalog read by a gateway with the cache off: the kNN clause in every search. */
  let clause: Harness['app'];
  const id: Record<string, string> = {};

  before(async () => {
    h = await startHarness({ NEIGHBOUR_CACHE_MS: String(TTL_MS) });
    const off = { ...h.config, neighbourCacheMs: 0 };
    clause = createApp({ config: off, logger: h.logger, elasticsearch: h.elasticsearch, redis: h.redis, routers: buildContainer(off, h.logger, { elasticsearch: h.elasticsearch, redis: h.redis }).routers });
    const specs = {
      plates: httpListing({ path: 'plates', title: 'Licence plate reader', description: 'Reads vehicle registration plates from camera frames.', tags: ['anpr'] }),
      platesPricey: httpListing({ path: 'plates-pro', title: 'ANPR camera service', description: 'Registration plate recognition for parking garages.', amount: '5000000' }),
      platesTool: mcpListing({ name: 'read_plate', description: 'Vehicle registration from a photo of the plate.' }),
      transcribe: mcpListing({ name: 'transcribe_audio', description: 'Transcribe an audio file URL.' }),
      tts: mcpListing({ name: 'text_to_speech', description: 'Text to speech: turn any text into a natural spoken MP3, 40 voices.', tags: ['tts', 'voice'] }),
      asr: httpListing({ path: 'asr', title: 'Speech to text', description: 'Upload audio, get a transcript with timestamps.', tags: ['speech-to-text'] }),
      ...Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [
          `weather${i}`,
          httpListing({ path: `weather-${i}`, title: `Weather forecast ${i}`, description: `Hourly weather forecast for region ${i}: rain, wind, temperature.`, amount: String(1000 + i * 500) }),
        ]),
      ),
    };
    const ids = await seed(h, Object.values(specs));
    Object.keys(specs).forEach((key, i) => (id[key] = ids[i]!));
  });
  after(async () => h.close());

  const page = async (app: Harness['app'], q: string, extra = ''): Promise<Page> => (await request(app).get(`/discovery/search?q=${encodeURIComponent(q)}${extra}`).expect(200)).body as Page;
  /** kNN searches answered from memory (hit or joined) and sent, so far. */
  const kept = async () => {
    const text = (await request(h.app).get('/metrics').expect(200)).text;
    const count = (outcome: string) => Number(new RegExp(`^catalog_neighbour_cache_total\\{outcome="${outcome}"\\} (\\S+)`, 'm').exec(text)?.[1] ?? 0);
    return { kept: count('hit') + count('joined'), sent: count('miss') };
  };

  it('ranks as the kNN clause does, with explain scores that multiply out', async () => {
    for (const q of [MEANING_ONLY, 'speech to text', 'weather forecast', 'transcribe_audio']) {
      for (const extra of ['', '&type=mcp', '&maxPrice=10000']) {
        const cached = await page(h.app, q, `${extra}&explain=1&limit=50`);
        const withClause = await page(clause, q, `${extra}&explain=1&limit=50`);
        assert.deepEqual(cached.results.map((r) => r.id), withClause.results.map((r) => r.id), `${q}${extra}`);
        cached.results.forEach((r, i) => {
          assertExplainMultiplies(r.debug, q);
          const score = withClause.results[i]!.debug!.score;
          assert.ok(Math.abs(r.debug!.score - score) <= 1e-4 * Math.max(1, score), `${q}${extra}: ${r.debug!.score} against ${score}`);
        });
      }
    }
  });

  it('a repeat and the later pages of a search send no kNN search; every page, no listing twice', async () => {
    const first = await page(h.app, 'weather forecast temperature', '&limit=3');
    const before = await kept();
    const again = await page(h.app, 'weather forecast temperature', '&limit=3');
    assert.deepEqual(again.results, first.results);
    const seen = await idsOfEveryPage(async (cursor) => page(h.app, 'weather forecast temperature', `&limit=3${cursor}`));
    const after = await kept();
    assert.equal(after.sent, before.sent, 'no kNN search sent');
    assert.ok(after.kept - before.kept >= 1 + Math.ceil(seen.length / 3), `${after.kept - before.kept} kept answers`);
    assert.equal(seen.length, new Set(seen).size, 'no listing twice');
    const whole = (await page(clause, 'weather forecast temperature', '&limit=100')).results.map((r) => r.id);
    assert.deepEqual([...seen].sort(), [...whole].sort());
  });

  it('another filter is another kNN search', async () => {
    await page(h.app, MEANING_ONLY, '&type=http');
    const before = await kept();
    await page(h.app, MEANING_ONLY, '&type=mcp&maxPrice=20000');
    assert.equal((await kept()).sent, before.sent + 1);
  });

  it('a listing removed while its neighbours are kept is never shown', async () => {
    const [gone] = await seed(h, [httpListing({ path: 'plates-gone', title: 'Plate OCR', description: 'Optical reading of vehicle registration plates.' })]);
    const found = await waitFor(async () => (await page(h.app, MEANING_ONLY, '&limit=50')).results.some((r) => r.id === gone), TTL_MS * 3);
    assert.ok(found);
    await h.container.catalog.writer.remove(gone!, 'operator');
    await waitFor(async () => !(await page(h.app, MEANING_ONLY, '&limit=50')).results.some((r) => r.id === gone) || undefined, TTL_MS / 2);
  });

  it('a listing published meanwhile is found by meaning once the kept neighbours are older than NEIGHBOUR_CACHE_MS', async () => {
    // No word in common with the listing added below.
    const q = 'read the characters on number plates in parking photos';
    const started = Date.now();
    await page(h.app, q, '&limit=50');
    const [added] = await seed(h, [httpListing({ path: 'registrations', title: 'Registration recognition', description: 'Recognises vehicle registrations from garage camera stills.' })]);
    const direct = (await page(clause, q, '&limit=50')).results.some((r) => r.id === added);
    assert.ok(direct, 'the kNN clause finds it at once');
    if (Date.now() - started < TTL_MS - 500) assert.ok(!(await page(h.app, q, '&limit=50')).results.some((r) => r.id === added), 'kept neighbours are the ones found first');
    await waitFor(async () => (await page(h.app, q, '&limit=50')).results.some((r) => r.id === added) || undefined, TTL_MS + 3000);
  });
});
