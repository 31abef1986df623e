/**
 * A seller takes its own HTTP listing out of the catalog and keeps it out (issue 43, item 10: the
 * "unindex" x402 sellers ask for; removing the discovery extension does not do it, since a probe,
 * an upstream or a site file can name the resource again). Only the seller may: it proves the
 * listing is its own with a seller token bound to the resource's host, or with a message signed by
 * a `payTo` key of the listing (EIP-191, as x402scan's ownership proofs are), fresh within
 * SIGNATURE_FRESH_MS so an old signature is no standing licence. The opt-out
 * (store/redis/optOuts.ts) removes the listing (reason `opted_out`: the change feed carries the
 * tombstone) and holds against re-probes, traffic, manifests and federation (the probe refuses the
 * resource without fetching it, the catalog writer refuses to list it) until the seller lifts it.
 */
import { Ajv } from 'ajv';
import { recoverMessageAddress, type Hex } from 'viem';
import { httpListingId, InvalidResourceError } from '../catalog/identity.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import type { Clock } from '../core/clock.js';
import { Forbidden, InvalidInput, Unauthorized } from '../core/errors.js';
import { HTTP_METHODS } from '../core/httpMethods.js';
import { isListingId } from '../core/listingId.js';
import type { ListingDocument } from '../store/listingDocument.js';
import type { OptOutRecord, OptOuts } from '../store/redis/optOuts.js';
import { hostIsBound, resourceAuthority } from './hostBinding.js';
import type { SellerTokenStore } from './sellerTokens.js';

/** A signed opt-out or lift is accepted this long around its `signedAt`. */
export const SIGNATURE_FRESH_MS = 10 * 60_000;

const schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 64 },
    resource: { type: 'string', minLength: 1, maxLength: 2048 },
    method: { type: 'string', enum: [...HTTP_METHODS] },
    reason: { type: 'string', maxLength: 200 },
    proof: {
      type: 'object',
      required: ['payTo', 'signature', 'signedAt'],
      additionalProperties: false,
      properties: {
        payTo: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
        signature: { type: 'string', pattern: '^0x[0-9a-fA-F]{130}$' },
        signedAt: { type: 'string', format: 'date-time', maxLength: 40 },
      },
    },
  },
} as const;
const validate = new Ajv({ allErrors: true, strict: true, formats: { 'date-time': (v: string) => !Number.isNaN(Date.parse(v)) } }).compile(schema);

export interface OptOutBody {
  id?: string;
  resource?: string;
  method?: string;
  reason?: string;
  proof?: { payTo: string; signature: string; signedAt: string };
}

export type OptOutAction = 'opt-out' | 'lift';

/** The text a payTo key signs (personal_sign): what, which listing, when. */
export function optOutMessage(action: OptOutAction, listingId: string, signedAt: string): string {
  return `x402 discovery ${action}\nlisting: ${listingId}\nsigned at: ${signedAt}`;
}

export interface OptOutState {
  id: string;
  resource: string;
  method: string;
  optedOut: boolean;
  reason?: string;
  at?: string;
}

const invalid = (message: string, path = '(root)') => new InvalidInput('invalid_optout', `The opt-out is invalid: ${message}.`, [{ path, message }]);

export class OptOutService {
  constructor(
    private readonly deps: { optOuts: OptOuts; writer: CatalogWriter; reader: CatalogReader; tokens: Pick<SellerTokenStore, 'authenticate'>; clock: Clock },
  ) {}

  /** Takes the listing out and keeps it out; `bearer` is the seller token sent, if any. */
  async optOut(body: unknown, bearer: string | undefined): Promise<OptOutState> {
    const { request, id, resource, method, listing } = await this.read(body);
    const by = await this.prove('opt-out', id, resource, listing, request, bearer);
    const record: OptOutRecord = { resource, method, reason: request.reason ?? '', by, at: this.deps.clock() };
    await this.deps.optOuts.set(id, record);
    if (listing && !listing.removed) await this.deps.writer.remove(id, 'opted_out');
    return this.state(id, resource, method, record);
  }

  /** Lets the resource be listed again (by its next probe, announce or publish); nothing is relisted here. */
  async lift(body: unknown, bearer: string | undefined): Promise<OptOutState> {
    const { request, id, resource, method, listing } = await this.read(body);
    await this.prove('lift', id, resource, listing, request, bearer);
    await this.deps.optOuts.lift(id);
    return this.state(id, resource, method, undefined);
  }

  private state(id: string, resource: string, method: string, record: OptOutRecord | undefined): OptOutState {
    return { id, resource, method, optedOut: record !== undefined, ...(record ? { reason: record.reason, at: new Date(record.at).toISOString() } : {}) };
  }

  /** The listing the body names (by id, or by resource and method) and what is stored of it. */
  private async read(body: unknown): Promise<{ request: OptOutBody; id: string; resource: string; method: string; listing: ListingDocument | undefined }> {
    if (!validate(body)) {
      const first = validate.errors?.[0];
      throw invalid(first?.message ?? 'must be an object', first?.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(root)');
    }
    const request = body as OptOutBody;
    if (request.id !== undefined) {
      if (!isListingId(request.id)) throw invalid('id must be a listing id (lst_...)', 'id');
      const listing = await this.deps.reader.get(request.id);
      const opted = listing ? undefined : await this.deps.optOuts.get(request.id);
      if (!listing && !opted) throw invalid('nothing is listed under this id; name the resource (and method) instead', 'id');
      if (listing && listing.type !== 'http') throw invalid('an MCP tool is removed by its seller with DELETE /discovery/publish/{id}', 'id');
      return { request, id: request.id, resource: listing?.resource ?? opted!.resource, method: listing?.method ?? opted!.method, listing };
    }
    if (request.resource === undefined) throw invalid('give the listing id or its resource', 'resource');
    const method = request.method ?? 'GET';
    let id: string;
    try {
      id = httpListingId(request.resource, method);
    } catch (err) {
      if (err instanceof InvalidResourceError) throw invalid(err.message, 'resource');
      throw err;
    }
    return { request, id, resource: request.resource, method, listing: await this.deps.reader.get(id) };
  }

  /** How the seller proved the listing is its own (`token:<id>` or `payTo:<address>`), or why not. */
  private async prove(action: OptOutAction, id: string, resource: string, listing: ListingDocument | undefined, request: OptOutBody, bearer: string | undefined): Promise<string> {
    if (bearer !== undefined) {
      const check = await this.deps.tokens.authenticate(bearer);
      if (!check.ok) throw new Unauthorized(`The bearer token ${check.reason === 'revoked' ? 'has been revoked' : 'is not a valid seller token'}.`, check.reason);
      const authority = resourceAuthority(resource);
      if (!authority || !hostIsBound(check.token.hosts, authority)) throw new Forbidden(`This seller token is bound to ${check.token.hosts.join(', ')}, not to ${authority ?? resource}.`);
      return `token:${check.token.id}`;
    }
    const proof = request.proof;
    if (!proof) throw new Unauthorized('Prove the listing is yours: a seller token bound to its host (Authorization: Bearer), or proof signed by one of its payTo keys.');
    const signedAt = Date.parse(proof.signedAt);
    if (Math.abs(this.deps.clock() - signedAt) > SIGNATURE_FRESH_MS) throw invalid(`proof.signedAt must be within ${SIGNATURE_FRESH_MS / 60_000} minutes of now`, 'proof.signedAt');
    const payTos = listing ? [listing.payment, ...(listing.accepts ?? [])].map((o) => o.payTo?.toLowerCase()).filter((p): p is string => p !== undefined) : [];
    if (!payTos.includes(proof.payTo.toLowerCase())) {
      throw new Forbidden(listing ? `${proof.payTo} is not a payTo of this listing.` : 'Nothing is stored for this resource to prove a payTo against; use a seller token bound to its host.');
    }
    let signer: string;
    try {
      signer = await recoverMessageAddress({ message: optOutMessage(action, id, proof.signedAt), signature: proof.signature as Hex });
    } catch {
      throw new Forbidden('The proof signature cannot be recovered.');
    }
    if (signer.toLowerCase() !== proof.payTo.toLowerCase()) throw new Forbidden(`The proof is not signed by ${proof.payTo} (the message is: ${JSON.stringify(optOutMessage(action, id, proof.signedAt))}).`);
    return `payTo:${proof.payTo.toLowerCase()}`;
  }
}
