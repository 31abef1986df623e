/** One search result, and with explain on, its score as bars (the explain=1 debug block, docs/catalog-reads.md). */
import type { Debug, Listing } from '../../shapes/listing.js';
import { activity, descriptionOf, formatPrice, networkLabel, tagsOf, titleOf } from './format.js';
import { Link } from './router.js';

const round = (value: number) => Number(value.toPrecision(4)).toString();

function Bar(props: { name: string; label: string; value: number; fraction: number; note: string }) {
  const percent = Math.max(0, Math.min(100, props.fraction * 100));
  return (
    <div class="factor" data-factor={props.name}>
      <span class="factor-name">{props.label}</span>
      <span class="bar" role="img" aria-label={`${props.label} ${round(props.value)} (${props.note})`}>
        <span class="fill" style={{ width: `${percent.toFixed(1)}%` }} />
      </span>
      <span class="factor-value">{round(props.value)}</span>
    </div>
  );
}

/** relevance is unbounded (BM25), so its bar is relative to the best on the page; the boosts are 0..1. */
export function ExplainBars(props: { debug: Debug; maxRelevance: number }) {
  const { debug } = props;
  return (
    <div class="explain" aria-label="Why this rank">
      <Bar name="relevance" label="Relevance" value={debug.relevance} fraction={props.maxRelevance > 0 ? debug.relevance / props.maxRelevance : 0} note="text match, relative to the best here" />
      <Bar name="priceBoost" label="Price factor" value={debug.priceBoost} fraction={debug.priceBoost} note="1 is cheapest" />
      <Bar name="recencyBoost" label="Recency factor" value={debug.recencyBoost} fraction={debug.recencyBoost} note="1 is paid for just now" />
      <Bar name="healthBoost" label="Health factor" value={debug.healthBoost} fraction={debug.healthBoost} note="1 is up, or not checked yet" />
      {/* 1 to 2: the bar shows how much of the possible lift distinct payers give. */}
      <Bar name="popularityBoost" label="Popularity factor" value={debug.popularityBoost} fraction={debug.popularityBoost - 1} note="1 is no distinct payers this week" />
      <p class="product">
        Score = {round(debug.relevance)} × {round(debug.priceBoost)} × {round(debug.recencyBoost)} × {round(debug.healthBoost)} × {round(debug.popularityBoost)} ={' '}
        <strong data-score>{round(debug.score)}</strong>
      </p>
    </div>
  );
}

export function ResultCard(props: { listing: Listing; maxRelevance: number }) {
  const { listing } = props;
  const tags = tagsOf(listing);
  return (
    <li class="result" data-id={listing.id} data-type={listing.type}>
      <h2>
        <Link href={`/listings/${encodeURIComponent(listing.id)}`}>{titleOf(listing)}</Link>
        <span class={`badge ${listing.type}`}>{listing.type === 'mcp' ? 'MCP tool' : 'HTTP'}</span>
      </h2>
      <p class="resource">
        <code>{listing.resource}</code>
      </p>
      {descriptionOf(listing) && <p class="description">{descriptionOf(listing)}</p>}
      <dl class="facts">
        <div>
          <dt>Price</dt>
          <dd class="price">{formatPrice(listing.payment)}</dd>
        </div>
        <div>
          <dt>Network</dt>
          <dd>{networkLabel(listing.payment.network)}</dd>
        </div>
        <div>
          <dt>Activity</dt>
          <dd class="activity">{activity(listing.signals)}</dd>
        </div>
      </dl>
      {tags.length > 0 && (
        <ul class="tags" aria-label="Tags">
          {tags.map((tag) => (
            <li key={tag}>{tag}</li>
          ))}
        </ul>
      )}
      {listing.debug && <ExplainBars debug={listing.debug} maxRelevance={props.maxRelevance} />}
    </li>
  );
}
