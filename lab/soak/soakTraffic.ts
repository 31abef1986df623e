/**
 * The soak's mixed traffic against one gateway (lab/soak/soak.ts): searches over a Zipf-skewed query
 * mix, publishes and unpublishes over a fixed pool of tools, settles from many payers for a fixed
 * pool of resources, announces of a fixed pool of a local seller's paths, and change-feed readers
 * following `nextSince`. The pools are fixed so that a healthy service's state stops growing once
 * every member has been written: what still grows after the warm-up is a leak, not the catalog.
 * It remembers the last acknowledged write of every member, to check at the end that each one is
 * what a reader sees.
 */
import { createHash } from 'node:crypto';
import type { LocalAccount } from 'viem/accounts';
import { distinctSearchQueries, zipfPicker } from '../lib/searchQueryMix.js';
import { exactRequest, NETWORK, requirements, USDC } from '../../test/support/payments.js';
import { settleRecord, type SettleRecord } from '../lib/chainSettlements.js';
import type { McpListingInput } from '../../src/door.js';

export const POOLS = { tools: 100, paidResources: 60, announced: 40, payees: 40, queries: 200 };
/** Operations per cycle of 20: what the gateway sees in proportion. */
const CYCLE = [
  'search', 'search', 'publish', 'search', 'settle', 'search', 'search', 'changes', 'search', 'settle',
  'search', 'unpublish', 'search', 'publish', 'search', 'settle', 'search', 'announce', 'search', 'resources',
] as const;
type Kind = (typeof CYCLE)[number];

export interface TrafficOptions {
  url: string;
  sellerToken: string;
  /** The host the token may publish on. */
  toolHost: string;
  payers: LocalAccount[];
  payees: string[];
  /** URL of the seller's path number i (answers 402 with a challenge naming itself). */
  sellerUrl(i: number): string;
  /**
   * URL of paid resource j on the same seller. A settle naming a resource that is not listed only
   * queues its probe (issue 43: traffic never writes a listing), so the resource must answer 402.
   */
  paidUrl(j: number): string;
}

export interface ToolState {
  id: string;
  version: number;
  live: boolean;
}

export class SoakTraffic {
  readonly counts: Record<Kind, number> = Object.fromEntries(CYCLE.map((k) => [k, 0])) as Record<Kind, number>;
  /** Answers with a 5xx status, by operation and status. */
  readonly serverErrors = new Map<string, number>();
  /** Requests that got no answer (connection error, timeout), by operation. */
  readonly failures = new Map<string, number>();
  readonly tools = new Map<number, ToolState>();
  readonly announced = new Map<number, string>();
  readonly settledResources = new Set<number>();
  /** Pool members whose last write got no answer or a 5xx: it may or may not have landed, so the end check skips them. */
  readonly uncertain = new Set<number>();
  /**
   * Tools with a publish or unpublish in flight. Two concurrent writes of one listing are ordered by
   * the write stream, not by which answer reaches this client first, so "the last acknowledged
   * write" is only defined when a tool has one write in flight at a time.
   */
  private readonly toolsInFlight = new Set<number>();
  settlesAcknowledged = 0;
  /** Every settle sent, with its answer's transaction: what the end checks on the chain. */
  readonly settles: SettleRecord[] = [];
  private readonly queries = distinctSearchQueries(POOLS.queries);
  private readonly pickQuery = zipfPicker(POOLS.queries);
  private changesToken?: string;
  private next = 0;

  constructor(private readonly options: TrafficOptions) {}

  /** URL of paid resource j: what a settle names and what the end check expects listed. */
  paidUrl(j: number): string {
    return this.options.paidUrl(j);
  }

  private async call(kind: Kind, path: string, init: RequestInit = {}): Promise<Response | undefined> {
    try {
      const res = await fetch(`${this.options.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
      if (res.status >= 500) {
        const key = `${kind} ${res.status}`;
        this.serverErrors.set(key, (this.serverErrors.get(key) ?? 0) + 1);
      }
      return res;
    } catch {
      this.failures.set(kind, (this.failures.get(kind) ?? 0) + 1);
      return undefined;
    }
  }

  private post(kind: Kind, path: string, body: object, headers: Record<string, string> = {}) {
    return this.call(kind, path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  }

  /** Runs one operation of the cycle; its response body is read (and dropped) so connections are reused. */
  async step(): Promise<void> {
    await this.once(CYCLE[this.next++ % CYCLE.length]!);
  }

  /**
   * Writes every pool member once (each tool published, each paid resource settled, each path
   * announced), so that the pools are full before the warm-up ends and later writes only rewrite.
   */
  async fillPools(concurrency: number): Promise<void> {
    const work = [
      ...Array.from({ length: POOLS.tools }, (_, k) => () => this.once('publish', k)),
      ...Array.from({ length: POOLS.paidResources }, (_, j) => () => this.once('settle', j)),
      ...Array.from({ length: POOLS.announced }, (_, i) => () => this.once('announce', i)),
    ];
    await Promise.all(Array.from({ length: concurrency }, async () => {
      for (let job = work.shift(); job; job = work.shift()) await job();
    }));
  }

  private async once(kind: Kind, member?: number): Promise<void> {
    this.counts[kind] += 1;
    const res = await this.run(kind, member);
    await res?.arrayBuffer().catch(() => undefined);
  }

  private async run(kind: Kind, member?: number): Promise<Response | undefined> {
    const random = (n: number) => Math.floor(Math.random() * n);
    /** The pool member to write: the one asked for, else any. */
    const pick = (n: number) => member ?? random(n);
    const auth = { authorization: `Bearer ${this.options.sellerToken}` };
    switch (kind) {
      case 'search':
        return this.call(kind, `/discovery/search?${this.queries[this.pickQuery()]}`);
      case 'resources':
        return this.call(kind, '/discovery/resources?limit=20');
      case 'changes': {
        const res = await this.call(kind, `/discovery/changes?limit=100${this.changesToken ? `&since=${encodeURIComponent(this.changesToken)}` : ''}`);
        if (res?.status === 200) this.changesToken = ((await res.json()) as { nextSince?: string }).nextSince ?? this.changesToken;
        return undefined;
      }
      case 'publish': {
        const k = pick(POOLS.tools);
        if (this.toolsInFlight.has(k)) return undefined;
        this.toolsInFlight.add(k);
        try {
          const version = (this.tools.get(k)?.version ?? 0) + 1;
          const res = await this.post(kind, '/discovery/publish', toolInput(this.options.toolHost, k, version), auth);
          if (res?.ok) this.tools.set(k, { id: ((await res.json()) as { id: string }).id, version, live: true });
          else if (!res || res.status >= 500) this.uncertain.add(k);
        } finally {
          this.toolsInFlight.delete(k);
        }
        return undefined;
      }
      case 'unpublish': {
        const live = [...this.tools.entries()].filter(([k, t]) => t.live && !this.toolsInFlight.has(k));
        if (live.length === 0) return undefined;
        const [k, tool] = live[random(live.length)]!;
        this.toolsInFlight.add(k);
        try {
          const res = await this.call(kind, `/discovery/publish/${tool.id}`, { method: 'DELETE', headers: auth });
          if (res?.status === 204) this.tools.set(k, { ...tool, live: false });
          else if (!res || res.status >= 500) this.uncertain.add(k);
          return res;
        } finally {
          this.toolsInFlight.delete(k);
        }
      }
      case 'settle': {
        const j = pick(POOLS.paidResources);
        const payer = this.options.payers[random(this.options.payers.length)]!;
        const payee = this.options.payees[j % this.options.payees.length]!;
        const resource = { url: this.options.paidUrl(j), description: `Soak paid resource ${j}`, mimeType: 'application/json' };
        const body = await exactRequest(payer, requirements(payee, { amount: String(1000 + random(1000)) }), {}, resource);
        const record = settleRecord(body);
        this.settles.push(record);
        const res = await this.post(kind, '/settle', body);
        const answer = res?.ok ? ((await res.json()) as { success?: boolean; transaction?: string }) : undefined;
        if (answer?.success === true) {
          Object.assign(record, { acked: true, transaction: answer.transaction });
          this.settlesAcknowledged += 1;
          this.settledResources.add(j);
        }
        return undefined;
      }
      case 'announce': {
        const i = pick(POOLS.announced);
        const res = await this.post(kind, '/discovery/announce', { resource: this.options.sellerUrl(i) });
        if (res?.status === 202) this.announced.set(i, ((await res.json()) as { id: string }).id);
        return undefined;
      }
    }
  }
}

/**
 * A word only tool k's description has: eight letters from a hash of k, so no two tools' words are
 * a typo apart (the search's typo pass would rank neighbours like "...qza" and "...qzb" together),
 * and letters only (the analyzers split letters from digits, so "mark17" would match every 17).
 */
export function toolMark(k: number): string {
  return [...createHash('sha256').update(`soak tool ${k}`).digest().subarray(0, 8)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
}

/** Tool k at a version: its description names both, so a reader can tell which write it sees. */
export function toolInput(host: string, k: number, version: number): McpListingInput {
  return {
    type: 'mcp',
    resource: `mcp://${host}/soak_tool_${k}`,
    name: `soak_tool_${k}`,
    description: `Soak tool ${k} version ${version}: converts currencies at ${toolMark(k)} rates.`,
    inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
    payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: String(1000 + version), payTo: '0x1111111111111111111111111111111111111111' },
  };
}
