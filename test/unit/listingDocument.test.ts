import assert from 'node:assert/strict';
import { buildListingDocument, normalizeSignals } from '../../src/catalog/document.js';
import { toListing, publicSignals } from '../../src/catalog/listing.js';
import { checkListingInput } from '../../src/catalog/validation.js';
import { identifierWords, listingKeywords, textQuality } from '../../src/catalog/keywords.js';
import { keptFromStored, trafficMayRewrite, type ListingDocument } from '../../src/store/listingDocument.js';
import { EMPTY_SIGNALS } from '../../src/shapes/listing.js';
import { httpInput, mcpInput } from '../support/listings.js';

const NOW = new Date('2026-11-26T10:00:00.000Z');

describe('unit: the stored listing document', () => {
  it('an HTTP listing: canonical resource, GET by default, host, derived words, CAIP-2 network, one clock', () => {
    const doc = buildListingDocument(httpInput({ resource: 'https://API.Weather.example/forecast/:day?units=si', payment: { ...httpInput().payment, network: 'base-sepolia' } }), { source: 'publish' }, NOW);
    assert.equal(doc.resource, 'https://api.weather.example/forecast/{day}');
    assert.equal(doc.canonicalKey, 'GET https://api.weather.example/forecast/{day}');
    assert.equal(doc.method, 'GET');
    assert.equal(doc.host, 'api.weather.example');
    assert.equal(doc.payment.network, 'eip155:84532');
    assert.equal(doc.keywords, 'lat lng forecast day');
    assert.equal(doc.firstSeen, NOW.toISOString());
    assert.equal(doc.lastSeen, NOW.toISOString());
    assert.equal(doc.updatedAt, NOW.toISOString());
    assert.equal(doc.removed, false);
  });

  it('the method is stored upper case and is part of the identity', () => {
    const post = buildListingDocument(httpInput({ method: 'post' }), { source: 'publish' }, NOW);
    assert.equal(post.method, 'POST');
    assert.notEqual(post.id, buildListingDocument(httpInput(), { source: 'publish' }, NOW).id);
  });

  it('an MCP listing: the server URI plus the tool name, words of the name and inputs, tags once each', () => {
    const doc = buildListingDocument(mcpInput({ resource: 'mcp://Tools.example', tags: ['Translation', 'translation', 'nlp'] }), { source: 'publish', owner: 'tok_1' }, NOW);
    assert.equal(doc.resource, 'mcp://tools.example/translate_text');
    assert.equal(doc.canonicalKey, 'MCP mcp://tools.example translate_text');
    assert.equal(doc.keywords, 'translate text target language');
    assert.deepEqual(doc.tags, ['Translation', 'nlp'], 'first spelling kept: repeating a tag buys nothing');
    assert.equal(doc.owner, 'tok_1');
    assert.equal(doc.method, undefined);
  });

  it('seenAt (an import or a sighting) dates firstSeen and lastSeen; updatedAt is the write', () => {
    const seenAt = new Date('2026-01-01T00:00:00Z');
    const doc = buildListingDocument(httpInput(), { source: 'import', seenAt }, NOW);
    assert.equal(doc.firstSeen, seenAt.toISOString());
    assert.equal(doc.updatedAt, NOW.toISOString());
  });

  it('a checked listing is stored with the identity of its check', () => {
    const checked = checkListingInput(httpInput({ resource: 'https://API.weather.example:443/forecast' }));
    assert.ok(checked.ok);
    assert.equal(buildListingDocument(checked.listing, { source: 'publish' }, NOW).id, buildListingDocument(httpInput(), { source: 'publish' }, NOW).id);
  });

  it('imported signals: null and absent alike are "never settled"; dates normalised to ISO', () => {
    assert.deepEqual(normalizeSignals(undefined), EMPTY_SIGNALS);
    assert.deepEqual(normalizeSignals({ lastSettled: null, settleCount7d: null }), EMPTY_SIGNALS);
    assert.deepEqual(normalizeSignals({ lastSettled: '2026-11-20T13:04:54+02:00', settleCount7d: 4, rejectionRate7d: 0.25, medianSettledAmount7d: '7' }), {
      settleCount7d: 4, rejectionRate7d: 0.25, lastSettled: '2026-11-20T11:04:54.000Z', medianSettledAmount7d: '7',
    });
  });

  it('describe keeps only declared members (no undefined reaches the store)', () => {
    const doc = buildListingDocument(httpInput({ describe: { title: 'T', tags: ['a', 'A'] } }), { source: 'publish' }, NOW);
    assert.deepEqual(doc.describe, { title: 'T', tags: ['a'] });
    assert.equal('describe' in buildListingDocument(httpInput({ describe: undefined }), { source: 'publish' }, NOW), false);
  });
});

describe('unit: the listing response (toListing)', () => {
  const stored = (doc: Partial<ListingDocument> = {}) => ({ ...buildListingDocument(httpInput(), { source: 'publish', owner: 'tok_secret' }, NOW), ...doc });

  it('internal fields never leave the service', () => {
    const listing = toListing({ ...stored(), embedding: [0.1], embeddedTextHash: 'h', removedReason: 'stale' });
    for (const internal of ['canonicalKey', 'owner', 'source', 'firstSeen', 'lastSeen', 'updatedAt', 'removed', 'removedReason', 'keywords', 'textQuality', 'host', 'embedding', 'embeddedTextHash', 'method']) {
      assert.equal(internal in listing, false, internal);
    }
    assert.deepEqual(Object.keys(listing), ['id', 'type', 'resource', 'payment', 'describe', 'signals', 'provenance']);
  });

  it('fields the write path cleared with null are absent, not null', () => {
    const listing = toListing(stored({ payment: { ...httpInput().payment, payTo: null as never, pricing: null as never }, describe: { title: null as never, description: 'D' } }));
    assert.equal('payTo' in listing.payment, false);
    assert.equal('pricing' in listing.payment, false);
    assert.deepEqual((listing as { describe: unknown }).describe, { description: 'D' });
  });

  it('amounts are strings even when Elasticsearch returns a number', () => {
    const listing = toListing(stored({ payment: { ...httpInput().payment, amount: 10000 as never }, signals: { ...EMPTY_SIGNALS, medianSettledAmount7d: 12 as never } }));
    assert.equal(listing.payment.amount, '10000');
    assert.equal(listing.signals.medianSettledAmount7d, '12');
  });

  it('MCP: the documented key order, defaults for a document missing members, no empty tags', () => {
    const doc = buildListingDocument(mcpInput({ tags: [] }), { source: 'publish' }, NOW);
    assert.deepEqual(Object.keys(toListing(doc)), ['id', 'type', 'resource', 'name', 'description', 'inputSchema', 'outputSchema', 'payment', 'signals', 'provenance']);
    const bare = toListing({ ...doc, name: undefined, description: undefined, inputSchema: undefined, outputSchema: undefined });
    assert.deepEqual([bare.type === 'mcp' && bare.name, bare.type === 'mcp' && bare.description, bare.type === 'mcp' && bare.inputSchema], ['', '', { type: 'object' }]);
  });

  it('health: absent until the listing was checked; a check without success has a null latency', () => {
    assert.equal('health' in publicSignals({ settleCount7d: 1 }), false);
    assert.deepEqual(publicSignals({ health: { uptime7d: 0, lastChecked: '2026-11-26T00:00:00Z' } as never }).health, { uptime7d: 0, latencyP50Ms: null, lastChecked: '2026-11-26T00:00:00Z' });
    assert.deepEqual(publicSignals(undefined), EMPTY_SIGNALS);
  });
});

describe('unit: upserts of an existing listing', () => {
  const fresh = buildListingDocument(httpInput(), { source: 'publish' }, NOW);

  it('keeps the stored firstSeen, owner and signals; an import replaces the signals', () => {
    const stored = { firstSeen: '2025-01-01T00:00:00.000Z', owner: 'tok_a', signals: { settleCount7d: 9, rejectionRate7d: 0.1 } };
    const merged = keptFromStored(fresh, stored);
    assert.equal(merged.firstSeen, stored.firstSeen);
    assert.equal(merged.owner, 'tok_a');
    assert.equal(merged.signals.settleCount7d, 9);
    assert.deepEqual(keptFromStored(fresh, stored, true).signals, fresh.signals);
    assert.equal(keptFromStored({ ...fresh, owner: 'tok_b' }, stored).owner, 'tok_b', 'a write naming an owner keeps its own');
    assert.equal(keptFromStored(fresh, undefined), fresh);
  });

  it('traffic may rewrite only what traffic created, live or removed as stale', () => {
    assert.equal(trafficMayRewrite(undefined), true);
    assert.equal(trafficMayRewrite({ source: 'traffic', removed: false }), true);
    assert.equal(trafficMayRewrite({ source: 'traffic', removed: true, removedReason: 'stale' }), true);
    assert.equal(trafficMayRewrite({ source: 'traffic', removed: true, removedReason: 'operator' }), false);
    for (const source of ['publish', 'announce', 'import', 'demo'] as const) assert.equal(trafficMayRewrite({ source, removed: false }), false, source);
  });
});

describe('unit: identifier words and text quality', () => {
  it('splits snake, camel, kebab and acronyms into lower-case words', () => {
    assert.deepEqual(identifierWords('getWeatherForecast_v2-daily'), ['get', 'weather', 'forecast', 'v2', 'daily']);
    assert.deepEqual(identifierWords('parseHTTPResponse'), ['parse', 'http', 'response']);
    assert.deepEqual(identifierWords('---'), []);
  });

  it('keywords: name, then inputs, then path segments, each word once; the host is not a keyword', () => {
    assert.equal(listingKeywords({ resource: 'https://geo.example/v1/reverse-geocode/{lat}', name: 'reverseGeocode', inputNames: ['lat', 'lng'] }), 'reverse geocode lat lng v1');
  });

  it('text quality: 1 for ordinary text, lower the more a word is repeated past twice', () => {
    assert.equal(textQuality('Weather forecast', 'Hourly forecast for a coordinate'), 1);
    assert.equal(textQuality(undefined, ''), 1);
    const stuffed = textQuality('translate translate translate', 'translate translate translate translate translate');
    assert.ok(stuffed < 0.5, String(stuffed));
    assert.equal(textQuality('the the the the and and and for for for'), 1, 'common words do not count');
    assert.ok(textQuality('ip geolocation ip lookup ip location ip to country', 'ip address ip to city') < 0.8, 'two-letter words count');
    assert.equal(textQuality('Top 10 lists', '10 results, 10 per page, 10 seconds at most'), 1, 'numbers do not');
  });

  it('text quality: a long keyword list is halved, sentences and short lists are not', () => {
    const list = 'weather translate ocr crypto price llm email sms geocoding stock fx rates pdf qr code screenshot news flights tracking kyc cheapest fastest best api';
    assert.equal(textQuality('All APIs', list), 0.5, '24 words, no grammar, no word repeated past twice');
    const converters = 'pdf to word, word to pdf, html to pdf, merge pdf, compress pdf, qr code generator, qr reader, barcode lookup, website screenshot, scraping';
    assert.ok(textQuality('Every tool', converters) <= 0.5, '"to" joins capability names, it is no grammar');
    assert.equal(textQuality('Parcel tracking', 'Tracks shipments across 1,200 carriers (UPS, FedEx, DHL, USPS, national posts) from one number.'), 1, 'a short list is a description');
    assert.equal(
      textQuality('Forward geocoding', 'Turns a free-form or structured postal address into latitude and longitude, with the match type and a confidence score for each candidate, in 240 countries and territories.'),
      1,
      'a long description in sentences',
    );
  });
});
