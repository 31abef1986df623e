/**
 * What the fee sponsor pays for, on /metrics (issue 43): today's fees per payer and per payee for
 * the addresses it paid most for (a bounded top, so label cardinality never grows with wallets),
 * and the settlements it declined by reason. An alert on one payer's share of the outflow finds a
 * drain before the floor does.
 */
import { Counter } from 'prom-client';
import { formatEther } from 'viem';
import { registerSampledGauge, type Metrics } from '../metrics.js';
import type { SponsorLedger } from '../store/redis/sponsorLedger.js';
import type { Clock } from '../core/clock.js';
import type { DeclineReason } from './sponsorship.js';

/** Addresses per role on /metrics. */
export const OUTFLOW_TOP = 10;

export function registerSponsorOutflow(metrics: Metrics, ledger: Pick<SponsorLedger, 'top'>, clock: Clock): (reason: DeclineReason) => void {
  registerSampledGauge(
    metrics,
    {
      name: 'facilitator_sponsor_outflow_eth',
      help: `Network fees the sponsor paid today (UTC), in ETH, for each of the ${OUTFLOW_TOP} payers and payees it paid most for`,
      labelNames: ['role', 'address'],
    },
    async () => {
      const day = Math.floor(clock() / 86_400_000);
      const roles = await Promise.all((['payer', 'payee'] as const).map(async (role) => (await ledger.top(role, day, OUTFLOW_TOP)).map((e) => ({ role, ...e }))));
      return roles.flat().map(({ role, address, wei }) => ({ labels: { role, address }, value: Number(formatEther(BigInt(Math.round(wei)))) }));
    },
  );
  const declined = new Counter({
    name: 'facilitator_sponsorship_declined_total',
    help: 'Payments the fee sponsor did not pay for, by reason (below_minimum, payer_budget, payee_budget, circular, reserve)',
    labelNames: ['reason'],
    registers: [metrics.registry],
  });
  return (reason) => declined.inc({ reason });
}
