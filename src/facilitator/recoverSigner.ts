/**
 * EIP-712 signer recovery: viem encodes the typed data, libsecp256k1 (tiny-secp256k1, WASM)
 * recovers the public key. The curve step is the CPU cost of every /verify and /settle, and the
 * WASM build of libsecp256k1 does it several times faster than the pure-JS curve viem ships with
 * (lab journal 2026-11-21-facilitator.md); the result is the same address viem's recoverTypedDataAddress gives.
 */
import { recover } from 'tiny-secp256k1';
import { concat, domainSeparator, hashStruct, keccak256, type Hex, type TypedDataDefinition } from 'viem';

const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;
const MAX_CACHED_DOMAINS = 1000;
const domainSeparators = new Map<string, Hex>();

/**
 * The EIP-712 digest, as viem's hashTypedData computes it, with the domain separator cached: a
 * facilitator sees a handful of domains (token x chain), and hashing the domain again per request
 * was a third of the cost of a /verify. The caller has validated addresses, integers and bytes32
 * values already; viem's encoder still refuses out-of-range values (the caller treats that as a bad signature).
 */
export function typedDataDigest(typedData: TypedDataDefinition): Hex {
  const { domain = {}, types, primaryType, message } = typedData as {
    domain?: Record<string, unknown>;
    types: Record<string, readonly { name: string; type: string }[]>;
    primaryType: string;
    message: Record<string, unknown>;
  };
  const key = JSON.stringify(domain, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  let separator = domainSeparators.get(key);
  if (separator === undefined) {
    separator = domainSeparator({ domain: domain as never });
    if (domainSeparators.size >= MAX_CACHED_DOMAINS) domainSeparators.clear();
    domainSeparators.set(key, separator);
  }
  return keccak256(concat(['0x1901', separator, hashStruct({ data: message, primaryType, types } as never)]));
}

/**
 * Recent recoveries, keyed by digest and signature: a seller verifies a payment and then settles the
 * same one, so the second recovery is a lookup. Recovery is a pure function of the key.
 */
const MAX_CACHED_SIGNERS = 10_000;
const recentSigners = new Map<string, string | undefined>();

/** The checksum-less lower-case address that signed the typed data, or undefined when none can be recovered. */
export function recoverTypedDataSigner(typedData: TypedDataDefinition, signature: string): string | undefined {
  if (!SIGNATURE.test(signature)) return undefined;
  const digestHex = typedDataDigest(typedData);
  const key = `${digestHex}${signature.slice(2).toLowerCase()}`;
  if (recentSigners.has(key)) return recentSigners.get(key);
  const signer = recoverFromDigest(Buffer.from(digestHex.slice(2), 'hex'), signature);
  if (recentSigners.size >= MAX_CACHED_SIGNERS) recentSigners.delete(recentSigners.keys().next().value!);
  recentSigners.set(key, signer);
  return signer;
}

/** The same recovery without the cache (benchmarks measure the real cost with it). */
export function recoverTypedDataSignerUncached(typedData: TypedDataDefinition, signature: string): string | undefined {
  if (!SIGNATURE.test(signature)) return undefined;
  return recoverFromDigest(Buffer.from(typedDataDigest(typedData).slice(2), 'hex'), signature);
}

function recoverFromDigest(digest: Buffer, signature: string): string | undefined {
  const bytes = Buffer.from(signature.slice(2), 'hex');
  const v = bytes[64]!;
  // Ethereum signatures carry v as 27/28; some signers emit the raw recovery id 0/1.
  const recoveryId = v >= 27 ? v - 27 : v;
  if (recoveryId !== 0 && recoveryId !== 1) return undefined;
  let publicKey: Uint8Array | null;
  try {
    publicKey = recover(digest, bytes.subarray(0, 64), recoveryId, false);
  } catch {
    return undefined;
  }
  if (!publicKey) return undefined;
  const hash = keccak256(publicKey.subarray(1) as Uint8Array, 'hex') as Hex;
  return `0x${hash.slice(-40)}`;
}
