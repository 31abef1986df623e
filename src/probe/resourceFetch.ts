/**
 * Fetching a resource without payment and reading its 402 (what every probe and health check of an
 * HTTP listing does): through the SSRF guard (safeFetch.ts) to the address that was checked and
 * paced, redirects refused, the challenge parsed and compared with what was announced. A failure
 * is an outcome a caller may read: the exact cause (an address, ECONNREFUSED) only reaches the
 * operator's debug log (issue 43).
 */
import type { AnnounceSettings } from '../config/announceSettings.js';
import type { Logger } from '../logger.js';
import type { Payment } from '../shapes/listing.js';
import type { ProbeRecord } from '../store/redis/probeStore.js';
import { templateMatchesPath } from '../x402/routeTemplate.js';
import { HEADERS } from '../x402/wire.js';
import type { ProbeAllowList } from './addressPolicy.js';
import { ChallengeError, decodeChallengeHeader, parseChallenge, requirementsDifference, type ParsedChallenge } from './challenge.js';
import { FetchFailure, resolveFetchTarget, safeFetch, type CheckedAddress, type SafeResponse } from './safeFetch.js';

export type ProbeReason =
  | 'not_402'
  | 'redirect'
  | 'invalid_challenge'
  | 'requirements_mismatch'
  | 'blocked_address'
  | 'dns_failure'
  /** Refused, reset, timed out or a TLS failure: one reason, so a probe cannot port-scan for anyone (safeFetch.ts). */
  | 'unreachable'
  | 'body_too_large'
  | 'invalid_url'
  | 'invalid_listing'
  | 'resource_mismatch'
  /** Its seller took it out of the catalog (src/publish/optOut.ts): not fetched at all. */
  | 'opted_out';

export type ProbeOutcome =
  | { ok: true; challenge: ParsedChallenge }
  | { ok: false; reason: ProbeReason; detail: string; transient: boolean };

export class ResourceFetch {
  constructor(
    private readonly settings: Pick<AnnounceSettings, 'probeTimeoutMs' | 'probeMaxBodyBytes'>,
    private readonly allowList: ProbeAllowList,
    private readonly logger: Logger,
  ) {}

  /** The address a fetch of `resource` connects to (checked), or why there is none. */
  async resolve(resource: string): Promise<CheckedAddress | FetchFailure> {
    try {
      return await resolveFetchTarget(resource, this.allowList, this.settings.probeTimeoutMs);
    } catch (err) {
      if (err instanceof FetchFailure) return err;
      throw err;
    }
  }

  /** A fetch that failed, as the outcome a caller may read; the exact cause (an address, ECONNREFUSED) is for the operator's log. */
  failed(record: Pick<ProbeRecord, 'resource'>, err: FetchFailure): ProbeOutcome {
    this.logger.debug('probe fetch failed', { resource: record.resource, reason: err.reason, cause: err.internal });
    return { ok: false, reason: err.reason, detail: err.message, transient: err.reason === 'unreachable' || err.reason === 'dns_failure' };
  }

  async fetchAndRead(record: Pick<ProbeRecord, 'resource' | 'method' | 'routeTemplate' | 'expected'>, pinned?: CheckedAddress): Promise<ProbeOutcome> {
    let response: SafeResponse;
    try {
      response = await safeFetch(record.method, record.resource, {
        allowList: this.allowList,
        timeoutMs: this.settings.probeTimeoutMs,
        maxBodyBytes: this.settings.probeMaxBodyBytes,
        readBodyFor: (status) => status === 402,
        ...(pinned ? { pinned } : {}),
      });
    } catch (err) {
      if (err instanceof FetchFailure) return this.failed(record, err);
      throw err;
    }
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.location ? ` to ${String(response.headers.location).slice(0, 200)}` : '';
      return { ok: false, reason: 'redirect', detail: `answered ${response.status}${location}; redirects are not followed`, transient: false };
    }
    if (response.status !== 402) {
      const transient = response.status >= 500 || response.status === 429;
      return { ok: false, reason: 'not_402', detail: `answered ${response.status} instead of 402`, transient };
    }
    let challenge: ParsedChallenge;
    try {
      challenge = parseChallenge(readChallenge(response));
    } catch (err) {
      if (err instanceof ChallengeError) return { ok: false, reason: 'invalid_challenge', detail: err.message, transient: false };
      throw err;
    }
    const template = record.routeTemplate ?? challenge.routeTemplate;
    if (template && !templateMatchesPath(template, new URL(record.resource).pathname)) {
      return {
        ok: false,
        reason: 'invalid_challenge',
        detail: `routeTemplate ${template} does not match the probed path ${new URL(record.resource).pathname}`,
        transient: false,
      };
    }
    if (record.expected) {
      const difference = requirementsDifference(JSON.parse(record.expected) as Payment[], challenge.accepts);
      if (difference) return { ok: false, reason: 'requirements_mismatch', detail: difference, transient: false };
    }
    return { ok: true, challenge };
  }

}

/** v2 sends the challenge in the PAYMENT-REQUIRED header (its body may be empty or HTML); v1 in the JSON body. */
function readChallenge(response: SafeResponse): unknown {
  const header = response.headers[HEADERS.paymentRequired.toLowerCase()];
  if (typeof header === 'string' && header.length > 0) return decodeChallengeHeader(header);
  const text = response.body.toString('utf8');
  if (text.trim().length === 0) throw new ChallengeError('the 402 carries neither a PAYMENT-REQUIRED header nor a JSON body');
  try {
    return JSON.parse(text);
  } catch {
    throw new ChallengeError('the 402 body is not JSON and there is no PAYMENT-REQUIRED header');
  }
}
