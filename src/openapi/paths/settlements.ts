/** The settlements the facilitator sent on chain (docs/facilitator.md "Settlements by hash"). */
import { SETTLEMENTS_DEFAULT_LIMIT, SETTLEMENTS_PER_PAYEE, SETTLEMENT_RETENTION_DAYS } from '../../facilitator/settlementHistory.js';
import { settlementSchema, settlementsPageSchema } from '../../shapes/settlement.js';
import { json, operation, pathParameter, queryParameter, type OpenApiObject } from '../builders.js';

const PAY_TO = '0x209693bc6afc0c5328ba36faf03c514ef312287c';

export const settlementsPaths: Record<string, OpenApiObject> = {
  '/settlements': {
    get: operation('listSettlements', {
      tags: ['facilitator'],
      summary: `One payTo's settlements on chain through this facilitator, newest first (the newest ${SETTLEMENTS_PER_PAYEE}, kept ${SETTLEMENT_RETENTION_DAYS} days), each with its transaction hash`,
      parameters: [
        queryParameter('payTo', 'The seller\'s address (any case).', { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' }, true),
        queryParameter('limit', 'Settlements.', { type: 'integer', minimum: 1, maximum: SETTLEMENTS_PER_PAYEE, default: SETTLEMENTS_DEFAULT_LIMIT }),
      ],
      responses: { 200: json('The payTo\'s settlements (an empty list when none).', settlementsPageSchema) },
      problems: { 400: ['unknown_filter', 'invalid_filter_value'], 429: ['rate_limited'], 503: ['service_unavailable'] },
      examples: [
        { summary: 'A seller with no settlement yet', status: 200, query: { payTo: PAY_TO } },
        { summary: 'Not an address', status: 400, query: { payTo: 'alice' } },
      ],
    }),
  },
  '/settlements/{transaction}': {
    get: operation('getSettlement', {
      tags: ['facilitator'],
      summary: 'One settlement of this facilitator by its transaction hash: who paid whom, what, when, for which resource',
      parameters: [pathParameter('transaction', 'The transaction hash a /settle answered with.', { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' })],
      responses: { 200: json('The settlement.', settlementSchema) },
      problems: { 400: ['unknown_filter'], 404: ['not_found'], 429: ['rate_limited'], 503: ['service_unavailable'] },
      examples: [{ summary: 'A hash this facilitator never sent', status: 404, params: { transaction: `0x${'ab'.repeat(32)}` } }],
    }),
  },
};
