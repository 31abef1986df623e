/**
 * Deterministic generator of realistic listings for benchmarks (bench-ingest; the search benchmark
 * builds its 100k catalog with it too): HTTP endpoints and MCP tools across many API domains, varied
 * titles, descriptions, tags and inputs, prices over five orders of magnitude, ~30% never settled.
 * Same (count, seed, now) -> same listings.
 */
import type { ListingInput } from '../../src/door.js';

const USDC_BASE_SEPOLIA = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C8dDAFFa1cF0a2c9aE5';
/** The default reference time, so output does not depend on when it runs. */
export const GENERATOR_EPOCH = new Date('2026-11-21T00:00:00Z');

interface Domain {
  noun: string;
  tags: string[];
  actions: Array<[verb: string, object: string]>;
  inputs: Record<string, string>;
  sentences: string[];
}

const DOMAINS: Domain[] = [
  { noun: 'weather', tags: ['weather', 'forecast', 'climate'], actions: [['get', 'forecast'], ['get', 'current conditions'], ['list', 'alerts'], ['get', 'air quality']], inputs: { lat: 'number', lng: 'number', units: 'string', days: 'integer' }, sentences: ['Hourly and daily forecasts from blended models.', 'Temperature, precipitation, wind and UV index.', 'Severe weather warnings updated every few minutes.'] },
  { noun: 'geocoding', tags: ['geocoding', 'maps', 'address'], actions: [['geocode', 'address'], ['reverse', 'geocode'], ['autocomplete', 'place'], ['get', 'timezone']], inputs: { address: 'string', lat: 'number', lng: 'number', country: 'string' }, sentences: ['Converts addresses to coordinates with a confidence score.', 'Normalized postal addresses for 240 countries.', 'Point of interest and place lookup.'] },
  { noun: 'llm', tags: ['llm', 'ai', 'inference', 'chat'], actions: [['create', 'chat completion'], ['create', 'embedding'], ['classify', 'text'], ['summarize', 'text']], inputs: { prompt: 'string', messages: 'array', max_tokens: 'integer', temperature: 'number', model: 'string' }, sentences: ['OpenAI-compatible inference on open-weight models.', 'Pay per request, priced by the token ceiling.', 'Low-latency serving with streaming support.'] },
  { noun: 'image', tags: ['image-generation', 'ai', 'image'], actions: [['generate', 'image'], ['upscale', 'image'], ['remove', 'background'], ['caption', 'image']], inputs: { prompt: 'string', image_url: 'string', width: 'integer', height: 'integer', seed: 'integer' }, sentences: ['Diffusion models producing 1024px images.', 'Returns a signed URL valid for a day.', 'Background removal and upscaling for product photos.'] },
  { noun: 'stock', tags: ['finance', 'stocks', 'market-data'], actions: [['get', 'quote'], ['get', 'price history'], ['list', 'earnings'], ['get', 'fundamentals']], inputs: { symbol: 'string', from: 'date', to: 'date', interval: 'string' }, sentences: ['Real-time quotes for US and EU equities.', 'Split- and dividend-adjusted daily bars.', 'Company fundamentals and earnings calendar.'] },
  { noun: 'crypto', tags: ['crypto', 'finance', 'defi'], actions: [['get', 'token price'], ['get', 'wallet balance'], ['list', 'transactions'], ['get', 'gas price']], inputs: { token: 'string', address: 'string', chain: 'string', quote: 'string' }, sentences: ['Volume-weighted prices across major exchanges.', 'On-chain balances and transfers for EVM chains.', 'Gas estimates for the next block.'] },
  { noun: 'translation', tags: ['translation', 'language', 'nlp'], actions: [['translate', 'text'], ['detect', 'language'], ['transliterate', 'text'], ['translate', 'document']], inputs: { text: 'string', target: 'string', source: 'string', formality: 'string' }, sentences: ['Neural machine translation for over a hundred languages.', 'Automatic source language detection.', 'Glossary support for domain terms.'] },
  { noun: 'ocr', tags: ['ocr', 'documents', 'extraction'], actions: [['extract', 'text'], ['parse', 'receipt'], ['parse', 'invoice'], ['read', 'id document']], inputs: { file_url: 'string', image_url: 'string', language: 'string', pages: 'string' }, sentences: ['Extracts text, tables and key-value pairs.', 'Handles scanned PDFs and phone photos.', 'Structured JSON output with bounding boxes.'] },
  { noun: 'scraping', tags: ['scraping', 'web', 'crawl'], actions: [['scrape', 'page'], ['take', 'screenshot'], ['extract', 'links'], ['crawl', 'site']], inputs: { url: 'string', render_js: 'boolean', selector: 'string', depth: 'integer' }, sentences: ['Headless browser fetching with JavaScript rendering.', 'Returns clean text and metadata.', 'Rotating residential proxies included.'] },
  { noun: 'search', tags: ['search', 'web', 'news'], actions: [['search', 'web'], ['search', 'news'], ['search', 'images'], ['search', 'academic papers']], inputs: { q: 'string', page: 'integer', country: 'string', since: 'date' }, sentences: ['Ranked results with titles, snippets and URLs.', 'Fresh index updated continuously.', 'Safe search and country targeting.'] },
  { noun: 'speech', tags: ['audio', 'speech', 'ai'], actions: [['transcribe', 'audio'], ['synthesize', 'speech'], ['translate', 'audio'], ['detect', 'speakers']], inputs: { audio_url: 'string', text: 'string', voice: 'string', language: 'string' }, sentences: ['Whisper-class transcription with word timestamps.', 'Natural neural voices in many languages.', 'Speaker diarization for meetings.'] },
  { noun: 'email', tags: ['email', 'validation', 'marketing'], actions: [['verify', 'email'], ['find', 'email'], ['check', 'domain'], ['send', 'email']], inputs: { email: 'string', domain: 'string', name: 'string' }, sentences: ['Syntax, MX and mailbox checks.', 'Flags disposable and role addresses.', 'Deliverability scoring.'] },
  { noun: 'security', tags: ['security', 'ip', 'threat-intel'], actions: [['lookup', 'ip'], ['scan', 'url'], ['check', 'password breach'], ['analyze', 'file']], inputs: { ip: 'string', url: 'string', hash: 'string' }, sentences: ['Reputation and threat intelligence feeds.', 'Proxy, VPN and Tor detection.', 'Malware scanning with multiple engines.'] },
  { noun: 'logistics', tags: ['logistics', 'shipping', 'tracking'], actions: [['track', 'parcel'], ['quote', 'shipping rate'], ['validate', 'address'], ['create', 'label']], inputs: { carrier: 'string', tracking_number: 'string', weight: 'number', destination: 'string' }, sentences: ['Normalized tracking for hundreds of carriers.', 'Estimated delivery dates.', 'Rate shopping across carriers.'] },
  { noun: 'sports', tags: ['sports', 'scores', 'data'], actions: [['get', 'live scores'], ['get', 'fixtures'], ['get', 'player stats'], ['get', 'odds']], inputs: { league: 'string', team: 'string', season: 'integer', date: 'date' }, sentences: ['Live scores with second-level latency.', 'Historical statistics back to 1990.', 'Pre-match and in-play odds.'] },
  { noun: 'code', tags: ['code', 'developer', 'ai'], actions: [['complete', 'code'], ['review', 'pull request'], ['explain', 'code'], ['generate', 'tests']], inputs: { code: 'string', language: 'string', diff: 'string', context: 'string' }, sentences: ['Fill-in-the-middle completion for many languages.', 'Automated review comments with suggestions.', 'Unit test generation.'] },
];

const ADJECTIVES = ['Fast', 'Realtime', 'Accurate', 'Global', 'Simple', 'Pro', 'Bulk', 'Smart', 'Instant', 'Reliable', 'Open', 'Premium'];
const BRANDS = ['nimbus', 'quanta', 'vertex', 'lumen', 'atlas', 'helix', 'orbit', 'pulse', 'cobalt', 'ember', 'zephyr', 'nova', 'relay', 'prism', 'summit', 'tandem'];
const TLDS = ['dev', 'io', 'ai', 'com', 'app', 'xyz'];

/** mulberry32: small, fast, good enough for benchmark data. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generateListings(count: number, seed = 1, options: { now?: Date } = {}): ListingInput[] {
  const rand = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const some = <T>(items: readonly T[], min: number, max: number): T[] =>
    [...items].sort(() => rand() - 0.5).slice(0, min + Math.floor(rand() * (max - min + 1)));
  const now = (options.now ?? GENERATOR_EPOCH).getTime();
  const out: ListingInput[] = [];
  for (let i = 0; i < count; i++) {
    const domain = pick(DOMAINS);
    const [verb, object] = pick(domain.actions);
    const brand = pick(BRANDS);
    const host = `${brand}-${i.toString(36)}.${pick(TLDS)}`;
    // Log-uniform between 100 and 5,000,000 (0.0001 to 5 USDC).
    const amount = String(Math.round(10 ** (2 + rand() * Math.log10(50_000))));
    const base = rand() < 0.15;
    const payment = {
      scheme: rand() < 0.8 ? ('exact' as const) : ('upto' as const),
      network: base ? 'eip155:8453' : 'eip155:84532',
      asset: base ? USDC_BASE : USDC_BASE_SEPOLIA,
      amount,
      payTo: `0x${Math.floor(rand() * 2 ** 52).toString(16).padStart(40, '0')}`,
      maxTimeoutSeconds: pick([30, 60, 120, 300]),
    };
    const settled = rand() >= 0.3;
    const signals = settled
      ? {
          lastSettled: new Date(now - Math.floor(rand() ** 2 * 30 * 86_400_000)).toISOString(),
          settleCount7d: Math.floor(rand() ** 3 * 5000),
          rejectionRate7d: Math.round(rand() ** 4 * 1000) / 1000,
        }
      : { settleCount7d: 0, rejectionRate7d: 0 };
    const inputNames = some(Object.keys(domain.inputs), 1, 3);
    const description = `${some(domain.sentences, 1, 3).join(' ')} ${verb[0]!.toUpperCase()}${verb.slice(1)} ${object} via ${brand}.`;
    if (rand() < 0.35) {
      const words = [verb, ...object.split(' ')];
      const name = rand() < 0.5 ? words.join('_') : words.map((w, k) => (k ? w[0]!.toUpperCase() + w.slice(1) : w)).join('');
      const properties = Object.fromEntries(inputNames.map((n) => [n, { type: domain.inputs[n] === 'integer' ? 'integer' : domain.inputs[n] === 'number' ? 'number' : 'string' }]));
      out.push({
        type: 'mcp',
        resource: `mcp://mcp.${host}/${name}`,
        name,
        description,
        inputSchema: { type: 'object', properties, required: inputNames.slice(0, 1) },
        outputSchema: { type: 'object', properties: { result: { type: 'object' } } },
        payment,
        tags: some(domain.tags, 1, 3),
        signals,
      });
    } else {
      const path = [domain.noun, ...object.split(' ')].join('-');
      const template = inputNames.includes('lat') && inputNames.includes('lng') ? '/{lat}/{lng}' : '';
      out.push({
        type: 'http',
        resource: `https://api.${host}/v${1 + Math.floor(rand() * 3)}/${path}${template}`,
        payment,
        describe: {
          title: `${pick(ADJECTIVES)} ${domain.noun} ${object}`.replace(/^(\w)/, (c) => c.toUpperCase()),
          description,
          tags: some(domain.tags, 1, 3),
          inputs: Object.fromEntries(inputNames.map((n) => [n, domain.inputs[n]!])),
        },
        signals,
      });
    }
  }
  return out;
}
