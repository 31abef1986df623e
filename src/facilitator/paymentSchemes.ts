/**
 * The payment schemes this facilitator settles, registered in one place: adding a scheme is a
 * module implementing PaymentScheme (payment.ts) and a line here. /supported, the request reader,
 * the service and the wire names of refusals all read this list.
 */
import { legacyNetworkNames, toCaip2Network } from '../x402/networks.js';
import { exactScheme } from './exactScheme.js';
import type { PaymentScheme } from './payment.js';
import { Reason, type ReasonCode } from './reasons.js';
import { uptoScheme } from './uptoScheme.js';

/** In the order /supported lists them. */
export const PAYMENT_SCHEMES: readonly PaymentScheme[] = [exactScheme, uptoScheme];

/** The registered scheme `name` when requests of `x402Version` may use it. */
export function schemeFor(name: string, x402Version: number): PaymentScheme | undefined {
  return PAYMENT_SCHEMES.find((scheme) => scheme.name === name && scheme.x402Versions.includes(x402Version));
}

/** One entry of GET /supported's `kinds`. */
export interface SupportedKind {
  x402Version: number;
  scheme: string;
  network: string;
  extra?: Record<string, unknown>;
}

/** /supported's kinds: every v2 scheme on each network settled here, then every v1 scheme under the v1 names of those networks. */
export function supportedKinds(networks: readonly string[], facilitatorAddress: string): SupportedKind[] {
  const kind = (x402Version: number, scheme: PaymentScheme, network: string): SupportedKind => {
    const extra = scheme.supportedExtra(facilitatorAddress);
    return extra ? { x402Version, scheme: scheme.name, network, extra } : { x402Version, scheme: scheme.name, network };
  };
  const schemesOf = (x402Version: number) => PAYMENT_SCHEMES.filter((scheme) => scheme.x402Versions.includes(x402Version));
  const kinds: SupportedKind[] = [];
  for (const network of networks) {
    for (const scheme of schemesOf(2)) kinds.push(kind(2, scheme, network));
  }
  for (const name of legacyNetworkNames()) {
    const network = toCaip2Network(name);
    if (!network || !networks.includes(network)) continue;
    for (const scheme of schemesOf(1)) kinds.push(kind(1, scheme, name));
  }
  return kinds;
}

/** Codes x402 v1 has no specific name for: the generic ErrorReasons of the `x402` package. */
const V1_NAMES: Partial<Record<ReasonCode, string>> = {
  [Reason.schemeMismatch]: 'invalid_scheme',
  [Reason.networkMismatch]: 'invalid_network',
  [Reason.exactZeroValue]: Reason.exactValue,
};

/**
 * The string a request of `x402Version` for `scheme` gets for `reason`: v2 requests of a registered
 * scheme get the names @x402/evm 2.27 gives them (test/facilitator-reasons.test.ts checks every one
 * against the installed package), v1 requests the `x402` package's; codes named nowhere else as is.
 */
export function wireReason(reason: ReasonCode, x402Version: unknown, scheme: unknown): string {
  const registered = x402Version === 2 && typeof scheme === 'string' ? PAYMENT_SCHEMES.find((s) => s.name === scheme) : undefined;
  return registered?.v2ReasonNames[reason] ?? V1_NAMES[reason] ?? reason;
}

/** Every v2 name this service can answer, by scheme (what the test compares with the package). */
export const V2_SCHEME_NAMES: Readonly<Record<string, Readonly<Partial<Record<ReasonCode, string>>>>> = Object.fromEntries(
  PAYMENT_SCHEMES.map((scheme) => [scheme.name, scheme.v2ReasonNames]),
);
