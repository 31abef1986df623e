/**
 * Paid tools for MCP servers built with @modelcontextprotocol/sdk (docs/sdk.md; the x402 MCP
 * transport): a call without payment gets an error result carrying the payment requirements (the
 * x402 v2 `PaymentRequired` in `_meta["x402/payment-required"]`, `content[0]` and
 * `structuredContent` when the tool has no output schema; the same requirements in x402 v1 form in
 * `content[1]`, for v1 clients such as x402-mcp); a call with a payment (`_meta["x402/payment"]`,
 * x402-mcp's `_meta["x402.payment"]`, or an `X-Payment` / `PAYMENT-SIGNATURE` header on the
 * Streamable HTTP request) is verified, the tool runs, then the payment is settled and the receipt
 * returned in `_meta["x402/payment-response"]`. A tool result with `isError` is not charged.
 * `publish()` lists the tools in the catalog with the seller token, retrying until the service
 * answers, with the JSON Schemas the server's own `tools/list` gives (listedSchemas.ts).
 */
import type { McpServer, RegisteredTool, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AnySchema, ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { listedSchemas, type ListedSchemas, type ToolDefinition } from './listedSchemas.js';
import { listingPayment, parsePaymentPayload, paymentRequiredV1, paymentRequiredV2, settlePayment, verifyPayment, type PaidResource } from './payment.js';
import { PaymentClaims } from './paymentClaims.js';
import { buildRequirements, type PriceOptions } from './price.js';
import { Publisher, type PublishOutcome, type PublisherOptions, type ToolListing } from './publisher.js';
import { ServiceClient, type FetchLike, type ServiceClientOptions } from './serviceClient.js';
import type { PaymentRequirements } from '../x402/wire.js';
import type { Payment } from '../shapes/listing.js';

export const META = {
  payment: 'x402/payment',
  /** x402-mcp (v1) sends the base64 payment header value under this key. */
  paymentLegacy: 'x402.payment',
  paymentResponse: 'x402/payment-response',
  paymentRequired: 'x402/payment-required',
} as const;

export interface PaidMcpOptions extends Omit<PriceOptions, 'price' | 'amount'> {
  serviceUrl: string;
  /** `mcp://<host>`: each tool is published as `<serverUri>/<tool name>`. */
  serverUri: string;
  /** Seller token from the operator (`npm run tokens -- issue --host <host>`); needed to publish. */
  sellerToken?: string;
  fetch?: FetchLike;
  timeoutMs?: number;
  publishRetry?: Omit<PublisherOptions, 'onError'>;
  onError?: (err: Error) => void;
  /** What the service cataloged from a payment's discovery metadata (default: one console line, `logCatalogOutcome`). */
  onCatalogOutcome?: ServiceClientOptions['onCatalogOutcome'];
}

export interface PaidToolConfig<InputArgs extends ZodRawShapeCompat | AnySchema, OutputArgs extends ZodRawShapeCompat | AnySchema> {
  title?: string;
  description: string;
  inputSchema: InputArgs;
  outputSchema?: OutputArgs;
  tags?: string[];
  price: PriceOptions & { pricing?: Payment['pricing'] };
}

type RequestExtra = Parameters<ToolCallback<ZodRawShapeCompat>>[1];

/** The x402 bazaar discovery extension for an MCP tool (the shape @x402/extensions declares). */
function mcpDiscoveryExtension(toolName: string, description: string, inputSchema: Record<string, unknown>): Record<string, unknown> {
  return {
    info: { input: { type: 'mcp', toolName, description, inputSchema } },
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        input: {
          type: 'object',
          properties: { type: { type: 'string', const: 'mcp' }, toolName: { type: 'string' }, description: { type: 'string' }, inputSchema: { type: 'object' } },
          required: ['type', 'toolName', 'inputSchema'],
        },
      },
      required: ['input'],
    },
  };
}

function headerValue(extra: RequestExtra, name: string): string | undefined {
  const value = extra.requestInfo?.headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}

function paymentOf(extra: RequestExtra): unknown {
  const meta = extra._meta as Record<string, unknown> | undefined;
  return meta?.[META.payment] ?? meta?.[META.paymentLegacy] ?? headerValue(extra, 'x-payment') ?? headerValue(extra, 'payment-signature');
}

/**
 * `structuredContent` carries the requirements only for tools without an output schema: the MCP
 * client validates structured content against the output schema even on error results, so there
 * the requirements travel in `_meta` and the text content only. `content[0]` is the v2 answer the
 * x402 MCP transport defines; `content[1]` offers the same requirements to x402 v1 clients, as the
 * HTTP side's v1 body does beside its v2 header.
 */
function paymentRequiredResult(resource: PaidResource, error: string, hasOutputSchema: boolean): CallToolResult {
  const required = paymentRequiredV2(resource, error);
  return {
    isError: true,
    ...(hasOutputSchema ? {} : { structuredContent: required as unknown as Record<string, unknown> }),
    content: [
      { type: 'text', text: JSON.stringify(required) },
      { type: 'text', text: JSON.stringify(paymentRequiredV1(resource, error)) },
    ],
    _meta: { [META.paymentRequired]: required },
  };
}

export class PaidMcpServer {
  readonly client: ServiceClient;
  private readonly tools = new Map<string, { definition: ToolDefinition; listing: Omit<ToolListing, 'inputSchema' | 'outputSchema'> }>();
  /** Per tool, what the server's `tools/list` says (asked once, on the first challenge or publish). */
  private readonly listed = new Map<string, Promise<ListedSchemas>>();
  private publisher: Publisher | undefined;
  private readonly claims: PaymentClaims;

  constructor(
    readonly server: McpServer,
    private readonly options: PaidMcpOptions,
    /** Share one across per-request servers (stateless transport) so a payment pays for one call. */
    claims?: PaymentClaims,
  ) {
    this.claims = claims ?? new PaymentClaims();
    if (!/^mcp:\/\/[^/?#\s]+(\/[^?#\s]*)?$/i.test(options.serverUri)) throw new Error(`serverUri must look like mcp://<host>, got ${options.serverUri}`);
    this.client = new ServiceClient({ serviceUrl: options.serviceUrl, ...(options.fetch ? { fetch: options.fetch } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.onCatalogOutcome ? { onCatalogOutcome: options.onCatalogOutcome } : {}) });
  }

  /** Registers a paid tool on the McpServer (same schemas and callback as `registerTool`). */
  tool<InputArgs extends ZodRawShapeCompat | AnySchema, OutputArgs extends ZodRawShapeCompat | AnySchema = ZodRawShapeCompat>(
    name: string,
    config: PaidToolConfig<InputArgs, OutputArgs>,
    handler: ToolCallback<InputArgs>,
  ): RegisteredTool {
    const { pricing, ...price } = config.price;
    const defaults = Object.fromEntries(
      Object.entries({ network: this.options.network, asset: this.options.asset, payTo: this.options.payTo, scheme: this.options.scheme, maxTimeoutSeconds: this.options.maxTimeoutSeconds }).filter(([, v]) => v !== undefined),
    );
    const requirements: PaymentRequirements = buildRequirements({ ...defaults, ...price });
    const definition: ToolDefinition = {
      description: config.description,
      inputSchema: config.inputSchema,
      ...(config.outputSchema ? { outputSchema: config.outputSchema } : {}),
    };
    // x402 v1 has no extensions: its discovery hint is the requirements' outputSchema, which the
    // facilitator reads to credit a v1 payment (x402-mcp's) to the tool's listing.
    const v1Input = { type: 'mcp', toolName: name, description: config.description };
    const resource: PaidResource = {
      url: `${this.options.serverUri.replace(/\/+$/, '')}/${name}`,
      description: config.description,
      mimeType: 'application/json',
      accepts: [requirements],
      outputSchemaV1: { input: v1Input },
    };
    this.tools.set(name, {
      definition,
      listing: {
        type: 'mcp',
        resource: resource.url,
        name,
        description: config.description,
        ...(config.tags ? { tags: config.tags } : {}),
        payment: listingPayment(requirements, pricing),
      },
    });

    const challenge = async (error: string): Promise<CallToolResult> => {
      let discovery: Pick<PaidResource, 'extensions' | 'outputSchemaV1'> = {};
      try {
        // Buyers' clients echo this into the payment, so the facilitator credits the tool's listing.
        const { inputSchema } = await this.schemasOf(name);
        discovery = { extensions: { bazaar: mcpDiscoveryExtension(name, config.description, inputSchema) }, outputSchemaV1: { input: { ...v1Input, inputSchema } } };
      } catch (err) {
        this.options.onError?.(err as Error);
      }
      return paymentRequiredResult({ ...resource, ...discovery }, error, config.outputSchema !== undefined);
    };
    const run = handler as unknown as (args: unknown, extra: RequestExtra) => CallToolResult | Promise<CallToolResult>;
    const paidHandler = async (args: unknown, extra: RequestExtra): Promise<CallToolResult> => {
      const raw = paymentOf(extra);
      if (raw === undefined) return challenge('Payment required');
      const payload = parsePaymentPayload(raw);
      if (!payload) return challenge('invalid_payload: x402/payment is not an x402 payment payload');
      const claim = PaymentClaims.keyOf(payload);
      if (!this.claims.claim(claim)) return challenge('payment_already_used: this payment is already paying for another call');
      const unavailable = (err: unknown): CallToolResult => {
        this.options.onError?.(err as Error);
        return { isError: true, content: [{ type: 'text', text: 'facilitator_unavailable: the payment could not be processed right now; retry shortly.' }] };
      };
      // Anything but a successful settlement leaves the payment unspent, so it may be used again.
      let charged = false;
      try {
        let verified;
        try {
          verified = await verifyPayment(this.client, resource, payload);
        } catch (err) {
          return unavailable(err);
        }
        if ('status' in verified) return challenge(verified.message ? `${verified.reason}: ${verified.message}` : verified.reason);
        const result = await run(args, extra);
        if (result.isError) return result;
        let outcome;
        try {
          outcome = await settlePayment(this.client, verified);
        } catch (err) {
          return unavailable(err);
        }
        if (outcome.status === 'rejected') return challenge(outcome.message ? `${outcome.reason}: ${outcome.message}` : outcome.reason);
        charged = true;
        return { ...result, _meta: { ...result._meta, [META.paymentResponse]: outcome.settlement } };
      } finally {
        if (!charged) this.claims.release(claim);
      }
    };
    return this.server.registerTool(
      name,
      {
        ...(config.title ? { title: config.title } : {}),
        description: config.description,
        inputSchema: config.inputSchema,
        ...(config.outputSchema ? { outputSchema: config.outputSchema } : {}),
        _meta: { 'x402/price': requirements },
      },
      paidHandler as unknown as ToolCallback<InputArgs>,
    );
  }

  private schemasOf(name: string): Promise<ListedSchemas> {
    let schemas = this.listed.get(name);
    if (!schemas) {
      schemas = listedSchemas(this.server, name, this.tools.get(name)!.definition);
      this.listed.set(name, schemas);
    }
    return schemas;
  }

  /** The catalog listings the declared tools publish as, with the JSON Schemas the server lists. */
  async toolListings(): Promise<ToolListing[]> {
    return Promise.all([...this.tools].map(async ([name, { listing }]) => ({ ...listing, ...(await this.schemasOf(name)) }) as ToolListing));
  }

  /** Publishes every declared tool; retries until the service answers. Call once on startup. */
  async publish(): Promise<PublishOutcome[]> {
    if (!this.options.sellerToken) throw new Error('publishing needs sellerToken');
    this.publisher?.stop();
    this.publisher = new Publisher(this.client, this.options.sellerToken, {
      ...this.options.publishRetry,
      onError: (err) => this.options.onError?.(err),
    });
    return this.publisher.publishAll(await this.toolListings());
  }

  /** Stops publish retries (the server's own transport is closed by its owner). */
  close(): void {
    this.publisher?.stop();
  }
}
