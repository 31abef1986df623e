/** A listing's page: everything GET /discovery/resources/{id} says, and how to call it. */
import { useEffect, useState } from 'preact/hooks';
import type { Listing } from '../../shapes/listing.js';
import { api, ApiError } from './api.js';
import { CodeBlock } from './CodeBlock.js';
import { activity, descriptionOf, formatPrice, networkLabel, safeHttpUrl, tagsOf, titleOf } from './format.js';
import { Link } from './router.js';
import { httpSnippet, mcpCallSnippet, mcpConfigSnippet } from './snippets.js';

function Schema(props: { title: string; schema: Record<string, unknown> | undefined }) {
  if (!props.schema) return null;
  return (
    <section>
      <h2>{props.title}</h2>
      <pre class="schema" tabIndex={0}>
        <code>{JSON.stringify(props.schema, null, 2)}</code>
      </pre>
    </section>
  );
}

function Details(props: { listing: Listing }) {
  const { listing } = props;
  const { payment } = listing;
  const link = listing.type === 'http' ? safeHttpUrl(listing.resource) : undefined;
  return (
    <dl class="details">
      <div>
        <dt>Resource</dt>
        <dd>
          <code>{listing.resource}</code>
          {link && (
            <>
              {' '}
              <a href={link} rel="noopener noreferrer nofollow" target="_blank">
                open
              </a>
            </>
          )}
        </dd>
      </div>
      <div>
        <dt>Price</dt>
        <dd class="price">{formatPrice(payment)}</dd>
      </div>
      <div>
        <dt>Payment</dt>
        <dd>
          {payment.scheme} on {networkLabel(payment.network)}; asset <code>{payment.asset}</code>; amount <code>{payment.amount}</code> base units
          {payment.payTo && (
            <>
              ; pays <Link href={`/merchants/${encodeURIComponent(payment.payTo)}`} class="merchant-link">
                <code>{payment.payTo}</code>
              </Link>
            </>
          )}
        </dd>
      </div>
      <div>
        <dt>Activity</dt>
        <dd class="activity">{activity(listing.signals)}</dd>
      </div>
      {tagsOf(listing).length > 0 && (
        <div>
          <dt>Tags</dt>
          <dd>{tagsOf(listing).join(', ')}</dd>
        </div>
      )}
    </dl>
  );
}

export function ListingView(props: { id: string }) {
  const [listing, setListing] = useState<Listing | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setListing(undefined);
    setError(undefined);
    api.listing(props.id).then(setListing, (err: unknown) => setError(err instanceof ApiError ? err.message : String(err)));
  }, [props.id]);

  if (error) {
    return (
      <section>
        <h1 tabIndex={-1}>Listing not available</h1>
        <p class="error" role="alert">
          {error}
        </p>
        <Link href="/">Back to search</Link>
      </section>
    );
  }
  if (!listing) return <p aria-live="polite">Loading…</p>;
  return (
    <article class="listing" data-id={listing.id}>
      <p>
        <Link href="/">← Search</Link>
      </p>
      <h1 tabIndex={-1}>
        {titleOf(listing)} <span class={`badge ${listing.type}`}>{listing.type === 'mcp' ? 'MCP tool' : 'HTTP endpoint'}</span>
      </h1>
      {descriptionOf(listing) && <p class="description">{descriptionOf(listing)}</p>}
      <Details listing={listing} />
      {listing.type === 'http' ? (
        <>
          {listing.describe.inputs && Object.keys(listing.describe.inputs).length > 0 && (
            <section>
              <h2>Inputs</h2>
              <table class="inputs">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Type</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(listing.describe.inputs).map(([name, type]) => (
                    <tr key={name}>
                      <td>
                        <code>{name}</code>
                      </td>
                      <td>{type}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
          <section>
            <h2>Call it</h2>
            <p>With an x402 client: the first request gets the 402 challenge, the client signs the payment and retries.</p>
            <CodeBlock label="TypeScript (x402 client)" code={httpSnippet(listing)} />
          </section>
        </>
      ) : (
        <>
          <Schema title="Input schema" schema={listing.inputSchema} />
          <Schema title="Output schema" schema={listing.outputSchema} />
          <section>
            <h2>Call it</h2>
            <p>
              Add the seller's MCP server to your client (servers built with this project's seller SDK serve MCP at <code>/mcp</code>; check the seller's
              documentation). A call without payment returns the payment requirements; sign them and call again with the payment in <code>_meta</code>.
            </p>
            <CodeBlock label="MCP client configuration" code={mcpConfigSnippet(listing)} />
            <CodeBlock label="Paid tool call (JSON-RPC)" code={mcpCallSnippet(listing)} />
          </section>
        </>
      )}
    </article>
  );
}
