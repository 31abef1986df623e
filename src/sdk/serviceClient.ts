/**
 * HTTP calls from a seller to the discovery service / facilitator: /verify and /settle (x402
 * facilitator wire shapes), /discovery/announce and /discovery/publish. Every call has a timeout so
 * a slow service can never hold a seller's request or startup forever.
 */
import {
  decodeBase64Json,
  EXTENSION_RESPONSES_HEADER,
  type BazaarOutcome,
  type PaymentPayload,
  type PaymentRequirements,
  type PaymentRequirementsV1,
  type SettleResponse,
  type VerifyResponse,
} from '../x402/wire.js';

export type FetchLike = typeof fetch;

export interface ServiceClientOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:8080`. */
  serviceUrl: string;
  fetch?: FetchLike;
  /** Per-call timeout for verify/settle (default 10 s). */
  timeoutMs?: number;
  /** What the service did with a paid resource's discovery metadata (default: `logCatalogOutcome`). */
  onCatalogOutcome?: (event: CatalogOutcomeEvent) => void;
}

/** The Bazaar outcome of one /verify or /settle (the service's EXTENSION-RESPONSES `bazaar` member). */
export interface CatalogOutcomeEvent extends BazaarOutcome {
  operation: 'verify' | 'settle';
  /** The paid resource's URL as the payment named it. */
  resource?: string;
}

/** The default: one console line per outcome, so a seller sees whether the endpoint is listed. */
export function logCatalogOutcome(event: CatalogOutcomeEvent): void {
  const why = event.rejectedReason ? `: ${event.rejectedReason}` : '';
  console.info(`[x402 discovery] ${event.operation} ${event.resource ?? ''} -> catalog ${event.status}${why}`);
}

/** The service answered with a status that is not success; `retryable` for 5xx, 429 and network errors. */
export class ServiceCallError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ServiceCallError';
  }

  get retryable(): boolean {
    return this.status === undefined || this.status >= 500 || this.status === 429 || this.status === 408;
  }
}

export class ServiceClient {
  readonly baseUrl: string;
  private readonly fetchImpl: FetchLike;
  private readonly timeoutMs: number;
  private readonly onCatalogOutcome: (event: CatalogOutcomeEvent) => void;

  constructor(options: ServiceClientOptions) {
    this.baseUrl = options.serviceUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.onCatalogOutcome = options.onCatalogOutcome ?? logCatalogOutcome;
  }

  async call<T>(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T; headers: Headers }> {
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new ServiceCallError(`${method} ${path}: ${(err as Error).message}`, undefined, undefined);
    }
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (!response.ok) {
      const detail = (parsed as { detail?: string } | undefined)?.detail;
      throw new ServiceCallError(`${method} ${path}: HTTP ${response.status}${detail ? ` (${detail})` : ''}`, response.status, parsed);
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  /** x402 `/verify`; an answer with `isValid: false` is a result, not an error. */
  async verify(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements | PaymentRequirementsV1): Promise<VerifyResponse> {
    return this.facilitatorCall<VerifyResponse>('/verify', paymentPayload, paymentRequirements);
  }

  async settle(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements | PaymentRequirementsV1): Promise<SettleResponse> {
    return this.facilitatorCall<SettleResponse>('/settle', paymentPayload, paymentRequirements);
  }

  private async facilitatorCall<T>(path: string, paymentPayload: PaymentPayload, paymentRequirements: unknown): Promise<T> {
    try {
      const result = await this.call<T>('POST', path, { x402Version: paymentPayload.x402Version, paymentPayload, paymentRequirements });
      this.reportCatalogOutcome(path === '/verify' ? 'verify' : 'settle', result.headers, paymentPayload, paymentRequirements);
      return result.body;
    } catch (err) {
      // Facilitators answer a refused payment with 400 and the x402 result body; that is an answer.
      if (err instanceof ServiceCallError && err.status === 400 && isX402Result(err.body)) return err.body as T;
      throw err;
    }
  }

  private reportCatalogOutcome(operation: 'verify' | 'settle', headers: Headers, paymentPayload: PaymentPayload, paymentRequirements: unknown): void {
    const outcome = bazaarOutcomeOf(headers);
    if (!outcome) return;
    const v1Resource = (paymentRequirements as { resource?: unknown }).resource;
    const resource = paymentPayload.resource?.url ?? (typeof v1Resource === 'string' ? v1Resource : undefined);
    try {
      this.onCatalogOutcome({ operation, ...(resource ? { resource } : {}), ...outcome });
    } catch {
      // A seller's logging hook must not fail the payment.
    }
  }
}

/** The `bazaar` member of an EXTENSION-RESPONSES header, when it is well formed. */
function bazaarOutcomeOf(headers: Headers): BazaarOutcome | undefined {
  const header = headers.get(EXTENSION_RESPONSES_HEADER);
  const bazaar = header ? decodeBase64Json<{ bazaar?: unknown }>(header)?.bazaar : undefined;
  if (typeof bazaar !== 'object' || bazaar === null) return undefined;
  const { status, rejectedReason } = bazaar as Record<string, unknown>;
  if (status !== 'success' && status !== 'processing' && status !== 'rejected') return undefined;
  return { status, ...(typeof rejectedReason === 'string' ? { rejectedReason } : {}) };
}

function isX402Result(body: unknown): boolean {
  return typeof body === 'object' && body !== null && ('isValid' in body || 'success' in body);
}
