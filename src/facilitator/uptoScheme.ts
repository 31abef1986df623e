/**
 * `upto` on EVM: the buyer signs a Permit2 `PermitWitnessTransferFrom` whose permitted amount is a
 * ceiling, with a witness naming the recipient and the facilitator allowed to settle it (the form
 * @x402/evm's upto client signs). Checked offline: the Permit2 domain, spender and witness are
 * verified and the signature recovered; /settle then charges the actual amount, at most the ceiling,
 * on the chain through x402's upto proxy (chainPayment; facilitator/chainRail.ts).
 */
import { getAddress, type Hex } from 'viem';
import { recoverTypedDataSigner } from './recoverSigner.js';
import { VALIDITY_MARGIN_SECONDS } from './exactScheme.js';
import { Reason, reject, type Rejection } from './reasons.js';
import { isObject } from '../core/json.js';
import { chainIdOf, chainPaymentBase, isAddress, parseAmount, type CheckedPayment, type CheckMode, type PaymentRequest, type PaymentScheme } from './payment.js';

/** The canonical Permit2 deployment and x402's upto proxy (the only spender a buyer's permit may name). */
export const PERMIT2_ADDRESS = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
export const UPTO_PERMIT2_PROXY_ADDRESS = '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002';

/** The witness struct x402's upto proxy hashes when it calls Permit2: the buyer signs exactly this. */
export const UPTO_WITNESS_TYPES = {
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'Witness' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  Witness: [
    { name: 'to', type: 'address' },
    { name: 'facilitator', type: 'address' },
    { name: 'validAfter', type: 'uint256' },
  ],
} as const;

export function permit2Domain(chainId: number) {
  return { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS } as const;
}

const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;
const lower = (address: unknown): Hex => String(address).toLowerCase() as Hex;

export function checkUptoPayment(
  request: PaymentRequest,
  nowSeconds: bigint,
  facilitatorAddress: string,
  mode: CheckMode,
): CheckedPayment | Rejection {
  const { requirements, schemePayload } = request;
  const permit = schemePayload.permit2Authorization;
  const signature = schemePayload.signature;
  if (!isObject(permit) || !isObject(permit.permitted) || !isObject(permit.witness)) {
    return reject(Reason.invalidPayload, 'payload.permit2Authorization with permitted and witness objects is required');
  }
  if (typeof signature !== 'string' || !SIGNATURE.test(signature)) {
    return reject(Reason.invalidPayload, 'payload.signature must be a 65-byte hex signature');
  }
  const { from, spender } = permit;
  const { token } = permit.permitted;
  const { to, facilitator } = permit.witness;
  const ceiling = parseAmount(permit.permitted.amount);
  const nonce = parseAmount(permit.nonce);
  const deadline = parseAmount(permit.deadline);
  const validAfter = parseAmount(permit.witness.validAfter);
  if (![from, spender, token, to, facilitator].every(isAddress)) {
    return reject(Reason.invalidPayload, 'from, spender, permitted.token, witness.to and witness.facilitator must be addresses');
  }
  if (ceiling === undefined || nonce === undefined || deadline === undefined || validAfter === undefined) {
    return reject(Reason.invalidPayload, 'permitted.amount, nonce, deadline and witness.validAfter must be integer strings');
  }
  const addr = (value: unknown) => value as Hex;

  // The signature first, as in exactScheme: every refusal after it names a payer that provably signed.
  let signer: string | undefined;
  try {
    signer = recoverTypedDataSigner(
      {
        domain: permit2Domain(chainIdOf(requirements.network)),
        types: UPTO_WITNESS_TYPES,
        primaryType: 'PermitWitnessTransferFrom',
        message: {
          permitted: { token: lower(token), amount: ceiling },
          spender: lower(spender),
          nonce,
          deadline,
          witness: { to: lower(to), facilitator: lower(facilitator), validAfter },
        },
      },
      signature,
    );
  } catch {
    signer = undefined;
  }
  if (signer === undefined) return reject(Reason.permit2Signature, 'the signature cannot be recovered');
  if (signer !== lower(from)) return reject(Reason.permit2Signature, 'the signature was not made by from');
  const payer = getAddress(addr(from));

  // Value-free payments and payments to oneself carry no payer: they are evidence of nothing, not even of a rejection.
  if (ceiling === 0n) return reject(Reason.permit2InvalidAmount, 'permitted.amount must be greater than 0: a zero ceiling authorizes nothing');
  if (lower(addr(spender)) !== lower(UPTO_PERMIT2_PROXY_ADDRESS)) {
    return reject(Reason.permit2Spender, `spender must be the x402 upto proxy ${UPTO_PERMIT2_PROXY_ADDRESS}`, payer);
  }
  if (lower(addr(to)) !== lower(addr(requirements.payTo))) {
    return reject(Reason.permit2RecipientMismatch, `witness.to ${String(to)} is not payTo ${requirements.payTo}`, payer);
  }
  if (lower(addr(from)) === lower(addr(to))) return reject(Reason.selfPayment, 'payTo is the payer: a payment to oneself moves nothing');
  if (lower(addr(facilitator)) !== lower(addr(facilitatorAddress))) {
    return reject(Reason.uptoFacilitatorMismatch, `witness.facilitator must be ${facilitatorAddress}`, payer);
  }
  if (lower(addr(token)) !== lower(addr(requirements.asset))) {
    return reject(Reason.permit2TokenMismatch, 'permitted.token is not the required asset', payer);
  }
  if (requirements.amount > ceiling) {
    return mode === 'settle'
      ? reject(Reason.uptoSettlementExceedsAmount, `settlement amount ${requirements.amount} exceeds the authorized ${ceiling}`, payer)
      : reject(Reason.permit2AmountMismatch, `authorized ceiling ${ceiling} is below the required ${requirements.amount}`, payer);
  }
  if (deadline < nowSeconds + VALIDITY_MARGIN_SECONDS) return reject(Reason.permit2DeadlineExpired, `permit expired (deadline ${deadline})`, payer);
  if (validAfter > nowSeconds) return reject(Reason.permit2NotYetValid, `permit not valid before ${validAfter}`, payer);

  const owner = String(from).toLowerCase();
  return {
    payer,
    transfer: {
      network: requirements.network,
      asset: requirements.asset.toLowerCase(),
      from: owner,
      to: String(to).toLowerCase(),
      amount: requirements.amount,
      nonceSpace: `permit2:${owner}`,
      nonce: nonce.toString(),
      validBefore: deadline,
    },
  };
}

/** `upto` for x402 v2: a signed ceiling, of which /settle charges the metered amount. */
export const uptoScheme: PaymentScheme = {
  name: 'upto',
  x402Versions: [2],
  supportedExtra: (facilitatorAddress) => ({ facilitatorAddress }),
  check: (request, { nowSeconds, facilitatorAddress, mode }) => checkUptoPayment(request, nowSeconds, facilitatorAddress, mode),
  nonceUsed: (payer) => reject(Reason.permit2NonceUsed, 'the Permit2 nonce was already used', payer),
  expired: (payer) => reject(Reason.permit2DeadlineExpired, 'permit expired', payer),
  chainPayment: (request) => {
    // Only called on a request check() passed: the shapes below were validated there.
    const { requirements, schemePayload } = request;
    const permit = schemePayload.permit2Authorization as Record<string, unknown>;
    const permitted = permit.permitted as Record<string, unknown>;
    const witness = permit.witness as Record<string, unknown>;
    const text = (v: unknown) => String(v);
    return {
      kind: 'permit2-upto',
      ...chainPaymentBase(request),
      // At /settle the requirements amount is what the seller metered (check() held it to the ceiling).
      amount: requirements.amount.toString(),
      permit2Authorization: {
        from: text(permit.from),
        spender: text(permit.spender),
        nonce: text(permit.nonce),
        deadline: text(permit.deadline),
        permitted: { token: text(permitted.token), amount: text(permitted.amount) },
        witness: { to: text(witness.to), facilitator: text(witness.facilitator), validAfter: text(witness.validAfter) },
      },
    };
  },
  chainFailures: { simulationFailed: Reason.permit2SimulationFailed, transactionFailed: Reason.uptoTransactionFailed },
  metered: true,
  // @x402/evm 2.27's upto/facilitator error constants (test/facilitator-reasons.test.ts checks them).
  v2ReasonNames: {
    [Reason.schemeMismatch]: 'invalid_upto_evm_scheme',
    [Reason.networkMismatch]: 'invalid_upto_evm_network_mismatch',
    [Reason.insufficientFunds]: 'permit2_insufficient_balance',
  },
};
