/** One merchant's page: what GET /discovery/merchant says about a payTo, its totals and its listings. */
import { useEffect, useState } from 'preact/hooks';
import type { Listing } from '../../shapes/listing.js';
import type { MerchantSummary } from '../../shapes/merchant.js';
import { api, ApiError } from './api.js';
import { networkLabel } from './format.js';
import { ResultCard } from './ResultCard.js';
import { MerchantSettlements } from './MerchantSettlements.js';

interface Loaded {
  summary: MerchantSummary;
  listings: Listing[];
  nextCursor?: string;
}

export function MerchantView(props: { payTo: string }) {
  const [loaded, setLoaded] = useState<Loaded | undefined>();
  const [error, setError] = useState<string | undefined>();
  const load = async (append?: Loaded) => {
    try {
      const page = await api.merchant(props.payTo, append?.nextCursor);
      setLoaded({ summary: page.summary, listings: [...(append?.listings ?? []), ...page.results], ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) });
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  useEffect(() => {
    setLoaded(undefined);
    setError(undefined);
    void load();
  }, [props.payTo]);

  const s = loaded?.summary;
  return (
    <section aria-labelledby="merchant-title" class="merchant">
      <h1 id="merchant-title" tabIndex={-1}>
        Merchant <code>{props.payTo}</code>
      </h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {s && (
        <dl class="details summary">
          <div>
            <dt>Listings</dt>
            <dd data-summary="listings">
              {s.listings} ({s.http} HTTP, {s.mcp} MCP)
            </dd>
          </div>
          <div>
            <dt>Networks</dt>
            <dd>{s.networks.map(networkLabel).join(', ')}</dd>
          </div>
          <div>
            <dt>Paid calls in 7 days</dt>
            <dd data-summary="settleCount7d">{s.settleCount7d.toLocaleString('en-US')}</dd>
          </div>
          <div>
            <dt>Last paid</dt>
            <dd>{s.lastSettled ? new Date(s.lastSettled).toUTCString() : 'never'}</dd>
          </div>
          <div>
            <dt>Health</dt>
            <dd>{s.uptime7d !== undefined ? `${Math.round(s.uptime7d * 1000) / 10}% uptime over ${s.healthChecked} checked listing${s.healthChecked === 1 ? '' : 's'}` : 'not checked yet'}</dd>
          </div>
        </dl>
      )}
      {s && <MerchantSettlements payTo={props.payTo} />}
      {loaded && (
        <ol class="results">
          {loaded.listings.map((listing) => (
            <ResultCard key={listing.id} listing={listing} maxRelevance={0} />
          ))}
        </ol>
      )}
      {loaded?.nextCursor && (
        <button type="button" class="more" onClick={() => void load(loaded)}>
          More listings
        </button>
      )}
    </section>
  );
}
