import assert from 'node:assert/strict';
import request from 'supertest';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { daysAgo, httpListing, mcpListing, seed } from './support/discoveryFixtures.js';
import { changeSynonyms, setRanking } from '../src/search/rankingCommand.js';
import { ListingVocabulary } from '../src/store/elasticsearch/listingVocabulary.js';
import { editBudget } from '../src/search/typoPass.js';
import { RankingTunablesIndex } from '../src/store/elasticsearch/rankingTunables.js';

interface Result {
  id: string;
  debug?: { score: number; relevance: number; priceBoost: number; recencyBoost: number; healthBoost: number };
}

/**
 * What a buyer typing ordinary words sees (docs/catalog-reads.md, "Ranking"): misspellings,
 * inflections, the seller's other words, tool names; price and activity reorder comparable
 * listings but never lift an irrelevant one; stuffing does not win.
 */
describe('ranked search finds the right listing for the words people type', () => {
  let h: Harness;
  const id: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    const specs = {
      weather: httpListing({ path: 'w1', title: 'Weather forecast', description: 'Hourly and daily weather forecasts for any city.', tags: ['weather', 'forecast'], amount: '2000' }),
      translate: httpListing({ path: 't1', title: 'Translate text', description: 'Translate documents between 100 languages.', tags: ['nlp'] }),
      transcription: httpListing({ path: 's1', title: 'Audio transcription', description: 'Turns recorded audio files into accurate written transcripts.', tags: ['audio'] }),
      sms: httpListing({ path: 'm1', title: 'SMS gateway', description: 'Send SMS to any phone number worldwide.', tags: ['messaging'] }),
      widget: httpListing({ path: 'q1', title: 'Quantum widget', description: 'Configures a quantum widget.' }),
      forecastTool: mcpListing({ name: 'get_weather_forecast', description: 'Daily forecast for a place.', tags: ['weather'] }),
      // Relevant but expensive and never settled, against an irrelevant cheap, busy listing.
      ocrDear: httpListing({ path: 'o1', title: 'OCR: extract text from scanned images', description: 'Optical character recognition for scanned images and photos.', amount: '5000000' }),
      lampCheap: httpListing({
        path: 'l1', title: 'Desk lamp store', description: 'Buy desk lamps; our catalog images are scanned weekly.', amount: '100', lastSettled: daysAgo(0.01),
      }),
      // Stuffed the way catalog spam is: every popular word in the title, the description repeating
      // them, tags repeated; cheaper and busier than the genuine listing.
      stuffed: httpListing({
        path: 'x1',
        title: 'Weather forecast crypto price stock quote translation SMS OCR PDF email best cheap API',
        description: 'weather forecast crypto bitcoin stocks translate sms ocr pdf email '.repeat(6),
        tags: ['weather', 'Weather', 'WEATHER', 'forecast', 'forecast', 'crypto', 'stocks', 'sms', 'translation', 'ocr'],
        amount: '100',
        lastSettled: daysAgo(0.01),
      }),
    };
    const ids = await seed(h, Object.values(specs));
    Object.keys(specs).forEach((key, i) => (id[key] = ids[i]!));
  });
  after(async () => h.close());

  const search = async (q: string, extra = ''): Promise<Result[]> =>
    (await request(h.app).get(`/discovery/search?q=${encodeURIComponent(q)}${extra}`).expect(200)).body.results;
  const first = async (q: string, extra = '') => (await search(q, extra))[0]?.id;

  it('a misspelled word finds the listing ("wether forcast")', async () => {
    const results = await search('wether forcast', '&type=http');
    assert.ok(results.slice(0, 2).some((r) => r.id === id.weather), 'the weather forecast listing is among the first two');
  });

  it('the typo pass is sent only for a query with a word no listing has (inflections are known words)', async () => {
    const vocabulary = new ListingVocabulary(h.elasticsearch, h.config.listingsAlias);
    const counts = await vocabulary.listingCounts('weather forecasts');
    assert.deepEqual([...counts.keys()].sort(), ['forecast', 'weather']);
    assert.ok([...counts.values()].every((count) => count > 0));
    assert.equal((await vocabulary.listingCounts('wether forecast')).get('wether'), 0);
  });

  it("a misspelled word's closest catalog word, at the typed word's place (what semantic retrieval reads)", async () => {
    const vocabulary = new ListingVocabulary(h.elasticsearch, h.config.listingsAlias);
    assert.deepEqual(await vocabulary.closestKnownWords('the wether forcast', editBudget('AUTO:5,9')), [
      { offset: 4, length: 6, replacement: 'weather' },
      { offset: 11, length: 7, replacement: 'forecast' },
    ]);
    // One edit for words of 5 to 8 letters (a transposition is one), none below 5, two from 9.
    assert.deepEqual(await vocabulary.closestKnownWords('waether', editBudget('AUTO:5,9')), [{ offset: 0, length: 7, replacement: 'weather' }]);
    assert.deepEqual(await vocabulary.closestKnownWords('wehtre', editBudget('AUTO:5,9')), [], 'two edits in a 6-letter word are another word');
    assert.deepEqual(await vocabulary.closestKnownWords('forcast', editBudget('AUTO:5,9')), [{ offset: 0, length: 7, replacement: 'forecast' }]);
    assert.deepEqual(await vocabulary.closestKnownWords('tarnslaet', editBudget('AUTO:5,9')), [{ offset: 0, length: 9, replacement: 'translate' }]);
    assert.deepEqual(await vocabulary.closestKnownWords('weather forecasts', editBudget('AUTO:5,9')), [], 'known words (inflections included) are left alone');
  });

  it('an inflected word finds the listing ("translating" -> "Translate text")', async () => {
    assert.equal(await first('translating documents'), id.translate);
  });

  it("the buyer's words find the seller's: speech to text -> transcription, text message -> SMS", async () => {
    assert.equal(await first('speech to text'), id.transcription);
    assert.equal(await first('send a text message'), id.sms);
  });

  it('a tool name as typed finds the tool first (get_weather_forecast)', async () => {
    assert.equal(await first('get_weather_forecast'), id.forecastTool);
    assert.equal(await first('getWeatherForecast', '&type=mcp'), id.forecastTool);
  });

  it('a relevant expensive, never-settled listing outranks an irrelevant cheap, recently settled one', async () => {
    const results = await search('extract text from scanned images', '&explain=1');
    const rank = (key: string) => results.findIndex((r) => r.id === id[key]);
    assert.equal(rank('ocrDear'), 0, JSON.stringify(results.map((r) => [r.id, r.debug])));
    if (rank('lampCheap') >= 0) assert.ok(rank('lampCheap') > rank('ocrDear'));
    for (const r of results) {
      const d = r.debug!;
      assert.ok(Math.abs(d.relevance * d.priceBoost * d.recencyBoost * d.healthBoost - d.score) <= 1e-4 * d.score, 'explain still multiplies exactly');
    }
  });

  it('a keyword-stuffed listing does not win over the genuine one, and its repeated tags are stored once', async () => {
    assert.equal(await first('weather forecast', '&type=http'), id.weather);
    const stuffed = (await request(h.app).get(`/discovery/resources/${id.stuffed}`).expect(200)).body;
    assert.deepEqual(stuffed.describe.tags, ['weather', 'forecast', 'crypto', 'stocks', 'sms', 'translation', 'ocr']);
  });

  it('a synonym group added with the ranking command applies within 10 s, without a restart', async () => {
    assert.notEqual(await first('zorblax configuration'), id.widget, 'before: nothing says zorblax');
    await changeSynonyms(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), { add: 'zorblax, quantum widget' });
    await waitFor(async () => (await first('zorblax configuration')) === id.widget, 10_000, 200);
  });
});

/**
 * How the words alone are matched (semantic retrieval off, so an embedding cannot hide what the
 * text query does): a phrase of the synonym list keeps its direction.
 */
describe('ranked search: synonym phrases, on the words alone', () => {
  let h: Harness;
  const id: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    await setRanking(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), 'semantic.weight', '0');
    await h.container.search.ranking.refresh();
    const specs = {
      ocr: httpListing({ path: 'o1', title: 'OCR API', description: 'Optical character recognition for photos and scans.', tags: ['ocr'] }),
      // "images from a text prompt": the words of "image to text" in the other direction, with
      // stop words where the phrase has one.
      imageGen: httpListing({ path: 'g1', title: 'Image generator', description: 'Generates images from a text prompt.', tags: ['ai'] }),
      // A misspelled word against a listing that has only the other, correctly typed word.
      receipts: httpListing({ path: 'r1', title: 'Receipt reader', description: 'Reads totals, taxes and line items from photographed receipts.' }),
      urlScanner: httpListing({
        path: 'u1', title: 'Link checker', description: 'A scanner for phishing links, malware downloads, suspicious redirects, look-alike domains and credential harvesting pages.',
      }),
      // Words a prefix-stripping stemmer turns into other words: decode -> code, remove -> move, review -> view.
      qrReader: mcpListing({ name: 'decode_qr', description: 'Decode a QR image back into its link.' }),
      bgRemover: httpListing({ path: 'b1', title: 'Background remover', description: 'Removes the background of a product photo.' }),
      reviews: httpListing({ path: 'v1', title: 'Review summaries', description: 'Summarises the reviews of a hotel.' }),
    };
    const ids = await seed(h, Object.values(specs));
    Object.keys(specs).forEach((key, i) => (id[key] = ids[i]!));
  });
  after(async () => h.close());

  const search = async (q: string): Promise<string[]> =>
    ((await request(h.app).get(`/discovery/search?q=${encodeURIComponent(q)}`).expect(200)).body.results as Result[]).map((r) => r.id);

  it('a phrase with a stop word keeps its direction: "image to text" finds OCR, never "images from a text prompt"', async () => {
    const results = await search('image to text');
    assert.equal(results[0], id.ocr);
    assert.ok(!results.includes(id.imageGen!), 'the image generator does not match');
  });

  it('a word is not stemmed into another by stripping its prefix: decode is no code, remove no move, review no view', async () => {
    assert.deepEqual(await search('code'), [], 'decode_qr decodes, it says nothing of code');
    assert.deepEqual(await search('move'), []);
    assert.deepEqual(await search('view'), []);
    // Their own inflections still find them.
    assert.equal((await search('decoding'))[0], id.qrReader);
    assert.equal((await search('removing backgrounds'))[0], id.bgRemover);
    assert.equal((await search('reviewed'))[0], id.reviews);
  });

  it('a misspelled word weighs as the word the catalog spells: "reciept scanner" finds the receipt reader, not the link checker', async () => {
    // "scanner" is typed right, and only the link checker has it (once, in a long description);
    // "reciept" is the receipt reader's word misspelled. Read as the catalog spells it, the
    // buyer's subject wins; read as typed, it matched only through the typo pass, at its lower weight.
    const tunables = new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias);
    assert.equal((await search('reciept scanner'))[0], id.receipts);
    await setRanking(tunables, 'typos.spelling', 'typed');
    await h.container.search.ranking.refresh();
    try {
      assert.equal((await search('reciept scanner'))[0], id.urlScanner, 'as typed, the one correctly typed word decides');
    } finally {
      await setRanking(tunables, 'typos.spelling', 'catalog');
      await h.container.search.ranking.refresh();
    }
  });
});

/**
 * Spam that the repetition measure alone let through (issue 23, eval/tuning2): a list of every
 * capability a seller wants to be found for, which repeats no word, and a title and description
 * repeating a two-letter word. Both are cheaper and busier than the genuine listing.
 */
describe('ranked search: keyword lists and two-letter stuffing do not buy the first place', () => {
  let h: Harness;
  const id: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    const specs = {
      transcription: httpListing({ path: 'a1', title: 'Audio transcription', description: 'Turns recorded audio files into accurate written transcripts, with a timestamp for every word.', amount: '2000' }),
      ipLocation: httpListing({ path: 'a2', title: 'IP geolocation', description: 'Country, city and network owner of an IPv4 or IPv6 address.', amount: '2000' }),
      everything: httpListing({
        path: 'a3',
        title: 'Translation speech to text text to speech OCR chatgpt embeddings',
        description: 'translation speech to text text to speech image generation ocr chatgpt embeddings summarize sentiment web search scraping weather forecast geocode ip lookup everything tool cheapest',
        amount: '100',
        lastSettled: daysAgo(0.01),
      }),
      ipStuffed: httpListing({
        path: 'a4',
        title: 'ip geolocation ip lookup ip location ip to country',
        description: 'ip geolocation ip lookup ip address location ip to country ip to city ip api free vpn detect proxy detect',
        amount: '100',
        lastSettled: daysAgo(0.01),
      }),
    };
    const ids = await seed(h, Object.values(specs));
    Object.keys(specs).forEach((key, i) => (id[key] = ids[i]!));
  });
  after(async () => h.close());

  const ranked = async (q: string) => ((await request(h.app).get(`/discovery/search?q=${encodeURIComponent(q)}`).expect(200)).body.results as Result[]).map((r) => r.id);

  it('a list of every capability comes after the listing that does the one asked for', async () => {
    const results = await ranked('speech to text');
    assert.equal(results[0], id.transcription, JSON.stringify(results));
    assert.ok(results.includes(id.everything!), 'the list is still found, lower');
  });

  it('repeating a two-letter word ("ip ip ip") does not win', async () => {
    const results = await ranked('ip geolocation');
    assert.equal(results[0], id.ipLocation, JSON.stringify(results));
    assert.ok(results.includes(id.ipStuffed!), 'the stuffed listing is still found, lower');
  });
});
