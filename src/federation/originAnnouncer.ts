/**
 * Announcing an origin (POST /discovery/announce with `origin`): the service reads the origin's
 * `/.well-known/x402` and `/openapi.json` under the probe's rules (SSRF address policy, per-host
 * rate, timeout, size cap) and queues every resource they name for the probe, with the manifest
 * as provenance. The status (GET /discovery/announce/status?origin=) shows each resource with its
 * probe's outcome, and each manifest with what was read from it.
 */
import { Ajv } from 'ajv';
import type { AnnounceSettings } from '../config/announceSettings.js';
import type { FederationSettings } from '../config/federationSettings.js';
import type { Clock } from '../core/clock.js';
import { InvalidInput, NotFound, RateLimited } from '../core/errors.js';
import type { AnnounceService } from '../announce/announceService.js';
import { ProbeAllowList } from '../probe/addressPolicy.js';
import { FetchFailure, resolveFetchTarget, safeFetch, type CheckedAddress } from '../probe/safeFetch.js';
import type { ProbeStore } from '../store/redis/probeStore.js';
import type { FederationStore } from '../store/redis/federationStore.js';
import { ManifestShapeError, parseOpenApi, parseWellKnown, SKIPPED_SAMPLE, type ManifestContent } from './manifest.js';
import { outcomeOf, type ItemOutcome } from './upstreamCrawler.js';

export const MANIFEST_PATHS = { wellKnown: '/.well-known/x402', openapi: '/openapi.json' } as const;

export interface ManifestReport {
  url: string;
  /** read: its resources were taken; absent: not served (404/410); failed/invalid: why not in `detail`. */
  outcome: 'read' | 'absent' | 'failed' | 'invalid';
  shape?: ManifestContent['shape'];
  resources: number;
  detail?: string;
}

export interface OriginResource {
  resource: string;
  method: string;
  /** The listing id the probe records under (absent for entries that were skipped). */
  id?: string;
  outcome: ItemOutcome;
  /** Why the entry was skipped or refused. */
  reason?: string;
}

/**
 * What one announce of an origin found, bounded whatever the manifests hold (issue 43: 500 KB of
 * `items: [1,1,...]` stored a 21 MB record): every resource queued for the probe (at most
 * MANIFEST_MAX_RESOURCES), the first SKIPPED_SAMPLE entries that were skipped or over the limit, and
 * the count of every outcome.
 */
export interface OriginRecord {
  origin: string;
  announcedAt: string;
  manifests: ManifestReport[];
  resources: OriginResource[];
  counts: Partial<Record<ItemOutcome, number>>;
  /** Skipped entries counted in `counts` but not listed in `resources`. */
  omitted: number;
}

export interface OriginStatus extends Omit<OriginRecord, 'resources'> {
  resources: Array<OriginResource & { status?: string; detail?: string }>;
}

const ajv = new Ajv({ allErrors: true, strict: true });
const validateBody = ajv.compile({
  type: 'object',
  required: ['origin'],
  additionalProperties: false,
  properties: { origin: { type: 'string', minLength: 1, maxLength: 2048 } },
} as const);

const invalid = (message: string) => new InvalidInput('invalid_announce', `The announcement is invalid: origin ${message}.`, [{ path: 'origin', message }]);

/** `https://seller.example[:port]` from what was given (a path, query or fragment is dropped). */
export function canonicalOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('must be an absolute http(s) URL such as https://seller.example');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('must be an http or https URL');
  if (url.username || url.password) throw invalid('must not carry credentials');
  return url.origin;
}

export class OriginAnnouncer {
  private readonly allowList: ProbeAllowList;

  constructor(
    private readonly settings: FederationSettings,
    private readonly probe: AnnounceSettings,
    private readonly store: FederationStore,
    private readonly announce: AnnounceService,
    private readonly probes: ProbeStore,
    private readonly now: Clock,
  ) {
    this.allowList = new ProbeAllowList(probe.probeAllow);
  }

  async announceOrigin(body: unknown): Promise<OriginRecord> {
    if (!validateBody(body)) throw invalid('is required, as a string (and nothing else may be sent with it)');
    const origin = canonicalOrigin(body.origin);
    const record: OriginRecord = { origin, announcedAt: new Date(this.now()).toISOString(), manifests: [], resources: [], counts: {}, omitted: 0 };
    const contents: Array<{ url: string; content: ManifestContent }> = [];
    // One after the other: the probe's per-host pacing holds for manifests too.
    for (const [path, parse] of [[MANIFEST_PATHS.wellKnown, parseWellKnown], [MANIFEST_PATHS.openapi, parseOpenApi]] as const) {
      const url = `${origin}${path}`;
      const { report, content } = await this.read(url, parse);
      record.manifests.push(report);
      if (content) contents.push({ url, content });
    }
    await this.queue(record, contents);
    await this.store.saveOrigin(origin, record);
    return record;
  }

  private async read(url: string, parse: (body: unknown, url: string) => ManifestContent): Promise<{ report: ManifestReport; content?: ManifestContent }> {
    let target: CheckedAddress;
    try {
      target = await resolveFetchTarget(url, this.allowList, this.probe.probeTimeoutMs);
    } catch (err) {
      if (err instanceof FetchFailure) return { report: { url, outcome: 'failed', resources: 0, detail: `${err.reason}: ${err.message}` } };
      throw err;
    }
    // Paced per resolved address, as every probe (many names may point at one address).
    const slot = await this.probes.takeHostSlot(target.address, this.now(), this.probe.probeHostRatePerSecond, this.probe.probeTimeoutMs + 1000);
    if (!slot) {
      throw new RateLimited(`${new URL(url).host} is at its probe rate (PROBE_HOST_RATE ${this.probe.probeHostRatePerSecond}/s); retry in a second.`, 1, this.probe.probeHostRatePerSecond, 1);
    }
    try {
      return await this.fetchManifest(url, parse, target);
    } finally {
      await this.probes.releaseHostSlot(target.address, slot, this.now());
    }
  }

  private async fetchManifest(url: string, parse: (body: unknown, url: string) => ManifestContent, pinned: CheckedAddress): Promise<{ report: ManifestReport; content?: ManifestContent }> {
    try {
      const response = await safeFetch('GET', url, {
        allowList: this.allowList,
        timeoutMs: this.probe.probeTimeoutMs,
        maxBodyBytes: this.settings.manifestMaxBytes,
        readBodyFor: (status) => status === 200,
        pinned,
      });
      if (response.status === 404 || response.status === 410) return { report: { url, outcome: 'absent', resources: 0, detail: `answered ${response.status}` } };
      if (response.status !== 200) return { report: { url, outcome: 'failed', resources: 0, detail: `answered ${response.status}` } };
      const content = parse(JSON.parse(response.body.toString('utf8')) as unknown, url);
      return { report: { url, outcome: 'read', shape: content.shape, resources: content.claims.length }, content };
    } catch (err) {
      if (err instanceof FetchFailure) return { report: { url, outcome: 'failed', resources: 0, detail: `${err.reason}: ${err.message}` } };
      if (err instanceof ManifestShapeError || err instanceof SyntaxError) {
        return { report: { url, outcome: 'invalid', resources: 0, detail: err instanceof ManifestShapeError ? err.message : 'is not JSON' } };
      }
      throw err;
    }
  }

  private async queue(record: OriginRecord, contents: Array<{ url: string; content: ManifestContent }>): Promise<void> {
    const firstSeen = record.announcedAt;
    const seen = new Set<string>();
    let sampled = 0;
    const count = (outcome: ItemOutcome, n = 1) => (record.counts[outcome] = (record.counts[outcome] ?? 0) + n);
    const skip = (resource: string, method: string, reason: string) => {
      if (sampled < SKIPPED_SAMPLE) record.resources.push({ resource: resource.slice(0, 200), method, outcome: 'skipped', reason });
      else record.omitted += 1;
      sampled += 1;
      count('skipped');
    };
    for (const { url, content } of contents) {
      for (const skipped of content.skipped) skip(skipped.resource ?? '', 'GET', skipped.reason);
      // Counted by the parser beyond its own sample.
      const unseen = content.skippedCount - content.skipped.length;
      if (unseen > 0) {
        record.omitted += unseen;
        sampled += unseen;
        count('skipped', unseen);
      }
      for (const claim of content.claims) {
        const key = `${claim.method} ${claim.resource}`;
        if (seen.has(key)) continue;
        if (seen.size >= this.settings.manifestMaxResources) {
          skip(claim.resource, claim.method, `over MANIFEST_MAX_RESOURCES (${this.settings.manifestMaxResources})`);
          continue;
        }
        seen.add(key);
        const result = await this.announce.claim({
          resource: claim.resource,
          method: claim.method,
          provenance: { source: 'manifest', url, firstSeen, ...(Object.keys(claim.claims).length > 0 ? { claims: claim.claims } : {}) },
          // The seller asked: a refused resource is probed again as soon as an announce would be.
          rejectedRetryMs: this.probe.probeMinIntervalMs,
        });
        const outcome = outcomeOf(result);
        count(outcome);
        if ('invalid' in result) record.resources.push({ resource: claim.resource, method: claim.method, outcome, reason: result.invalid.slice(0, 200) });
        else record.resources.push({ resource: claim.resource, method: claim.method, id: result.id, outcome });
      }
    }
  }

  /** What the last announce of `origin` found, with each queued resource's probe outcome now. */
  async status(originParam: string): Promise<OriginStatus> {
    const origin = canonicalOrigin(originParam);
    const stored = (await this.store.origin(origin)) as OriginRecord | undefined;
    if (!stored) throw new NotFound(`No origin announce of ${origin} within the last 7 days.`);
    // Records from before counts were kept have none.
    const record: OriginRecord = { ...stored, counts: stored.counts ?? {}, omitted: stored.omitted ?? 0 };
    const resources = await Promise.all(
      record.resources.map(async (resource) => {
        if (!resource.id) return resource;
        try {
          const status = await this.announce.status({ id: resource.id });
          return { ...resource, status: status.status, ...(status.reason ? { reason: status.reason } : {}), ...(status.detail ? { detail: status.detail } : {}) };
        } catch (err) {
          if (err instanceof NotFound) return { ...resource, status: 'forgotten' };
          throw err;
        }
      }),
    );
    return { ...record, resources };
  }
}
