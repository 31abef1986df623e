/**
 * The query mix of the search benchmark: what buyers and agents plausibly ask a catalog of paid
 * APIs and MCP tools, with and without filters. Each entry is a query string of a read endpoint.
 */

const TERMS = [
  'weather forecast', 'stock price', 'crypto price', 'translate text', 'image generation', 'summarize pdf',
  'news headlines', 'geocode address', 'email validation', 'sentiment analysis', 'ocr', 'speech to text',
  'text embeddings', 'route planning', 'flight status', 'hotel prices', 'sports scores', 'exchange rate',
  'company data', 'web scraping', 'domain whois', 'ip geolocation', 'air quality', 'recipe', 'legal documents',
  'vector search', 'code review', 'llm completion', 'weather', 'translation', 'market data', 'maps',
];

const FILTERS = ['', '', '', '&type=mcp', '&type=http', '&maxPrice=10000', '&network=eip155:84532', '&scheme=exact', '&maxPrice=1000&type=http'];

const RESOURCE_FILTERS = [
  '', 'type=mcp', 'type=http', 'maxPrice=5000', 'network=eip155:84532', 'network=eip155:8453&type=http', 'scheme=upto',
  'capability=weather', 'capability=finance', 'maxPrice=100000&type=mcp', 'capability=ai&maxPrice=50000',
];

/** Search query strings (without the leading `?`): every term with a rotating filter. */
export function searchMix(extra = ''): string[] {
  return TERMS.map((term, i) => `q=${encodeURIComponent(term)}${FILTERS[i % FILTERS.length]}${extra}`);
}

export function resourcesMix(): string[] {
  return RESOURCE_FILTERS.flatMap((f) => [f, `${f}${f ? '&' : ''}limit=50`]);
}

const QUALIFIERS = ['', 'cheap', 'fast', 'realtime', 'bulk', 'accurate', 'simple', 'low latency', 'pay per call', 'reliable'];
const PURPOSES = ['', 'api', 'for agents', 'json', 'with webhooks', 'per request', 'tool', 'service', 'endpoint', 'in europe', 'for developers', 'mcp tool'];

/**
 * `count` different search query strings (without the leading `?`), the same for the same count:
 * what many agents typing their own words send, so that no query repeats within a run and every
 * one costs the gateway its query embedding (the gateway caches embeddings of repeated queries).
 * Terms alone and in pairs, each with a qualifier and a purpose, in a shuffled but fixed order.
 */
export function distinctSearchQueries(count: number): string[] {
  const subjects = [...TERMS, ...TERMS.flatMap((a, i) => TERMS.filter((_, j) => j !== i).map((b) => `${a} and ${b}`))];
  const all: string[] = [];
  for (const subject of subjects) for (const qualifier of QUALIFIERS) for (const purpose of PURPOSES) all.push([qualifier, subject, purpose].filter(Boolean).join(' '));
  if (count > all.length) throw new Error(`at most ${all.length} distinct queries`);
  // A fixed stride through the whole product (coprime with its size), so consecutive queries differ in subject.
  const stride = 7919;
  return Array.from({ length: count }, (_, i) => `q=${encodeURIComponent(all[(i * stride) % all.length]!)}`);
}

/** Cumulative Zipf (s = 1) weights of `n` items: item i drawn with probability proportional to 1 / (i + 1). */
function zipfCumulative(n: number): number[] {
  const weights = Array.from({ length: n }, (_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  weights.reduce((sum, w, i) => (cumulative[i] = sum + w / total), 0);
  return cumulative;
}

/** Draws indexes into `n` items, Zipf-distributed (s = 1): a few popular queries, a long tail. */
export function zipfPicker(n: number, random: () => number = Math.random): () => number {
  const cumulative = zipfCumulative(n);
  return () => {
    const r = random();
    const found = cumulative.findIndex((c) => c >= r);
    return found === -1 ? n - 1 : found;
  };
}

/** `length` indexes into `n` items, Zipf-distributed (s = 1), from a fixed seed (the same sequence every run). */
export function zipfSequence(n: number, length: number): number[] {
  let seed = 42;
  const pick = zipfPicker(n, () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  return Array.from({ length }, pick);
}
