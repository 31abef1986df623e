/**
 * A settlement this facilitator sent on chain, as a seller (or anyone holding its hash) reads it
 * back (GET /settlements, GET /settlements/{transaction}; docs/facilitator.md "Settlements by
 * hash"). Every field is what the facilitator itself settled; `resource` and `listingId` are what
 * the payment named, and whether it counted for that listing is the listing's own signals.
 */
import type { FromSchema } from 'json-schema-to-ts';

const HASH = { type: 'string', pattern: '^0x[0-9a-f]{64}$' } as const;
const ADDRESS = { type: 'string', pattern: '^0x[0-9a-f]{40}$' } as const;

export const settlementSchema = {
  type: 'object',
  title: 'Settlement',
  required: ['transaction', 'network', 'scheme', 'payer', 'payTo', 'asset', 'amount', 'settledAt'],
  additionalProperties: false,
  properties: {
    transaction: { ...HASH, description: 'The mined transaction that moved the payment (look it up on the network).' },
    network: { type: 'string', description: 'CAIP-2 network it was mined on.' },
    scheme: { type: 'string', description: 'The x402 scheme (exact, upto).' },
    payer: { ...ADDRESS, description: 'Whose signature authorized it (lower case).' },
    payTo: { ...ADDRESS, description: 'Who was paid (lower case).' },
    asset: { ...ADDRESS, description: 'The token moved (lower case).' },
    amount: { type: 'string', pattern: '^[0-9]+$', description: 'Base units moved (for upto: the amount charged, not the ceiling).' },
    settledAt: { type: 'string', format: 'date-time', description: 'When the facilitator had its receipt.' },
    resource: { type: 'string', maxLength: 2048, description: 'The resource the payment named, when it named one.' },
    listingId: { type: 'string', description: 'The listing id of that resource.' },
  },
} as const;

export const settlementsPageSchema = {
  type: 'object',
  title: 'SettlementsPage',
  required: ['payTo', 'settlements'],
  additionalProperties: false,
  properties: {
    payTo: ADDRESS,
    settlements: { type: 'array', items: settlementSchema, description: 'Newest first.' },
  },
} as const;

export type Settlement = FromSchema<typeof settlementSchema>;
export type SettlementsPage = FromSchema<typeof settlementsPageSchema>;
