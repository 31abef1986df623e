/**
 * The discovery tools agents call over MCP (docs/mcp.md): search_resources, list_resources,
 * get_resource and get_merchant. They are the HTTP catalog reads by other means: their input
 * schemas are generated from the read grammar (search/readGrammar.ts), the arguments are read by
 * the same grammar as a query string (so every rule and error code is the same), the same search
 * service answers, and the structured output is the listing response shape (src/shapes/listing.ts).
 */
import { Ajv, type ErrorObject } from 'ajv';
import { LISTING_ID_SOURCE } from '../core/listingId.js';
import { listingPageSchema, listingResponseSchema } from '../shapes/listing.js';
import type { Listing } from '../shapes/listing.js';
import type { CatalogSearch, ReadPage } from '../search/catalogSearch.js';
import { MAX_TEXT_LENGTH, type ReadEndpoint } from '../search/readRequest.js';
import { parseReadRequest, readParameters, readParametersNamed, type ReadParameter } from '../search/readGrammar.js';
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

/** A read parameter of the grammar (search/readGrammar.ts) as a tool argument's schema. */
const argumentOf = (p: ReadParameter) => ({ ...(p.argument ?? p.query), description: p.toolDescription ?? p.description });

/** The tool's input properties: the read's parameters (search/readGrammar.ts), and `required` those it requires. */
function readArguments(parameters: readonly ReadParameter[]): { properties: Record<string, unknown>; required: string[] } {
  return {
    properties: Object.fromEntries(parameters.map((p) => [p.name, argumentOf(p)])),
    required: parameters.filter((p) => p.required).map((p) => p.name),
  };
}

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

const pageOutput = (page: ReadPage): Record<string, unknown> => ({ ...page });

/** The arguments, checked against the tool's schema, are read by the same grammar as a query string. */
function readTool(deps: DiscoveryToolDeps, endpoint: ReadEndpoint, inputSchema: Record<string, unknown>) {
  const validate = checked(inputSchema);
  return async (args: Record<string, unknown>) => {
    validate(args);
    return pageOutput(await deps.search.read(parseReadRequest(endpoint, args)));
  };
}

export function discoveryTools(deps: DiscoveryToolDeps): DiscoveryTool[] {
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;
  const search = readArguments(readParameters('search'));
  const searchInput = objectSchema(search.properties, search.required);
  const listInput = objectSchema(readArguments(readParameters('resources')).properties);
  const getInput = objectSchema({ id: { type: 'string', pattern: LISTING_ID_SOURCE, description: 'Listing id (lst_...).' } }, ['id']);
  const validateGet = checked(getInput);
  const merchantInput = objectSchema(
    { payTo: text('The merchant\'s receiving address (payment.payTo).'), ...readArguments(readParametersNamed(['limit', 'cursor'])).properties },
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
            return { ...(await merchants.read(args)) };
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
