/**
 * How the page words what the API returns: prices in USDC ("0.003 USDC per call"), the price
 * ceiling a person types in USDC turned into base units exactly, activity with relative times.
 */
import type { Listing, Payment, Provenance, Signals } from '../../shapes/listing.js';
import { dollarsToUnits, isUsdc, v1NetworkName } from '../../sdk/price.js';

const USDC_DECIMALS = 6;

/** `3000` -> `0.003`, `500000` -> `0.50`: exact decimal arithmetic on the string, at least 2 decimals. */
export function formatUnits(amount: string, decimals = USDC_DECIMALS): string {
  const digits = amount.replace(/^0+(?=\d)/, '').padStart(decimals + 1, '0');
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, '').padEnd(2, '0');
  return `${whole}.${fraction}`;
}

export function formatPrice(payment: Payment): string {
  const usdc = isUsdc(payment.network, payment.asset);
  const money = (amount: string) => (usdc ? `${formatUnits(amount)} USDC` : `${amount} base units of ${shortAddress(payment.asset)}`);
  if (payment.pricing) {
    return `${money(payment.pricing.pricePerUnit)} per ${payment.pricing.unit} (${payment.scheme === 'upto' ? 'up to' : 'at most'} ${money(payment.amount)} per call)`;
  }
  return payment.scheme === 'upto' ? `up to ${money(payment.amount)} per call` : `${money(payment.amount)} per call`;
}

/** A USDC amount typed by a person (`0.005`, `$1`) in base units, or an error message. */
export function usdcToBaseUnits(text: string): { units: string } | { error: string } {
  try {
    return { units: dollarsToUnits(text, USDC_DECIMALS).toString() };
  } catch {
    return { error: `Max price must be a USDC amount such as 0.005 (at most ${USDC_DECIMALS} decimals).` };
  }
}

export function shortAddress(address: string): string {
  return /^0x[0-9a-fA-F]{40}$/.test(address) ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

export function networkLabel(network: string): string {
  const name = v1NetworkName(network);
  return name === network ? network : `${name} (${network})`;
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

export function relativeTime(iso: string, now = Date.now()): string {
  const diff = Date.parse(iso) - now;
  if (Number.isNaN(diff)) return iso;
  const [unit, ms] = UNITS.find(([, size]) => Math.abs(diff) >= size) ?? ['second', 1000];
  return new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).format(Math.round(diff / ms), unit);
}

export function activity(signals: Signals): string {
  const count = signals.settleCount7d;
  const parts = [count === 0 ? 'no paid calls in 7 days' : `${count.toLocaleString('en')} paid call${count === 1 ? '' : 's'} in 7 days`];
  if (count > 0 || signals.rejectionRate7d > 0) parts.push(`${formatPercent(signals.rejectionRate7d)} of payments rejected`);
  parts.push(signals.lastSettled ? `last paid ${relativeTime(signals.lastSettled)}` : 'never paid for yet');
  return parts.join(' · ');
}

export function formatPercent(rate: number): string {
  return `${Number((rate * 100).toFixed(1))}%`;
}

export function titleOf(listing: Listing): string {
  return listing.type === 'mcp' ? listing.title || listing.name : listing.describe.title || listing.resource;
}

/** Without a prototype: looked up by the status the service sends. */
const PROBE_STATUS: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, { valid_402: 'answered a valid 402' });

/** What the listing stands on (its `provenance`), one line per kind of evidence. */
export function evidenceLines(provenance: Provenance): string[] {
  const lines: string[] = [];
  const { discovered, namedBy, probed402, settled, published, imported } = provenance;
  const whereOf = (source: { source: string; name?: string }) => (source.source === 'upstream' ? `the ${source.name ?? 'upstream'} catalog` : 'the seller\'s manifest');
  if (discovered) lines.push(`Found through ${whereOf(discovered)} ${relativeTime(discovered.firstSeen)}`);
  // Every other source that named it since, with when it last did.
  for (const other of namedBy ?? []) {
    if (discovered && other.source === discovered.source && other.url === discovered.url) continue;
    lines.push(`Also named by ${whereOf(other)}, last ${relativeTime(other.lastSeen)}`);
  }
  if (probed402) {
    const status = PROBE_STATUS[probed402.lastStatus] ?? `failed (${probed402.lastStatus.replace(/_/g, ' ')})`;
    lines.push(`Unpaid probe ${status} ${relativeTime(probed402.lastAt)}`);
  }
  if (settled) lines.push(`Paid through this facilitator: first ${relativeTime(settled.first)}, last ${relativeTime(settled.last)}`);
  if (published) lines.push(`Published by its seller ${published.via === 'sdk' ? 'with the seller SDK' : 'by hand'} ${relativeTime(published.at)}`);
  if (imported) lines.push(`Imported from ${imported.source} ${relativeTime(imported.at)}`);
  return lines;
}

export function descriptionOf(listing: Listing): string {
  return (listing.type === 'mcp' ? listing.description : listing.describe.description) ?? '';
}

export function tagsOf(listing: Listing): string[] {
  return (listing.type === 'mcp' ? listing.tags : listing.describe.tags) ?? [];
}

/** Seller-given URLs become links only when they are http(s): never `javascript:` or the like. */
export function safeHttpUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !value.includes('{') ? url.href : undefined;
  } catch {
    return undefined;
  }
}
