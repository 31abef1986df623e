import assert from 'node:assert/strict';
import request from 'supertest';
import { startHarness, type Harness } from './support/harness.js';
import { seedUnembedded } from './support/discoveryFixtures.js';
import { generateListings } from '../lab/lib/listingGenerator.js';
import { toolInput, toolMark } from '../lab/soak/soakTraffic.js';

/**
 * A query of words only a few listings have names something (a brand, a code, a made-up word) and
 * must find those listings first (search/typoPass.ts, `rareWords`). The model reads such a word as
 * word pieces with no meaning, and a neighbour in meaning gets most of `semantic.weight` for being
 * among the k nearest at all. The soak's catalog showed it: a seller's 100 tools of one template,
 * each with its own made-up word, among generated listings; searching a tool's word ranked 1 to 7
 * of the 100 below the first place, up to 20th, under its siblings and terse listings near the
 * word's embedding (without `rareWords`, measured three times).
 */
describe('search: a word only one listing has', () => {
  let h: Harness;
  const TOOLS = 100;
  const ids: string[] = [];

  before(async () => {
    // Every worker but the embedding one: the test embeds the catalog itself, once, before searching.
    h = await startHarness({}, { workers: false });
    for (const worker of h.container.workers) if (worker !== h.container.embeddings) worker.start();
    const tools = Array.from({ length: TOOLS }, (_, k) => toolInput('soak.example', k, 1));
    ids.push(...(await seedUnembedded(h, [...tools, ...generateListings(300, 7)])).slice(0, TOOLS));
    assert.ok((await h.container.embeddings.catchUp()) >= 400, 'the worker embedded nothing: is the model under .cache/models? (npm run services -- model)');
    await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
  });
  after(async () => h.close());

  it("finds that listing first for each of 100 such words, above its siblings and listings only near the word's meaningless embedding", async () => {
    const notFirst: string[] = [];
    let withNeighbours = 0;
    for (let k = 0; k < TOOLS; k++) {
      const results = (await request(h.app).get(`/discovery/search?q=${toolMark(k)}`).expect(200)).body.results as Array<{ id: string }>;
      if (results[0]?.id !== ids[k]) notFirst.push(`${toolMark(k)}: rank ${results.findIndex((r) => r.id === ids[k])}`);
      if (results.length > 1) withNeighbours += 1;
    }
    assert.deepEqual(notFirst, []);
    assert.ok(withNeighbours >= TOOLS / 5, `only ${withNeighbours} of the words had neighbours in meaning: the situation under test is gone`);
  });
});
