/**
 * A /verify or /settle answer with what became of its discovery metadata (docs/facilitator.md
 * "What the seller is told"), kept out of service.ts so the service reads as the payment's path.
 */
import type { BazaarOutcome } from '../x402/wire.js';
import type { FacilitatorRequest } from './request.js';

/** How long an answer waits to tell the seller what became of the discovery metadata; after it, `processing`. */
const OUTCOME_WAIT_MS = 250;

/** A /verify or /settle answer and, when the request carried discovery metadata, its Bazaar outcome. */
export interface FacilitatorAnswer<T> {
  response: T;
  bazaar?: BazaarOutcome;
}

/**
 * Adds the Bazaar outcome when the request carried discovery metadata: rejected with the refusal
 * when the payment was refused, else what the cataloger did, waited for at most OUTCOME_WAIT_MS
 * (`processing` after that; the work goes on).
 */
export async function answerWith<T>(request: FacilitatorRequest, response: T, refusedWith?: string, cataloging?: Promise<BazaarOutcome | undefined>): Promise<FacilitatorAnswer<T>> {
  if (!request.carriesDiscovery) return { response };
  if (refusedWith !== undefined) {
    return { response, bazaar: { status: 'rejected', rejectedReason: `the payment was refused (${refusedWith}); a refused payment lists nothing` } };
  }
  if (!cataloging) return { response, bazaar: { status: 'rejected', rejectedReason: 'the request names no resource the catalog can key (resource.url, or info.input.toolName or info.input.tool for MCP)' } };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<BazaarOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'processing' }), OUTCOME_WAIT_MS);
  });
  const bazaar = (await Promise.race([cataloging, late])) ?? { status: 'rejected', rejectedReason: 'the request names no resource the catalog can key' };
  clearTimeout(timer);
  return { response, bazaar };
}
