/**
 * The body of POST /discovery/publish (SPEC 4.3, DECISIONS "Publishing and seller tokens"). The
 * catalog's ajv listing validation does the field checks (one rule set for every producer); publish
 * adds what only a seller-facing endpoint must refuse: any type but `mcp`, and the fields the
 * service owns (`id`, `signals`). Unknown top-level fields are rejected rather than dropped, so a
 * seller's typo (`inputschema`, `price`) is reported instead of publishing a listing without it.
 */
import { toCaip2Network } from '../x402/networks.js';
import { validateListingInput } from '../catalog/validation.js';
import type { InvalidField, McpListingInput } from '../catalog/writer.js';

const SERVICE_OWNED_FIELDS = ['id', 'signals'] as const;

export type PublishValidation = { ok: true; input: McpListingInput } | { ok: false; errors: InvalidField[] };

/** Every failing field in one pass; on success the writer input (network in CAIP-2 form). */
export function validatePublishBody(body: unknown): PublishValidation {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, errors: [{ path: '(root)', message: 'must be a JSON object (send Content-Type: application/json)' }] };
  }
  const record = body as Record<string, unknown>;
  const errors: InvalidField[] = [];
  if (record.type === undefined) errors.push({ path: 'type', message: 'is required' });
  else if (record.type !== 'mcp') {
    errors.push({ path: 'type', message: 'must be "mcp": HTTP endpoints are cataloged from their 402 challenge (POST /discovery/announce)' });
  }
  for (const field of SERVICE_OWNED_FIELDS) {
    if (field in record) errors.push({ path: field, message: 'is set by the service and cannot be published' });
  }
  // Checked as an MCP listing whatever `type` says, so the other fields' errors come in the same answer.
  for (const error of validateListingInput({ ...record, type: 'mcp' })) {
    if (!errors.some((e) => e.path === error.path)) errors.push(error);
  }
  if (errors.length > 0) return { ok: false, errors };

  const input = { ...record } as unknown as McpListingInput;
  input.payment = { ...input.payment, network: toCaip2Network(input.payment.network) ?? input.payment.network };
  return { ok: true, input };
}
