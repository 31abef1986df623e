/**
 * POST /discovery/announce and the status lookup. Announcing only validates, computes the id the
 * listing will have and queues a probe (deduplicated per id and interval, atomically in Redis);
 * the probe itself runs in ProbeWorker, so an announce costs two Redis round trips.
 */
import { Ajv, type ErrorObject } from 'ajv';
import type { AnnounceSettings } from '../config/announceSettings.js';
import { HTTP_METHODS } from '../core/httpMethods.js';
import { isListingId } from '../core/listingId.js';
import { canonicalizeHttpUrl, httpListingId, InvalidResourceError } from '../catalog/identity.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { Discovered } from '../shapes/listing.js';
import { DomainError, InvalidInput, NotFound, Unavailable, type FieldError } from '../core/errors.js';
import { ChallengeError, parseAnnouncedChallenge, paymentOf, type ParsedChallenge } from '../probe/challenge.js';
import type { ProbeRecord, ProbeStatus, ProbeStore } from '../store/redis/probeStore.js';
import type { AnnounceStatus } from '../shapes/announceStatus.js';
import { isValidRouteTemplate, templateMatchesPath } from '../x402/routeTemplate.js';
import { systemClock, type Clock } from '../core/clock.js';


const announceSchema = {
  type: 'object',
  required: ['resource'],
  additionalProperties: false,
  properties: {
    resource: { type: 'string', minLength: 1, maxLength: 2048 },
    method: { type: 'string', enum: [...HTTP_METHODS, ...HTTP_METHODS.map((m) => m.toLowerCase())] },
    routeTemplate: { type: 'string', minLength: 1, maxLength: 512 },
    challenge: { type: ['object', 'string'], maxLength: 60_000 },
  },
} as const;

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const validateBody = ajv.compile(announceSchema);

export interface AnnounceBody {
  resource: string;
  method?: string;
  routeTemplate?: string;
  /** A v1 challenge body / decoded v2 PaymentRequired object, or the raw PAYMENT-REQUIRED header value. */
  challenge?: Record<string, unknown> | string;
}

export interface AnnounceResult {
  id: string;
  status: ProbeStatus;
  /** True when an earlier announce's probe (queued, running or within the interval) answers this one. */
  deduplicated: boolean;
}

export interface ClaimRequest {
  resource: string;
  method: string;
  provenance: Discovered;
  /** A refused resource is probed again at most this often on claims. */
  rejectedRetryMs: number;
}

export type ClaimResult = { id: string; queued: boolean; status: ProbeStatus } | { invalid: string };

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function fieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  return (errors ?? []).map((e) => {
    const params = e.params as Record<string, unknown>;
    const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (e.keyword === 'required') return { path: String(params.missingProperty), message: 'is required' };
    if (e.keyword === 'additionalProperties') return { path: String(params.additionalProperty), message: 'is not an accepted field' };
    return { path: base || '(root)', message: e.message ?? 'is invalid' };
  });
}

const invalid = (errors: FieldError[]) =>
  new InvalidInput('invalid_announce', `The announcement is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`, errors);

export class AnnounceService {
  constructor(
    private readonly settings: AnnounceSettings,
    private readonly store: ProbeStore,
    private readonly reader: CatalogReader,
    private readonly onQueued: () => void = () => {},
    private readonly now: Clock = systemClock,
  ) {}

  async announce(body: unknown): Promise<AnnounceResult> {
    if (!validateBody(body)) throw invalid(fieldErrors(validateBody.errors));
    const request = body as AnnounceBody;
    let challenge: ParsedChallenge | undefined;
    if (request.challenge !== undefined) {
      try {
        challenge = parseAnnouncedChallenge(request.challenge);
      } catch (err) {
        if (err instanceof ChallengeError) throw invalid([{ path: 'challenge', message: err.message }]);
        throw err;
      }
    }
    const method = (request.method ?? challenge?.method ?? 'GET').toUpperCase();
    const routeTemplate = request.routeTemplate ?? challenge?.routeTemplate;
    const { id, aliasId } = this.identify(request.resource, method, routeTemplate);

    const expected = challenge ? JSON.stringify(challenge.accepts.map(paymentOf)) : undefined;
    const { queued, status } = await this.queueUnavailableOnError(() => this.store.enqueue({
      id,
      ...(aliasId ? { aliasId } : {}),
      resource: request.resource,
      method,
      ...(routeTemplate ? { routeTemplate } : {}),
      ...(expected ? { expected } : {}),
      now: this.now(),
      minIntervalMs: this.settings.probeMinIntervalMs,
    }));
    if (queued) this.onQueued();
    return { id, status, deduplicated: !queued };
  }

  /**
   * Queues the probe of a resource another catalog or a site file names (src/federation): the same
   * identity and queue as an announce, with the claim's provenance, and nothing queued for a
   * resource already verified or refused recently. An unusable claim is reported, never thrown.
   */
  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const method = request.method.toUpperCase();
    if (!(HTTP_METHODS as readonly string[]).includes(method)) return { invalid: `${request.method} is not an HTTP method` };
    let id: string;
    try {
      id = this.identify(request.resource, method, undefined).id;
    } catch (err) {
      if (err instanceof InvalidInput) return { invalid: err.fieldErrors.map((e) => `${e.path} ${e.message}`).join('; ') };
      throw err;
    }
    const { queued, status } = await this.store.enqueue({
      id,
      resource: request.resource,
      method,
      now: this.now(),
      minIntervalMs: this.settings.probeMinIntervalMs,
      provenance: JSON.stringify(request.provenance),
      claim: { rejectedRetryMs: request.rejectedRetryMs, source: `${request.provenance.source}|${request.provenance.url}` },
    });
    if (queued) this.onQueued();
    return { id, queued, status };
  }

  /** Redis trouble is the service's, not the caller's: 503 with Retry-After, never a bare 500. */
  private async queueUnavailableOnError<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw new Unavailable('announce', 'Announcements cannot be queued or looked up right now; retry shortly.', 5);
    }
  }

  private identify(resource: string, method: string, routeTemplate: string | undefined): { id: string; aliasId?: string } {
    let url: URL;
    try {
      canonicalizeHttpUrl(resource);
      url = new URL(resource);
    } catch (err) {
      if (err instanceof InvalidResourceError) throw invalid([{ path: 'resource', message: err.message }]);
      throw err;
    }
    if (url.pathname.includes('%7B') || url.pathname.includes('{')) {
      throw invalid([{ path: 'resource', message: 'must be a concrete URL the service can fetch; send the template as routeTemplate' }]);
    }
    if (routeTemplate !== undefined) {
      if (!isValidRouteTemplate(routeTemplate)) throw invalid([{ path: 'routeTemplate', message: 'must be a path template such as /users/:id' }]);
      if (!templateMatchesPath(routeTemplate, url.pathname)) {
        throw invalid([{ path: 'routeTemplate', message: `does not match the resource path ${url.pathname}` }]);
      }
      return { id: httpListingId(resource, method, routeTemplate), aliasId: httpListingId(resource, method) };
    }
    return { id: httpListingId(resource, method) };
  }

  /** By listing id, or by the announced URL (+ method). */
  async status(query: { id?: string; resource?: string; method?: string }): Promise<AnnounceStatus> {
    let id: string;
    if (query.id !== undefined) {
      const given = query.id;
      id = isListingId(given) ? await this.queueUnavailableOnError(() => this.store.resolveAlias(given)) : given;
    } else if (query.resource !== undefined) {
      const method = (query.method ?? 'GET').toUpperCase();
      let concreteId: string;
      try {
        concreteId = httpListingId(query.resource, method);
      } catch (err) {
        if (err instanceof InvalidResourceError) throw invalid([{ path: 'resource', message: err.message }]);
        throw err;
      }
      id = await this.queueUnavailableOnError(() => this.store.resolveAlias(concreteId));
    } else {
      throw invalid([{ path: 'id', message: 'give either id (lst_...) or resource (the announced URL)' }]);
    }
    const record = isListingId(id) ? await this.queueUnavailableOnError(() => this.store.get(id)) : undefined;
    if (!record) return this.statusWithoutRecord(id);
    return this.reconcile(record);
  }

  /** The listing an announce id became (they differ when the 402 declared a routeTemplate). */
  async listingIdFor(id: string): Promise<string | undefined> {
    return (await this.store.get(id))?.listingId;
  }

  /** A listing can also come from traffic (verify/settle) without an announce. */
  private async statusWithoutRecord(id: string): Promise<AnnounceStatus> {
    const doc = isListingId(id) ? await this.reader.get(id) : undefined;
    if (!doc || doc.type !== 'http') throw new NotFound(`Nothing was announced or listed as ${id}.`);
    const status: AnnounceStatus = { id, resource: doc.resource, method: doc.method ?? 'GET', status: doc.removed ? 'rejected' : 'listed' };
    if (doc.removed) status.reason = doc.removedReason ?? 'removed';
    return status;
  }

  /** The record says listed, but the listing may since have been removed by someone else (unpublish, operator). */
  private async reconcile(record: ProbeRecord): Promise<AnnounceStatus> {
    const listingId = record.listingId ?? record.id;
    const view: AnnounceStatus = { id: listingId, resource: record.resource, method: record.method, status: record.status };
    if (listingId !== record.id) view.announcedId = record.id;
    if (record.routeTemplate) view.routeTemplate = record.routeTemplate;
    if (record.reason) view.reason = record.reason;
    if (record.detail) view.detail = record.detail;
    for (const key of ['announcedAt', 'lastProbedAt', 'listedAt', 'nextProbeAt'] as const) {
      const value = iso(record[key]);
      if (value) view[key] = value;
    }
    if (record.status === 'listed') {
      const doc = await this.reader.get(listingId);
      if (doc?.removed) {
        view.status = 'rejected';
        view.reason = doc.removedReason ?? 'removed';
      }
    }
    return view;
  }
}

