/**
 * The discovery tools agents call over MCP (docs/mcp.md): search_resources, list_resources and
 * get_resource. They are the HTTP catalog reads by other means: arguments become the same query a
 * client would send (validated by `parseReadRequest`, so every rule and error code is the same),
 * the same search service answers, and the structured output is the listing response shape (src/shapes/listing.ts).
 */
import { Ajv, type ErrorObject } from 'ajv';
import { LISTING_ID_SOURCE } from '../core/listingId.js';
import { listingPageSchema, listingResponseSchema } from '../shapes/listing.js';
import type { Listing } from '../shapes/listing.js';
import type { CatalogSearch, ReadPage } from '../search/catalogSearch.js';
import { MAX_LIMIT, MAX_QUERY_LENGTH, MAX_TEXT_LENGTH, parsePayer, parseReadRequest, type ReadEndpoint } from '../search/readRequest.js';
import { MAX_PAY_WITH } from '../search/payableParameters.js';
import type { MerchantView } from '../search/merchantView.js';
import { merchantViewSchema } from '../shapes/merchant.js';
import { InvalidInput, NotFound, type FieldError } from '../core/errors.js';

/** One listing by id, the way GET /discovery/resources/{id} finds it. */
export interface ListingFinder {
  findListing(id: string): Promise<Listing | undefined>;
}

export interface DiscoveryToolDeps {
  search: CatalogSearch;
  listings: ListingFinder;
  /** One payTo's listings and aggregates (absent: no get_merchant tool). */
  merchants?: Pick<MerchantView, 'read'>;
}

export interface DiscoveryTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: { readOnlyHint: true; openWorldHint: false };
  run(args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

const text = (description: string) => ({ type: 'string', minLength: 1, maxLength: MAX_TEXT_LENGTH, description });

const filterProperties = {
  type: { type: 'string', enum: ['http', 'mcp'], description: 'http endpoints or mcp tools.' },
  network: text('CAIP-2 network id such as eip155:84532 (x402 v1 names like base-sepolia are accepted).'),
  maxPrice: {
    type: ['string', 'integer'],
    pattern: '^[0-9]{1,200}$',
    minimum: 0,
    description: 'Price ceiling in the asset\'s smallest unit (USDC has 6 decimals: 5000 = 0.005 USDC).',
  },
  asset: text('Asset code or token address.'),
  scheme: { type: 'string', enum: ['exact', 'upto'] },
  payTo: text('Seller address.'),
  capability: text('A tag, e.g. weather.'),
  minUptime: {
    type: 'number',
    minimum: 0,
    maximum: 1,
    description: 'Only listings whose health checks of the last 7 days found a valid 402 at least this share of the time (0.95 = 95%); listings never checked do not pass a value above 0.',
  },
  payWith: {
    type: 'array',
    minItems: 1,
    maxItems: MAX_PAY_WITH,
    items: { type: 'string', minLength: 1, maxLength: 200 },
    description: 'What you can pay with: network/asset pairs such as eip155:8453/0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 or base/USDC. Only listings with a payment option on one of them.',
  },
  maxUsd: {
    type: ['string', 'number'],
    pattern: '^\\$?[0-9]{1,12}(\\.[0-9]{1,6})?$',
    minimum: 0,
    description: 'Price cap in US dollars (0.005), applied to USDC on every network the service knows; listings payable only in other assets are left out. upto listings compare their median settled amount when known.',
  },
  limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: 'Page size (default 20).' },
  cursor: { type: 'string', minLength: 1, description: 'nextCursor of the previous page, with the same other arguments.' },
} as const;

const searchProperties = {
  q: { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH, description: 'What the resource should do, in words.' },
  ...filterProperties,
  sort: { type: 'string', enum: ['rank', 'price', 'recent'], description: 'rank (default), price (cheapest first) or recent (most recently paid for).' },
  explain: { type: 'boolean', description: 'Add the score breakdown (debug) to each result.' },
  payer: {
    type: 'string',
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: 'The address that will pay (optional): what it pays for after this search teaches the ranking which listings answer such searches.',
  },
} as const;

const objectSchema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  additionalProperties: false,
});

const ajv = new Ajv({ allErrors: true, strict: false });

function fieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  return (errors ?? []).map((e) => {
    const params = e.params as Record<string, unknown>;
    if (e.keyword === 'required') return { path: String(params.missingProperty), message: 'is required' };
    if (e.keyword === 'additionalProperties') return { path: String(params.additionalProperty), message: 'is not an accepted argument' };
    return { path: e.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(arguments)', message: e.message ?? 'is invalid' };
  });
}

/** Arguments checked against the tool's input schema; every problem is named at once. */
function checked(schema: Record<string, unknown>): (args: Record<string, unknown>) => void {
  const validate = ajv.compile(schema);
  return (args) => {
    if (validate(args)) return;
    const errors = fieldErrors(validate.errors);
    throw new InvalidInput('invalid_arguments', errors.map((e) => `${e.path} ${e.message}`).join('; '), errors);
  };
}

/** The query string a client would send for these arguments (an array: the parameter repeated). */
function toQuery(args: Record<string, unknown>): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) query[name] = value.map(String);
    else query[name] = typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
  }
  return query;
}

const pageOutput = (page: ReadPage): Record<string, unknown> => ({ ...page });

function readTool(deps: DiscoveryToolDeps, endpoint: ReadEndpoint, inputSchema: Record<string, unknown>) {
  const validate = checked(inputSchema);
  return async (args: Record<string, unknown>) => {
    validate(args);
    // The payer is not a filter: it reaches the read beside the query string, as X-Payer does.
    const { payer, ...rest } = args;
    const request = parseReadRequest(endpoint, toQuery(rest));
    const named = parsePayer(payer);
    return pageOutput(await deps.search.read(named !== undefined ? { ...request, payer: named } : request));
  };
}

export function discoveryTools(deps: DiscoveryToolDeps): DiscoveryTool[] {
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;
  const searchInput = objectSchema(searchProperties, ['q']);
  const listInput = objectSchema(filterProperties);
  const getInput = objectSchema({ id: { type: 'string', pattern: LISTING_ID_SOURCE, description: 'Listing id (lst_...).' } }, ['id']);
  const validateGet = checked(getInput);
  const merchantInput = objectSchema(
    { payTo: text('The merchant\'s receiving address (payment.payTo).'), limit: filterProperties.limit, cursor: filterProperties.cursor },
    ['payTo'],
  );
  const validateMerchant = checked(merchantInput);
  const merchants = deps.merchants;
  const merchantTool: DiscoveryTool[] = merchants
    ? [
        {
          name: 'get_merchant',
          title: 'One seller\'s paid APIs and tools',
          description: 'Every listing paid to one address (payTo), newest first, with their totals: listings by type, networks, settlements in the last 7 days, last settlement, health. Pass nextCursor as cursor for more.',
          inputSchema: merchantInput,
          outputSchema: merchantViewSchema,
          annotations: readOnly,
          run: async (args) => {
            validateMerchant(args);
            return { ...(await merchants.read(toQuery(args))) };
          },
        },
      ]
    : [];
  return [
    {
      name: 'search_resources',
      title: 'Search paid APIs and tools',
      description:
        'Ranked free-text search of paid HTTP endpoints and MCP tools (x402), by relevance, price and recent payments. Filters narrow it; pass nextCursor as cursor (with the same other arguments) for more.',
      inputSchema: searchInput,
      outputSchema: listingPageSchema,
      annotations: readOnly,
      run: readTool(deps, 'search', searchInput),
    },
    {
      name: 'list_resources',
      title: 'List paid APIs and tools',
      description: 'Paid HTTP endpoints and MCP tools matching the filters, newest first. Pass nextCursor as cursor for more.',
      inputSchema: listInput,
      outputSchema: listingPageSchema,
      annotations: readOnly,
      run: readTool(deps, 'resources', listInput),
    },
    {
      name: 'get_resource',
      title: 'Get one paid API or tool',
      description: 'One listing by id, with its payment requirements, schemas and activity.',
      inputSchema: getInput,
      outputSchema: listingResponseSchema,
      annotations: readOnly,
      run: async (args) => {
        validateGet(args);
        const id = String(args.id);
        const listing = await deps.listings.findListing(id);
        if (!listing) throw new NotFound(`No listing ${id}.`);
        return { ...listing };
      },
    },
    ...merchantTool,
  ];
}
