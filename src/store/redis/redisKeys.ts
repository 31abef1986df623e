/**
 * Every Redis key of one deployment, from its prefix (REDIS_PREFIX): no key is written as a
 * template anywhere else. Keys are declared in groups; the keys of one group are used together in
 * one multi-key command, Lua script, transaction, pipeline or stream, so under Redis Cluster a group
 * lives in one hash slot: its keys carry the group as hash tag, `${prefix}{${group}}${name}` (Redis
 * hashes only the part between the first `{` and `}`; REDIS_PREFIX cannot hold braces). The same
 * names on a single Redis, so both modes run the same code (a deployment from before the tags
 * renames its keys once: `npm run redis:migrate-keys`).
 */

/**
 * The groups, and what uses their keys together:
 * - `catalog`: the write stream, its dead letters, failure counts and the live-id set (the append
 *   script; ack, dead-letter and requeue transactions).
 * - `probe`: probe records, the due calendar, per-id locks and aliases (the enqueue script; the
 *   finish transaction). Host slots are single-key.
 * - `ledger`: balances, nonces and sponsor balances, with the settle results and locks (the ledger's
 *   settle script writes the result; the claim/finish scripts take result and lock together), the
 *   chain's transaction journal and each sender's lock with its next nonce (one script each).
 * - `tokens`: seller token records, hash index and the token list (the issue transaction).
 * - `signals`: a listing's payer-day hash, hourly buckets and lastSettled with the dirty set and the
 *   aging schedule (the record script); its health checks with the dirty set (the health script).
 * - `credits`: settlements waiting for the probe of the resource they named, and when each listing's
 *   were added (the add and take scripts of store/redis/pendingCredits.ts).
 * - `sponsor`: what the fee sponsor spent per payer and payee and day, and who paid whom recently
 *   (the sponsorship check and record scripts, store/redis/sponsorLedger.ts).
 * - single-key groups (`owners`, `cursor`, `ratelimit`, `lease`, `reach`, `optout`, `outcomes`, `settlements`): no tag, so their keys spread
 *   over the whole Cluster. A payer's payment key is its window counter's name plus the nonce and
 *   shares the counter's own tag (one script takes both).
 */
type Group = 'catalog' | 'probe' | 'ledger' | 'tokens' | 'signals' | 'credits' | 'sponsor' | 'owners' | 'cursor' | 'ratelimit' | 'lease' | 'reach' | 'optout' | 'outcomes' | 'settlements';

/** The groups whose keys share one hash slot (see above); the rest are single-key. */
export const SLOT_GROUPS: readonly Group[] = ['catalog', 'probe', 'ledger', 'tokens', 'signals', 'credits', 'sponsor'];

/**
 * How each shared-slot group's key names begin (after the prefix and tag): what a deployment from
 * before the hash tags needs to rename its keys (scripts/lib/keyMigration.ts). A unit test checks that
 * every key of the builder is covered.
 */
export const GROUP_NAME_STARTS: ReadonlyArray<readonly [start: string, group: Group]> = [
  ['catalog:', 'catalog'],
  ['probe:', 'probe'],
  ['ledger:', 'ledger'],
  ['settle:', 'ledger'],
  ['seller-token', 'tokens'],
  ['signals:', 'signals'],
  ['credits:', 'credits'],
  ['sponsor:', 'sponsor'],
];

/** The tagged name of a key named before the hash tags, or undefined when its name did not change. */
export function taggedName(prefix: string, legacyKey: string): string | undefined {
  if (!legacyKey.startsWith(prefix) || legacyKey.includes('{')) return undefined;
  const name = legacyKey.slice(prefix.length);
  const group = GROUP_NAME_STARTS.find(([start]) => name.startsWith(start))?.[1];
  return group ? `${prefix}{${group}}${name}` : undefined;
}

export type RedisKeys = ReturnType<typeof redisKeys>;

export function redisKeys(prefix: string) {
  /** The one place a key is assembled (see the header). */
  const inGroup = (group: Group, name: string): string => (SLOT_GROUPS.includes(group) ? `${prefix}{${group}}${name}` : `${prefix}${name}`);
  /** A single-key group's key that is its own hash tag, so keys named after it share its slot. */
  const ownSlot = (name: string): string => `${prefix}{${name}}`;
  return {
    /** Pattern of every key of the deployment (scratch deployments are dropped with it). */
    everything: `${prefix}*`,

    writeStream: inGroup('catalog', 'catalog:writes'),
    deadLetters: inGroup('catalog', 'catalog:writes:dead'),
    writeFailures: inGroup('catalog', 'catalog:writes:failures'),
    liveIds: inGroup('catalog', 'catalog:live'),
    /** Consumer heartbeats: `${consumerHeartbeatPrefix}${consumer}`. */
    consumerHeartbeatPrefix: inGroup('catalog', 'catalog:consumer:'),
    /** Listing history keys start with this. */
    historyPrefix: inGroup('catalog', 'catalog:history:'),
    historyState: inGroup('catalog', 'catalog:history:state'),
    historyEvents: (listingId: string) => inGroup('catalog', `catalog:history:${listingId}`),
    changes: inGroup('catalog', 'catalog:changes'),
    changesLatest: inGroup('catalog', 'catalog:changes:latest'),
    changesSeeded: inGroup('catalog', 'catalog:changes:seeded'),
    changesEpoch: inGroup('catalog', 'catalog:changes:epoch'),

    probeRecord: (id: string) => inGroup('probe', `probe:rec:${id}`),
    probeDue: inGroup('probe', 'probe:due'),
    probeLock: (id: string) => inGroup('probe', `probe:lock:${id}`),
    probeAlias: (id: string) => inGroup('probe', `probe:alias:${id}`),
    /** The probe starts of one host within the last window (a sorted set by start time). */
    probeHostWindow: (host: string) => inGroup('probe', `probe:host:${host}`),

    ledgerBalance: (network: string, asset: string, address: string) =>
      inGroup('ledger', `ledger:balance:${network}:${asset.toLowerCase()}:${address.toLowerCase()}`),
    /** SCAN pattern of one network's balances; the asset and address follow the pattern's `*`. */
    ledgerBalancesOf: (network: string) => inGroup('ledger', `ledger:balance:${network}:*`),
    /** Used nonces recorded before they were given an expiry (sets kept forever; ledger.ts reads them, never writes). */
    ledgerNonces: (network: string, nonceSpace: string) => inGroup('ledger', `ledger:nonces:${network}:${nonceSpace}`),
    /** Used nonces of one nonce space, scored by the epoch ms until which each is kept (ledger.ts). */
    ledgerUsedNonces: (network: string, nonceSpace: string) => inGroup('ledger', `ledger:used-nonces:${network}:${nonceSpace}`),
    ledgerSponsor: (network: string) => inGroup('ledger', `ledger:sponsor:${network}`),
    settleResult: (payloadHash: string) => inGroup('ledger', `settle:result:${payloadHash}`),
    settleLock: (payloadHash: string) => inGroup('ledger', `settle:lock:${payloadHash}`),
    /** The transaction journaled (before its broadcast) for one on-chain authorization (store/redis/txJournal.ts). */
    settleTx: (authorization: string) => inGroup('ledger', `settle:tx:${authorization}`),
    /** The one sender of a (network, facilitator address): its lock and the next nonce it hands out (store/redis/senderLock.ts). */
    senderLock: (sender: string) => inGroup('ledger', `settle:sender:${sender}:lock`),
    senderNextNonce: (sender: string) => inGroup('ledger', `settle:sender:${sender}:next`),

    /** A settlement sent on chain, by its transaction hash (store/redis/settlementLog.ts). */
    settlementByHash: (transaction: string) => inGroup('settlements', `settlements:tx:${transaction}`),
    /** One payTo's newest settlements on chain (a sorted set of their entries, scored by time). */
    settlementsOfPayee: (payTo: string) => inGroup('settlements', `settlements:payee:${payTo}`),

    sellerToken: (id: string) => inGroup('tokens', `seller-token:${id}`),
    sellerTokenByHash: (hash: string) => inGroup('tokens', `seller-token-hash:${hash}`),
    sellerTokens: inGroup('tokens', 'seller-tokens'),

    signalBuckets: (listingId: string, counter: string) => inGroup('signals', `signals:${listingId}:${counter}`),
    signalLastSettled: (listingId: string) => inGroup('signals', `signals:${listingId}:lastSettled`),
    /** When the listing was first settled (provenance.settled.first); set once, kept a year past the last settlement. */
    signalFirstSettled: (listingId: string) => inGroup('signals', `signals:${listingId}:firstSettled`),
    /** The on-chain transactions of the first and the latest settlement (provenance.settled; issue 44). */
    signalFirstSettledTx: (listingId: string) => inGroup('signals', `signals:${listingId}:firstSettledTx`),
    signalLastSettledTx: (listingId: string) => inGroup('signals', `signals:${listingId}:lastSettledTx`),
    /** Distinct payers of a listing's settlements on one UTC day (a HyperLogLog). */
    signalPayers: (listingId: string, day: number) => inGroup('signals', `signals:${listingId}:payers:${day}`),
    /** Counted settlements of a listing per UTC day (day -> count): the 30-day total. */
    signalSettleDays: (listingId: string) => inGroup('signals', `signals:${listingId}:settleDays`),
    /** A listing's largest payers of one UTC day by counted settlements (a sorted set capped to the top few). */
    signalTopPayers: (listingId: string, day: number) => inGroup('signals', `signals:${listingId}:topPayers:${day}`),
    /** Settled `upto` amounts of a listing (for the median). */
    signalAmounts: (listingId: string) => inGroup('signals', `signals:${listingId}:amounts`),
    /** Events per payer of one listing, kind and UTC day (the payer's daily cap). */
    signalPayerDay: (listingId: string, kind: string, day: number) => inGroup('signals', `signals:${listingId}:payers:${kind}:${day}`),
    /** Health checks of a listing (issue 13), scored by check time; written with the dirty set in one script. */
    healthChecks: (listingId: string) => inGroup('signals', `signals:${listingId}:health`),
    signalsDirty: inGroup('signals', 'signals:dirty'),
    signalsAging: inGroup('signals', 'signals:aging'),

    /** Settlements waiting for the probe of the resource they named (listing id -> JSON list), and when each listing's were last added. */
    pendingCredits: inGroup('credits', 'credits:pending'),
    pendingCreditsAt: inGroup('credits', 'credits:pending:at'),

    /** Fees the sponsor paid for one role (`payer` or `payee`) on one UTC day: address -> wei (a sorted set, for the top spenders). */
    sponsorSpent: (role: string, day: number) => inGroup('sponsor', `sponsor:spent:${role}:${day}`),
    /** Who paid an address recently, directly (`1|payer`) or through a short chain (`2|…`, `3|…`), scored by when. */
    sponsorFunders: (address: string) => inGroup('sponsor', `sponsor:funders:${address.toLowerCase()}`),
    /** Sponsored payments per payer and UTC day that returned value to where it came from. */
    sponsorCircular: (day: number) => inGroup('sponsor', `sponsor:circular:${day}`),

    /** A seller's opt-out of one listing: kept out of the catalog until the seller lifts it. */
    optOut: (listingId: string) => inGroup('optout', `optout:${listingId}`),

    publishedOwner: (listingId: string) => inGroup('owners', `published-owner:${listingId}`),
    cursorSecret: inGroup('cursor', 'cursor-secret'),
    /** Which instance runs a leased periodic pass (store/redis/lease.ts). */
    lease: (worker: string) => inGroup('lease', `lease:${worker}`),
    /** An upstream catalog's crawl state and counts, and its pages' validators (src/federation). */
    reachUpstream: (name: string) => inGroup('reach', `reach:upstream:${name}`),
    reachPages: (name: string) => inGroup('reach', `reach:pages:${name}`),
    /** What announcing an origin found in its manifests (src/federation/originAnnouncer.ts). */
    reachOrigin: (origin: string) => inGroup('reach', `reach:origin:${origin}`),
    /** A payer's recent searches (a sorted set by time, src/outcomes): what its next settlement links to. */
    outcomeSearches: (payer: string) => inGroup('outcomes', `outcomes:searches:${payer}`),
    /** The payers that paid an address (src/outcomes): a payment back to one of them is circular value. */
    outcomePaidBy: (recipient: string) => inGroup('outcomes', `outcomes:paid-by:${recipient}`),
    rateLimit: (name: string, window: number, subject: string) => inGroup('ratelimit', `ratelimit:${name}:${window}:${subject}`),
    /** A payer's payments of one operation in a window; the payment's own key is this plus its nonce (one script). */
    payerPayments: (operation: string, window: number, payer: string) => ownSlot(`ratelimit:${operation}-payer:${window}:${payer}`),
  };
}
