/**
 * The body of POST /discovery/publish (docs/sdk.md "POST /discovery/publish"). The
 * catalog's ajv listing validation does the field checks (one rule set for every producer); publish
 * adds what only a seller-facing endpoint must refuse: any type but `mcp`, and the fields the
 * service owns (`id`, `signals`). Unknown top-level fields are rejected rather than dropped, so a
 * seller's typo (`inputschema`, `price`) is reported instead of publishing a listing without it.
 */
import { checkListingInput, type CheckedListing } from '../catalog/validation.js';
import type { FieldError } from '../core/errors.js';
import type { McpListingInput } from '../shapes/listingInput.js';
import { bazaarMetadataOf } from '../x402/bazaarMetadata.js';

const SERVICE_OWNED_FIELDS = ['id', 'signals'] as const;

export type PublishValidation = { ok: true; input: McpListingInput; listing: CheckedListing } | { ok: false; errors: FieldError[] };

/**
 * Every failing field in one pass; on success the listing as the catalog's check left it (checked
 * and canonicalized once: the writer takes it as is).
 */
export function validatePublishBody(body: unknown): PublishValidation {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, errors: [{ path: '(root)', message: 'must be a JSON object (send Content-Type: application/json)' }] };
  }
  const record = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (record.type === undefined) errors.push({ path: 'type', message: 'is required' });
  else if (record.type !== 'mcp') {
    errors.push({ path: 'type', message: 'must be "mcp": HTTP endpoints are cataloged from their 402 challenge (POST /discovery/announce)' });
  }
  for (const field of SERVICE_OWNED_FIELDS) {
    if (field in record) errors.push({ path: field, message: 'is set by the service and cannot be published' });
  }
  // x402 Bazaar's name for the title, read by the same rules as in a 402 or a settlement payload.
  const { serviceName, ...listing } = record;
  if (serviceName !== undefined) {
    const title = bazaarMetadataOf({ serviceName }, undefined).serviceName;
    if (title === undefined) errors.push({ path: 'serviceName', message: 'must be 1-32 printable ASCII characters (x402 Bazaar serviceName)' });
    else if (listing.title === undefined) listing.title = title;
  }
  // Checked as an MCP listing whatever `type` says, so the other fields' errors come in the same answer.
  const checked = checkListingInput({ ...listing, type: 'mcp' });
  for (const error of checked.ok ? [] : checked.errors) {
    if (!errors.some((e) => e.path === error.path)) errors.push(error);
  }
  if (errors.length > 0 || !checked.ok) return { ok: false, errors };
  return { ok: true, input: checked.listing.input as McpListingInput, listing: checked.listing };
}
