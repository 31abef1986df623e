/**
 * "Can I pay this?" as an Elasticsearch clause (docs/catalog-reads.md "API", Can I pay this?). A listing is payable
 * when one of its payment options (the primary `payment`, or any of `accepts`, a nested field)
 * is on a pair the buyer holds (`payWith`) and, with `maxUsd`, is USDC on a network the service
 * knows at a price within the cap. Both conditions hold for the same option: a listing that takes
 * a cheap unknown token and expensive USDC does not pass a low cap. An `upto` option's price is
 * the listing's median settled amount when known (what buyers are actually charged), its ceiling
 * otherwise.
 */
import type { CatalogFilters } from './readRequest.js';
import { knownUsdc, isUsdcAsset, type NetworkAsset } from '../x402/usdc.js';

type Json = Record<string, unknown>;
type Option = 'payment' | 'accepts';

const MEDIAN = 'signals.medianSettledAmount7d';
/** Matches nothing: a filter whose allowed pairs are empty. */
const NOTHING: Json = { bool: { must_not: [{ match_all: {} }] } };

/** The pairs an option may be on: the buyer's, and with a dollar cap only their USDC ones. */
function allowedPairs(filters: CatalogFilters): NetworkAsset[] {
  const usdc = knownUsdc();
  if (filters.maxUsdUnits === undefined) return filters.payWith ?? [];
  if (!filters.payWith) return usdc;
  return filters.payWith.filter((p) => isUsdcAsset(p.network, p.asset));
}

/** One option (primary or an `accepts` entry) on an allowed pair, with `conditions` on that same option. */
function option(field: Option, pairs: NetworkAsset[], conditions: (field: Option) => Json[]): Json {
  const onPair = {
    bool: {
      should: pairs.map((p) => ({ bool: { filter: [{ term: { [`${field}.network`]: p.network } }, { term: { [`${field}.asset`]: p.asset } }] } })),
      minimum_should_match: 1,
    },
  };
  const query = { bool: { filter: [onPair, ...conditions(field)] } };
  return field === 'payment' ? query : { nested: { path: 'accepts', query } };
}

const either = (pairs: NetworkAsset[], conditions: (field: Option) => Json[]): Json => ({
  bool: { should: [option('payment', pairs, conditions), option('accepts', pairs, conditions)], minimum_should_match: 1 },
});

/** The clause, or undefined when the read asks neither question. */
export function payableClause(filters: CatalogFilters): Json | undefined {
  const cap = filters.maxUsdUnits;
  if (cap === undefined && filters.payWith === undefined) return undefined;
  const pairs = allowedPairs(filters);
  if (pairs.length === 0) return NOTHING;
  if (cap === undefined) return either(pairs, () => []);
  const within = (field: Option) => ({ range: { [`${field}.amount`]: { lte: cap } } });
  const upto = (field: Option) => ({ term: { [`${field}.scheme`]: 'upto' } });
  return {
    bool: {
      should: [
        // A fixed price within the cap.
        either(pairs, (field) => [{ bool: { must_not: [upto(field)] } }, within(field)]),
        // upto, nothing settled yet: the ceiling is all a buyer knows.
        { bool: { filter: [either(pairs, (field) => [upto(field), within(field)])], must_not: [{ exists: { field: MEDIAN } }] } },
        // upto with a median settled amount: what buyers are actually charged.
        { bool: { filter: [either(pairs, (field) => [upto(field)]), { range: { [MEDIAN]: { lte: cap } } }] } },
      ],
      minimum_should_match: 1,
    },
  };
}
