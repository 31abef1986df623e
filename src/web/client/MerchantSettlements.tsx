/** A merchant's newest settlements on chain through this facilitator (GET /settlements), each with the hash to check it by. */
import { useEffect, useState } from 'preact/hooks';
import type { Settlement } from '../../shapes/settlement.js';
import { isUsdc } from '../../sdk/price.js';
import { api, ApiError } from './api.js';
import { formatUnits, networkLabel, relativeTime, shortAddress } from './format.js';

const SHOWN = 10;

function amountOf(settlement: Settlement): string {
  return isUsdc(settlement.network, settlement.asset) ? `${formatUnits(settlement.amount)} USDC` : `${settlement.amount} base units of ${shortAddress(settlement.asset)}`;
}

export function MerchantSettlements(props: { payTo: string }) {
  const [settlements, setSettlements] = useState<Settlement[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setSettlements(undefined);
    setError(undefined);
    api.settlements(props.payTo, SHOWN).then(
      (page) => setSettlements(page.settlements),
      (err: unknown) => setError(err instanceof ApiError ? err.message : String(err)),
    );
  }, [props.payTo]);

  return (
    <section aria-labelledby="settlements-title" class="settlements">
      <h2 id="settlements-title">Recent settlements</h2>
      {error && <p class="error" role="alert">{error}</p>}
      {settlements && settlements.length === 0 && <p>No settlement through this facilitator in the last 30 days.</p>}
      {settlements && settlements.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Amount</th>
              <th scope="col">Payer</th>
              <th scope="col">Transaction ({networkLabel(settlements[0]!.network)})</th>
            </tr>
          </thead>
          <tbody>
            {settlements.map((s) => (
              <tr key={s.transaction} data-transaction={s.transaction}>
                <td title={s.settledAt}>{relativeTime(s.settledAt)}</td>
                <td>{amountOf(s)}</td>
                <td><code title={s.payer}>{shortAddress(s.payer)}</code></td>
                <td><code class="hash">{s.transaction}</code></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
