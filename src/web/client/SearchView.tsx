/**
 * Search: the form (free text, filters, sort, explain), the results, and "More results" through
 * nextCursor. The form's state lives in the page URL (/?q=...), so a search can be shared and the
 * back button works; the API call is built from it. The max price is the API's `maxUsd`: a cap in
 * dollars on USDC on any network, so a listing priced in another (or a mistyped) token never passes.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Listing } from '../../shapes/listing.js';
import { api, ApiError, queryString } from './api.js';
import { usdcToBaseUnits } from './format.js';
import { ResultCard } from './ResultCard.js';
import { navigate } from './router.js';

const PAGE_SIZE = '10';
const FIELDS = ['q', 'type', 'network', 'maxUsd', 'scheme', 'capability', 'sort', 'explain'] as const;
type Form = Record<(typeof FIELDS)[number], string>;

/** `maxPrice` is what page addresses used to carry (in USDC too): old shared links keep working. */
const formFrom = (params: URLSearchParams): Form =>
  Object.fromEntries(FIELDS.map((name) => [name, params.get(name) ?? (name === 'maxUsd' ? params.get('maxPrice') : null) ?? ''])) as Form;

/** The API query of a form, or the message that stops it before any call. */
function apiQuery(form: Form): { query: Record<string, string | undefined> } | { error: string } {
  let maxUsd: string | undefined;
  if (form.maxUsd.trim() !== '') {
    // Checked here for a message in the page's words; the API takes the dollars as typed.
    const converted = usdcToBaseUnits(form.maxUsd);
    if ('error' in converted) return converted;
    maxUsd = form.maxUsd.trim().replace(/^\$/, '');
  }
  const q = form.q.trim();
  return {
    query: {
      q: q || undefined,
      type: form.type || undefined,
      network: form.network.trim() || undefined,
      maxUsd,
      scheme: form.scheme || undefined,
      capability: form.capability.trim() || undefined,
      // Sort and explain exist only for ranked search (with q).
      sort: q && form.sort ? form.sort : undefined,
      explain: q && form.explain === '1' ? '1' : undefined,
      limit: PAGE_SIZE,
    },
  };
}

interface Results {
  listings: Listing[];
  nextCursor?: string;
  query: Record<string, string | undefined>;
}

export function SearchView(props: { params: URLSearchParams }) {
  const [form, setForm] = useState<Form>(() => formFrom(props.params));
  const [results, setResults] = useState<Results | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  // The address (location.search) whose answer is on screen: scripts and tests wait for it to match the URL.
  const [shownFor, setShownFor] = useState<string | undefined>();
  // Only the newest request may fill the page: an older one answering late (a slow first search, a
  // search typed again before the last answered) would otherwise replace newer results.
  const latest = useRef(0);
  const urlKey = props.params.toString();

  const load = async (query: Record<string, string | undefined>, append?: Results) => {
    const ticket = ++latest.current;
    const address = location.search;
    setLoading(true);
    setError(undefined);
    try {
      const page = await api.read(append?.nextCursor ? { ...query, cursor: append.nextCursor } : query);
      if (ticket !== latest.current) return;
      setResults({ listings: [...(append?.listings ?? []), ...page.results], ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}), query });
    } catch (err) {
      if (ticket !== latest.current) return;
      setError(err instanceof ApiError ? err.message : String(err));
      if (!append) setResults(undefined);
    } finally {
      if (ticket === latest.current) {
        setLoading(false);
        setShownFor(address);
      }
    }
  };

  // The URL is the source of truth: a search (or back/forward) changes it, and this loads it.
  useEffect(() => {
    const next = formFrom(props.params);
    setForm(next);
    const built = apiQuery(next);
    if ('error' in built) {
      latest.current += 1;
      setError(built.error);
      setResults(undefined);
      setLoading(false);
      setShownFor(location.search);
    } else void load(built.query);
  }, [urlKey]);

  // The form goes into the URL even when a value is wrong: the effect above then shows why.
  const apply = (next: Form) => {
    const href = `/${queryString(next)}`;
    if (href === `${location.pathname}${location.search}`) {
      const built = apiQuery(next);
      if ('error' in built) setError(built.error);
      else void load(built.query);
    } else navigate(href);
  };
  const submit = (event: Event) => {
    event.preventDefault();
    apply(form);
  };

  const field = (name: keyof Form) => ({
    id: `f-${name}`,
    name,
    value: form[name],
    onInput: (e: Event) => setForm({ ...form, [name]: (e.currentTarget as HTMLInputElement).value }),
  });
  const ranked = form.q.trim() !== '';
  const maxRelevance = Math.max(0, ...(results?.listings ?? []).map((l) => l.debug?.relevance ?? 0));

  return (
    <section aria-labelledby="search-title">
      <h1 id="search-title" tabIndex={-1}>
        Find a paid API or tool
      </h1>
      <form class="search" role="search" onSubmit={submit}>
        <div class="query">
          <label for="f-q">What should it do?</label>
          <input type="search" placeholder="e.g. weather forecast, translate text" maxLength={512} {...field('q')} />
          <button type="submit">Search</button>
        </div>
        <fieldset class="filters">
          <legend>Filters</legend>
          <div>
            <label for="f-type">Type</label>
            <select {...field('type')}>
              <option value="">Any</option>
              <option value="http">HTTP endpoint</option>
              <option value="mcp">MCP tool</option>
            </select>
          </div>
          <div>
            <label for="f-network">Network</label>
            <input list="networks" placeholder="eip155:84532" {...field('network')} />
            <datalist id="networks">
              <option value="eip155:84532">Base Sepolia</option>
              <option value="eip155:8453">Base</option>
            </datalist>
          </div>
          <div>
            <label for="f-maxUsd">Max price (USDC per call)</label>
            <input inputMode="decimal" placeholder="0.005" aria-describedby="max-help" {...field('maxUsd')} />
            <small id="max-help">USDC on any network; listings priced in other tokens are left out.</small>
          </div>
          <div>
            <label for="f-scheme">Payment scheme</label>
            <select {...field('scheme')}>
              <option value="">Any</option>
              <option value="exact">exact (fixed price)</option>
              <option value="upto">upto (pay what is used)</option>
            </select>
          </div>
          <div>
            <label for="f-capability">Capability (tag)</label>
            <input placeholder="weather" {...field('capability')} />
          </div>
          <div>
            <label for="f-sort">Sort</label>
            <select {...field('sort')} disabled={!ranked} aria-describedby="sort-help">
              <option value="">Best match</option>
              <option value="price">Cheapest first</option>
              <option value="recent">Recently paid for</option>
            </select>
            {!ranked && (
              <small id="sort-help">Without search words, newest listings come first.</small>
            )}
          </div>
          <div class="check">
            <input
              type="checkbox"
              id="f-explain"
              checked={form.explain === '1'}
              disabled={!ranked}
              // Applies at once, as a search with the form as it stands: no second press of Search.
              onChange={(e) => {
                const next = { ...form, explain: (e.currentTarget as HTMLInputElement).checked ? '1' : '' };
                setForm(next);
                apply(next);
              }}
            />
            <label for="f-explain">Explain the ranking</label>
          </div>
        </fieldset>
      </form>
      <div aria-live="polite" class="status-line" data-shown-for={shownFor}>
        {loading ? 'Loading…' : results ? `${results.listings.length} result${results.listings.length === 1 ? '' : 's'}${results.nextCursor ? ' so far' : ''}` : ''}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {results && results.listings.length === 0 && <p class="empty">Nothing matches. Try other words or fewer filters.</p>}
      {results && results.listings.length > 0 && (
        <ol class="results">
          {results.listings.map((listing) => (
            <ResultCard key={listing.id} listing={listing} maxRelevance={maxRelevance} />
          ))}
        </ol>
      )}
      {results?.nextCursor && (
        <button type="button" class="more" disabled={loading} onClick={() => void load(results.query, results)}>
          More results
        </button>
      )}
    </section>
  );
}
