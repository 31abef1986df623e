/**
 * What a /verify or /settle request says about the paid resource behind it: the listing it belongs
 * to and the listing input the catalog should hold. Sources, by precedence: the x402 `bazaar`
 * discovery extension (v2 `paymentPayload.extensions.bazaar`: info.input/output + schema), the v2
 * `resource` info, and for v1 the requirements' `resource`, `description`, `mimeType` and
 * `outputSchema.input`. Pure: nothing here touches storage.
 */
import { httpListingId, mcpListingId } from '../catalog/identity.js';
import type { Describe, Payment } from '../shapes/listing.js';
import { toCaip2Network } from '../x402/networks.js';
import type { AcceptedPayment, ListingInput } from '../shapes/listingInput.js';
import { isObject, type JsonObject } from '../core/json.js';
import { bazaarMetadataOf } from '../x402/bazaarMetadata.js';
import type { RawFacilitatorRequest } from './payment.js';

export interface TrafficSighting {
  listingId: string;
  input: ListingInput;
  /** `${scheme} ${network}`: accepts entries merge by this key. */
  acceptKey: string;
  accept: AcceptedPayment;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

/** Input names with a type name: a JSON Schema's property types when given, else the example's JS type. */
function inputTypes(examples: unknown, schemaProperties: unknown, into: Record<string, string>): void {
  const props = isObject(schemaProperties) ? schemaProperties : {};
  for (const [name, prop] of Object.entries(props)) {
    if (isObject(prop) && typeof prop.type === 'string') into[name] = prop.type;
  }
  if (!isObject(examples)) return;
  for (const [name, value] of Object.entries(examples)) {
    if (into[name]) continue;
    if (isObject(value) && typeof value.type === 'string') into[name] = value.type;
    else into[name] = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  }
}

function inputsOf(input: JsonObject, schemaInput: JsonObject): Record<string, string> | undefined {
  const props = isObject(schemaInput.properties) ? schemaInput.properties : {};
  const section = (name: string) => (isObject(props[name]) ? (props[name] as JsonObject).properties : undefined);
  const inputs: Record<string, string> = {};
  inputTypes(input.pathParams, section('pathParams'), inputs);
  inputTypes(input.queryParams, section('queryParams'), inputs);
  inputTypes(input.body, section('body'), inputs);
  const names = Object.keys(inputs).slice(0, 64);
  return names.length > 0 ? Object.fromEntries(names.map((n) => [n, inputs[n]!.slice(0, 200)])) : undefined;
}

function paymentOf(version: number, requirements: JsonObject): AcceptedPayment {
  const network = str(requirements.network) ?? '';
  const payment: AcceptedPayment = {
    scheme: requirements.scheme as Payment['scheme'],
    network: toCaip2Network(network) ?? network,
    asset: String(requirements.asset ?? ''),
    amount: String(version === 1 ? requirements.maxAmountRequired : requirements.amount),
  };
  if (str(requirements.payTo)) payment.payTo = requirements.payTo as string;
  if (typeof requirements.maxTimeoutSeconds === 'number' && requirements.maxTimeoutSeconds >= 1) {
    payment.maxTimeoutSeconds = requirements.maxTimeoutSeconds;
  }
  if (isObject(requirements.extra)) payment.extra = requirements.extra;
  return payment;
}

/** The sighting of a request, or undefined when it names no resource the catalog can key. */
export function sightingOf(raw: RawFacilitatorRequest): TrafficSighting | undefined {
  try {
    return buildSighting(raw);
  } catch {
    // An unparseable resource URL or tool name: nothing to catalog, and never an error for the payer.
    return undefined;
  }
}

function buildSighting(raw: RawFacilitatorRequest): TrafficSighting | undefined {
  const { x402Version: version, paymentPayload: pp, paymentRequirements: pr } = raw;
  const resourceInfo = version === 2 && isObject(pp.resource) ? pp.resource : {};
  const url = version === 2 ? str(resourceInfo.url) : str(pr.resource);
  if (!url) return undefined;

  const bazaar = version === 2 && isObject(pp.extensions) && isObject(pp.extensions.bazaar) ? pp.extensions.bazaar : undefined;
  const v1Schema = version === 1 && isObject(pr.outputSchema) ? pr.outputSchema : undefined;
  const info = bazaar && isObject(bazaar.info) ? bazaar.info : v1Schema;
  const input = info && isObject(info.input) ? info.input : {};
  // x402 v1 lets a seller opt out of discovery.
  if (input.discoverable === false) return undefined;
  const schemaRoot = bazaar && isObject(bazaar.schema) && isObject(bazaar.schema.properties) ? bazaar.schema.properties : {};
  const schemaInput = isObject(schemaRoot.input) ? schemaRoot.input : {};

  const payment = paymentOf(version, pr);
  const { extra: _extra, ...primary } = payment;
  const acceptKey = `${payment.scheme} ${payment.network}`;
  const description = str(version === 2 ? resourceInfo.description : pr.description) ?? str(input.description);
  // serviceName, tags, iconUrl, routeTemplate and the MCP tool key, read as a probed 402's are.
  const metadata = bazaarMetadataOf(resourceInfo, bazaar ?? (v1Schema ? { info: v1Schema } : undefined));

  if (input.type === 'mcp' && metadata.toolName) {
    const toolName = metadata.toolName;
    const host = new URL(url).host || 'unknown';
    const resource = url.startsWith('mcp://') ? url : `mcp://${host}/${toolName}`;
    const outputSchema = isObject(schemaRoot.output) ? schemaRoot.output : undefined;
    const mcp: ListingInput = {
      type: 'mcp',
      resource,
      name: toolName,
      description: str(input.description) ?? description ?? '',
      inputSchema: isObject(input.inputSchema) ? input.inputSchema : { type: 'object' },
      payment: primary,
    };
    if (metadata.serviceName) mcp.title = metadata.serviceName;
    if (metadata.tags) mcp.tags = metadata.tags;
    if (metadata.iconUrl) mcp.iconUrl = metadata.iconUrl;
    if (outputSchema) mcp.outputSchema = outputSchema;
    return { listingId: mcpListingId(resource, toolName), input: mcp, acceptKey, accept: payment };
  }

  const method = (str(input.method) ?? 'GET').toUpperCase();
  const describe: Describe = {};
  if (metadata.serviceName) describe.title = metadata.serviceName;
  if (description) describe.description = description.slice(0, 4000);
  if (metadata.tags) describe.tags = metadata.tags;
  if (metadata.iconUrl) describe.iconUrl = metadata.iconUrl;
  const inputs = inputsOf(input, schemaInput);
  if (inputs) describe.inputs = inputs;
  const http: ListingInput = { type: 'http', resource: url, method, payment: primary, describe };
  if (metadata.routeTemplate) http.routeTemplate = metadata.routeTemplate;
  return { listingId: httpListingId(url, method, http.routeTemplate), input: http, acceptKey, accept: payment };
}
