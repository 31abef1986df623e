/**
 * What announcing an origin found (docs/federation.md): each manifest the service read, and each
 * resource it named with its probe's outcome in the seller's words.
 */
import type { OriginStatus } from './api.js';
import { Link } from './router.js';

const MANIFEST_WORDS: Record<OriginStatus['manifests'][number]['outcome'], string> = {
  read: 'read',
  absent: 'not served',
  failed: 'could not be fetched',
  invalid: 'not a manifest',
};

function resourceWords(resource: OriginStatus['resources'][number], reasons: Record<string, string>): string {
  if (resource.outcome === 'skipped' || resource.outcome === 'invalid') return `Not probed: ${resource.reason ?? resource.outcome}.`;
  if (resource.status === 'listed') return 'Listed.';
  if (resource.status === 'rejected') return `Rejected: ${(resource.reason && reasons[resource.reason]) ?? resource.reason ?? 'not listed'}${resource.detail ? ` (${resource.detail})` : ''}`;
  if (resource.status === 'forgotten') return 'No longer tracked; announce again.';
  return 'Pending: the service is probing it.';
}

export function OriginReport(props: { report: OriginStatus; reasons: Record<string, string> }) {
  const { report } = props;
  return (
    <div class="status origin" data-origin={report.origin}>
      <h2>Announced {report.origin}</h2>
      <ul class="manifests">
        {report.manifests.map((m) => (
          <li key={m.url}>
            <code>{m.url}</code>: {MANIFEST_WORDS[m.outcome]}
            {m.outcome === 'read' ? `, ${m.resources} resource${m.resources === 1 ? '' : 's'}` : m.detail ? ` (${m.detail})` : ''}
          </li>
        ))}
      </ul>
      {report.resources.length === 0 ? (
        <p class="note">No resources named: serve /.well-known/x402 or an OpenAPI document with x-payment-info.</p>
      ) : (
        <ul class="resources">
          {report.resources.map((r) => (
            <li key={`${r.method} ${r.resource}`} data-status={r.status ?? r.outcome}>
              <code>
                {r.method} {r.resource}
              </code>{' '}
              <span class="outcome">{resourceWords(r, props.reasons)}</span>
              {r.status === 'listed' && r.id && (
                <>
                  {' '}
                  <Link href={`/listings/${encodeURIComponent(r.id)}`}>See the listing</Link>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {(report.omitted ?? 0) > 0 && (
        <p class="note omitted">
          {report.omitted!.toLocaleString('en')} more entr{report.omitted === 1 ? 'y was' : 'ies were'} skipped (counted, not shown).
        </p>
      )}
    </div>
  );
}
