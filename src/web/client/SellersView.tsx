/**
 * Seller status: is my endpoint listed, pending or rejected, and why in plain words; and an
 * Announce button that asks the service to probe it (docs/announce.md). The lookup is in the URL
 * (/sellers?lookup=...), so a seller can bookmark it.
 */
import { useEffect, useState } from 'preact/hooks';
import type { AnnounceStatus } from '../../shapes/announceStatus.js';
import { api, ApiError, originOnly, queryString, type OriginStatus } from './api.js';
import { OriginReport } from './OriginReport.js';
import { isListingId } from '../../core/listingId.js';
import { relativeTime } from './format.js';
import { Link, navigate } from './router.js';

/**
 * The probe's reasons (docs/announce.md) as a seller would say them. Without a prototype: it is
 * looked up by whatever reason the service sends (issue 43: a table keyed by text is never a plain object).
 */
const REASONS: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, {
  not_402: 'The URL did not answer with 402 Payment Required, so it is not a paid x402 resource.',
  redirect: 'The URL answered with a redirect; the probe does not follow redirects. Announce the final URL.',
  invalid_challenge: 'The URL answered 402, but its payment requirements could not be read (no x402 v1 body or v2 PAYMENT-REQUIRED header with an exact or upto option on a known network).',
  requirements_mismatch: 'The payment requirements the URL serves differ from the ones announced.',
  blocked_address: 'The host is, or resolves to, a private or local address; the service only probes public addresses.',
  dns_failure: 'The host name does not resolve.',
  unreachable: 'The host did not answer in time (refused, reset, timed out or a TLS failure: the service does not say which).',
  connection_failed: 'The service could not connect to the host.',
  timeout: 'The URL did not answer in time.',
  body_too_large: 'The 402 answer was too large to read.',
  invalid_url: 'This is not a URL the service can probe (http or https only, no credentials).',
  invalid_listing: 'The 402 was read, but the catalog refused the listing it describes (for example an amount too large).',
  resource_mismatch: 'The probe fetched another URL than the listed one; the listing is kept.',
  stale: 'Removed: no 402 and no payment was seen for a long time.',
  unpublished: 'Removed by its seller.',
  operator: 'Removed by the catalog operator.',
  probe_failed: 'Removed: a later probe no longer found a 402.',
  opted_out: 'Removed by its seller, who keeps it out of the catalog until it lifts the opt-out (POST /discovery/optout; docs/announce.md).',
});

const STATUS_WORDS: Record<AnnounceStatus['status'], string> = {
  listed: 'Listed: buyers can find it.',
  pending: 'Pending: the service is probing it.',
  rejected: 'Rejected: it is not in the catalog.',
};

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function SellersView(props: { params: URLSearchParams }) {
  const lookup = props.params.get('lookup') ?? '';
  const [input, setInput] = useState(lookup);
  const [status, setStatus] = useState<AnnounceStatus | undefined>();
  const [originReport, setOriginReport] = useState<OriginStatus | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  /** An origin: what its last announce found; undefined (and a message) when it was never announced. */
  const checkOrigin = async (origin: string): Promise<OriginStatus | undefined> => {
    setStatus(undefined);
    try {
      const found = await api.originStatus(origin);
      setOriginReport(found);
      return found;
    } catch (err) {
      setOriginReport(undefined);
      if (err instanceof ApiError && err.status === 404) setMessage('This origin was not announced yet. Announce it to have the service read its /.well-known/x402 and /openapi.json.');
      else setError(err instanceof ApiError ? err.message : String(err));
      return undefined;
    }
  };

  const check = async (value: string): Promise<AnnounceStatus | undefined> => {
    setError(undefined);
    setMessage(undefined);
    const origin = originOnly(value);
    if (origin) {
      await checkOrigin(origin);
      return undefined;
    }
    setOriginReport(undefined);
    try {
      const found = await api.status(isListingId(value) ? { id: value } : { resource: value });
      setStatus(found);
      return found;
    } catch (err) {
      setStatus(undefined);
      if (err instanceof ApiError && err.status === 404) setMessage('Not announced or listed yet. Announce it to have the service probe it.');
      else setError(err instanceof ApiError ? err.message : String(err));
      return undefined;
    }
  };

  useEffect(() => {
    setInput(lookup);
    if (lookup) void check(lookup);
  }, [lookup]);

  const submit = (event: Event) => {
    event.preventDefault();
    const value = input.trim();
    if (value === lookup) void check(value);
    else navigate(`/sellers${queryString({ lookup: value })}`);
  };

  const announce = async () => {
    const value = input.trim();
    setBusy(true);
    setError(undefined);
    setMessage(undefined);
    try {
      const origin = originOnly(value);
      if (origin) {
        setStatus(undefined);
        setOriginReport(await api.announceOrigin(origin));
        setMessage('Announced. The service is probing what the site names…');
        for (let i = 0; i < 20; i += 1) {
          const found = await checkOrigin(origin);
          if (!found || found.resources.every((r) => !r.id || (r.status !== undefined && r.status !== 'pending'))) break;
          await wait(500);
        }
        return;
      }
      await api.announce(value);
      setMessage('Announced. The service is probing it…');
      // The probe runs behind the announce: follow it for a while.
      for (let i = 0; i < 20; i += 1) {
        const found = await check(value);
        if (found && found.status !== 'pending') break;
        await wait(500);
      }
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="sellers-title">
      <h1 id="sellers-title" tabIndex={-1}>
        Is my endpoint listed?
      </h1>
      <p>
        Enter the URL of your paid endpoint (the one that answers 402) or its listing id; or your site's origin (https://api.example.com) to announce every
        resource its /.well-known/x402 or OpenAPI document names.
      </p>
      <form class="lookup" onSubmit={submit}>
        <label for="lookup">URL or listing id</label>
        <input id="lookup" name="lookup" type="text" required value={input} placeholder="https://api.example.com/weather" onInput={(e) => setInput((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit">Check status</button>
        <button type="button" class="secondary" disabled={busy || isListingId(input.trim()) || input.trim() === ''} onClick={() => void announce()}>
          Announce
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div aria-live="polite">
        {message && <p class="note">{message}</p>}
        {originReport && <OriginReport report={originReport} reasons={REASONS} />}
        {status && (
          <div class={`status ${status.status}`} data-status={status.status}>
            <h2>{STATUS_WORDS[status.status]}</h2>
            <p>
              <code>
                {status.method} {status.resource}
              </code>
            </p>
            {status.reason && (
              <p class="reason">
                {REASONS[status.reason] ?? `Reason: ${status.reason}.`}
                {status.detail && <span class="detail"> ({status.detail})</span>}
              </p>
            )}
            <p class="times">
              {status.lastProbedAt && `Last probed ${relativeTime(status.lastProbedAt)}. `}
              {status.listedAt && `Listed ${relativeTime(status.listedAt)}. `}
            </p>
            {status.status === 'listed' && <Link href={`/listings/${encodeURIComponent(status.id)}`}>See the listing</Link>}
          </div>
        )}
      </div>
    </section>
  );
}
