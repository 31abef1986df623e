/**
 * Express middleware for sellers: `seller.paid({ price, describe })` on a route answers unpaid
 * requests with an x402 402 challenge (v2 `PAYMENT-REQUIRED` header and a v1-compatible JSON body,
 * both carrying the listing's `describe` block), verifies and settles a presented payment through
 * the service, and announces the route to the service on its first 402, in the background.
 */
import type { Request, RequestHandler, Response } from 'express';
import { Announcer, type AnnouncerOptions } from './announcer.js';
import { collectPayment, paymentRequiredV1, paymentRequiredV2, parsePaymentPayload, type PaidResource } from './payment.js';
import { PaymentClaims } from './paymentClaims.js';
import { buildRequirements, type PriceOptions } from './price.js';
import { ServiceClient, type FetchLike, type ServiceClientOptions } from './serviceClient.js';
import { encodeBase64Json, HEADERS, type Describe, type PaymentRequirements, type SettleResponse } from '../x402/wire.js';

export interface SellerOptions extends Omit<PriceOptions, 'price' | 'amount'> {
  /** Base URL of the discovery service / facilitator, e.g. `http://127.0.0.1:8080`. */
  serviceUrl: string;
  /**
   * The seller's public base URL (`https://api.example.com`), used in `resource` and announces.
   * Default: the request's own protocol and Host header, which the client chooses: set it in
   * production, or a request with a made-up Host gets that host announced.
   */
  publicUrl?: string;
  /** `false` turns announcing off; an object tunes batching and retries. */
  announce?: boolean | AnnouncerOptions;
  fetch?: FetchLike;
  /** Timeout of /verify and /settle calls (default 10 s). */
  timeoutMs?: number;
  /** Background errors (announce failures); default: ignored. */
  onError?: (err: Error) => void;
  /** What the service cataloged from a payment's discovery metadata (default: one console line, `logCatalogOutcome`). */
  onCatalogOutcome?: ServiceClientOptions['onCatalogOutcome'];
}

export interface PaidRouteOptions extends PriceOptions {
  describe?: Describe;
  /** Resource description in the challenge; default `describe.description` or `describe.title`. */
  description?: string;
  mimeType?: string;
  /** More payment options besides the main one (another network or asset). */
  alsoAccept?: PriceOptions[];
}

/** What a paid handler finds in `res.locals.x402`. */
export interface PaymentReceipt {
  payer?: string;
  settlement: SettleResponse;
  requirements: PaymentRequirements;
}

export interface Seller {
  paid(route: PaidRouteOptions): RequestHandler;
  readonly client: ServiceClient;
  readonly announcer: Announcer | undefined;
  /** Flushes pending announces and stops the background timer. */
  close(): Promise<void>;
}

/** `/users/:id` from Express (with the router's mount path); undefined for static or exotic paths. */
function routeTemplateOf(req: Request): string | undefined {
  const path: unknown = req.route?.path;
  if (typeof path !== 'string' || !path.includes(':') || /[*?{}()]/.test(path)) return undefined;
  return `${req.baseUrl}${path}`;
}

/** The x402 bazaar discovery extension (v2): method and route template; inputs travel in `describe`. */
function bazaarExtension(method: string, routeTemplate: string | undefined): Record<string, unknown> {
  return {
    info: { input: { type: 'http', method } },
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { input: { type: 'object', properties: { type: { const: 'http' }, method: { enum: [method] } }, required: ['type', 'method'] } },
      required: ['input'],
    },
    ...(routeTemplate ? { routeTemplate } : {}),
  };
}

export function createSeller(options: SellerOptions): Seller {
  const client = new ServiceClient({ serviceUrl: options.serviceUrl, ...(options.fetch ? { fetch: options.fetch } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.onCatalogOutcome ? { onCatalogOutcome: options.onCatalogOutcome } : {}) });
  const announcer =
    options.announce === false
      ? undefined
      : new Announcer(client, { ...(typeof options.announce === 'object' ? options.announce : {}), onError: (err) => options.onError?.(err) });
  const publicBase = options.publicUrl?.replace(/\/+$/, '');
  const claims = new PaymentClaims();

  function paid(route: PaidRouteOptions): RequestHandler {
    const defaults = { network: options.network, asset: options.asset, payTo: options.payTo, scheme: options.scheme, maxTimeoutSeconds: options.maxTimeoutSeconds };
    const merge = (p: PriceOptions): PriceOptions => ({ ...stripUndefined(defaults), ...stripUndefined(p) });
    // Built once, so a misconfigured price fails at startup rather than on the first request.
    const accepts = [buildRequirements(merge(route)), ...(route.alsoAccept ?? []).map((p) => buildRequirements(merge(p)))];
    const description = route.description ?? route.describe?.description ?? route.describe?.title ?? '';
    const mimeType = route.mimeType ?? 'application/json';

    return async (req, res, next) => {
      const routeTemplate = routeTemplateOf(req);
      const url = `${publicBase ?? `${req.protocol}://${req.get('host')}`}${req.baseUrl}${req.path}`;
      const resource: PaidResource = {
        url,
        description,
        mimeType,
        accepts,
        ...(route.describe ? { describe: route.describe } : {}),
        extensions: { bazaar: bazaarExtension(req.method, routeTemplate) },
        outputSchemaV1: { input: { type: 'http', method: req.method, discoverable: true } },
      };
      const header = req.get(HEADERS.paymentSignature) ?? req.get(HEADERS.xPayment);
      if (!header) {
        challenge(res, resource, 'Payment required');
        announcer?.enqueue({ resource: url, method: req.method, ...(routeTemplate ? { routeTemplate } : {}), challenge: { ...paymentRequiredV2(resource) } });
        return;
      }
      const payload = parsePaymentPayload(header);
      if (!payload) return challenge(res, resource, 'invalid_payload: the payment header is not base64 JSON of an x402 payment');
      const claim = PaymentClaims.keyOf(payload);
      if (!claims.claim(claim)) return challenge(res, resource, 'payment_already_used: this payment is already paying for another request');
      let outcome;
      try {
        outcome = await collectPayment(client, resource, payload);
      } catch (err) {
        claims.release(claim);
        options.onError?.(err as Error);
        res.status(503).setHeader('Retry-After', '5');
        res.json({ error: 'facilitator_unavailable', detail: 'The payment could not be verified right now; retry shortly.' });
        return;
      }
      if (outcome.status === 'rejected') {
        claims.release(claim);
        return challenge(res, resource, outcome.message ? `${outcome.reason}: ${outcome.message}` : outcome.reason);
      }
      const encoded = encodeBase64Json(outcome.settlement);
      res.setHeader(outcome.version === 2 ? HEADERS.paymentResponse : HEADERS.xPaymentResponse, encoded);
      res.setHeader('Access-Control-Expose-Headers', `${HEADERS.paymentResponse}, ${HEADERS.xPaymentResponse}`);
      const receipt: PaymentReceipt = { settlement: outcome.settlement, requirements: outcome.requirements, ...(outcome.settlement.payer ? { payer: outcome.settlement.payer } : {}) };
      res.locals.x402 = receipt;
      next();
    };
  }

  return {
    paid,
    client,
    announcer,
    close: async () => {
      await announcer?.close();
    },
  };
}

function challenge(res: Response, resource: PaidResource, error: string): void {
  res.status(402);
  res.setHeader(HEADERS.paymentRequired, encodeBase64Json(paymentRequiredV2(resource, error)));
  res.setHeader('Access-Control-Expose-Headers', HEADERS.paymentRequired);
  res.setHeader('Cache-Control', 'no-store');
  res.json(paymentRequiredV1(resource, error));
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
