import assert from 'node:assert/strict';
import { InvalidListingError, validateListingInput } from '../src/catalog/validation.js';
import { toCaip2Network } from '../src/x402/networks.js';
import { httpListingId, mcpListingId } from '../src/catalog/identity.js';
import { toListing } from '../src/catalog/listing.js';
import type { ListingDocument } from '../src/store/listingDocument.js';
import { buildListingDocument } from '../src/catalog/document.js';
import type { CatalogOperation } from '../src/store/catalogOperations.js';
import { ListingStore } from '../src/store/elasticsearch/listingStore.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpInput, mcpInput } from './support/listings.js';

describe('catalog write path', () => {
  let h: Harness;
  before(async () => {
    // Small batches, so writes spread over several concurrent batches as under load.
    h = await startHarness({ CATALOG_BATCH_SIZE: '16' });
  });
  after(async () => h.close());

  const writer = () => h.container.catalog.writer;
  const reader = () => h.container.catalog.reader;

  /** Resolves once the consumer applied the write (real-time get, no refresh needed). */
  async function applied(id: string, check: (doc: ListingDocument) => boolean = () => true): Promise<ListingDocument> {
    return waitFor(async () => {
      const doc = await reader().get(id);
      return doc && check(doc) ? doc : undefined;
    }, 10_000, 50);
  }

  async function searchableCount(query: Record<string, unknown>): Promise<number> {
    const res = await h.elasticsearch.count({ index: h.config.listingsAlias, query });
    return res.count;
  }

  describe('validation', () => {
    it('accepts valid HTTP and MCP listings', () => {
      assert.deepEqual(validateListingInput(httpInput()), []);
      assert.deepEqual(validateListingInput(mcpInput()), []);
    });

    it('lists every failing field with its path and a message', () => {
      const errors = validateListingInput({
        type: 'http',
        resource: 'ftp://files.example/x',
        method: 'FETCH',
        payment: { scheme: 'stream', network: 'not a network', asset: '', amount: '-5', surprise: 1 },
        describe: { title: 7, tags: 'weather' },
      });
      const paths = errors.map((e) => e.path).sort();
      assert.deepEqual(paths, [
        'describe.tags',
        'describe.title',
        'method',
        'payment.amount',
        'payment.asset',
        'payment.network',
        'payment.scheme',
        'payment.surprise',
        'resource',
      ]);
      for (const e of errors) assert.ok(e.message.length > 3, `${e.path} has a message`);
      assert.match(errors.find((e) => e.path === 'payment.amount')!.message, /integer/);
    });

    it('reports missing required fields of each form', () => {
      assert.deepEqual(validateListingInput({}), [{ path: 'type', message: 'is required' }]);
      assert.equal(validateListingInput('text')[0]!.path, '(root)');
      const mcp = validateListingInput({ type: 'mcp' }).map((e) => e.path).sort();
      assert.deepEqual(mcp, ['description', 'inputSchema', 'name', 'payment', 'resource']);
      const payment = validateListingInput(httpInput({ payment: {} as never })).map((e) => e.path).sort();
      assert.deepEqual(payment, ['payment.amount', 'payment.asset', 'payment.network', 'payment.scheme']);
    });

    it('amount: a base-10 integer string within a signed 64-bit long', () => {
      const amountError = (amount: unknown) =>
        validateListingInput(httpInput({ payment: { ...httpInput().payment, amount: amount as string } })).find((e) => e.path === 'payment.amount');
      for (const ok of ['0', '1', '100', '9223372036854775807']) assert.equal(amountError(ok), undefined, ok);
      for (const bad of ['9223372036854775808', '99999999999999999999', '1.5', '1e6', '+1', '-1', ' 1', '007', '', 100, '0x10']) {
        assert.ok(amountError(bad), `${JSON.stringify(bad)} is rejected`);
      }
    });

    it('MCP schemas must be JSON Schema objects', () => {
      const errors = validateListingInput(
        mcpInput({ inputSchema: { type: 'string' }, outputSchema: { type: 'object', properties: [], required: 'x' } as never }),
      );
      const paths = errors.map((e) => e.path).sort();
      assert.deepEqual(paths, ['inputSchema.type', 'outputSchema.properties', 'outputSchema.required']);
      const notSchema = validateListingInput(mcpInput({ inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } }));
      assert.equal(notSchema[0]?.path, 'inputSchema');
      assert.equal(validateListingInput(mcpInput({ inputSchema: [] as never }))[0]?.path, 'inputSchema');
    });

    it('maps legacy x402 network names to CAIP-2 and rejects unknown ones', () => {
      assert.equal(toCaip2Network('base-sepolia'), 'eip155:84532');
      assert.equal(toCaip2Network('base'), 'eip155:8453');
      assert.equal(toCaip2Network('avalanche-fuji'), 'eip155:43113');
      assert.equal(toCaip2Network('polygon-amoy'), 'eip155:80002');
      assert.equal(toCaip2Network('sei-testnet'), 'eip155:1328');
      assert.equal(toCaip2Network('iotex'), 'eip155:4689');
      assert.equal(toCaip2Network('eip155:84532'), 'eip155:84532');
      assert.equal(toCaip2Network('narnia'), undefined);
      assert.deepEqual(validateListingInput(httpInput({ payment: { ...httpInput().payment, network: 'base-sepolia' } })), []);
    });

    it('the writer throws InvalidListingError carrying the fields, and writes nothing', async () => {
      const before = await h.container.catalog.queue.stats();
      await assert.rejects(
        writer().upsert({ ...httpInput(), resource: 'not a url' }, { source: 'publish' }),
        (err: unknown) => err instanceof InvalidListingError && err.errors.some((e) => e.path === 'resource'),
      );
      const after = await h.container.catalog.queue.stats();
      assert.equal(after.depth, before.depth);
    });
  });

  describe('upsert', () => {
    it('stores a canonical CAIP-2 document that becomes searchable promptly', async () => {
      const input = httpInput({
        resource: 'HTTPS://Search.Example:443/v1/web-search?q=1#frag',
        payment: { ...httpInput().payment, network: 'base-sepolia' },
        describe: { title: 'Web search', inputs: { queryText: 'string' } },
      });
      const { id, created, document } = await writer().upsert(input, { source: 'publish' });
      assert.equal(created, true);
      assert.equal(id, httpListingId('https://search.example/v1/web-search'));
      const doc = await applied(id);
      // The writer answers with the document it stores: a response built from it shows what a read will.
      assert.deepEqual(toListing(document), toListing(doc));
      assert.equal(doc.resource, 'https://search.example/v1/web-search');
      assert.equal(doc.host, 'search.example');
      assert.equal(doc.payment.network, 'eip155:84532');
      assert.equal(doc.removed, false);
      assert.match(doc.keywords ?? '', /\bquery text\b.*\bv1 web search\b/);
      await waitFor(async () => (await searchableCount({ term: { id } })) === 1, 5000, 50);
      assert.deepEqual(toListing(doc), {
        id,
        type: 'http',
        resource: 'https://search.example/v1/web-search',
        payment: input.payment.payTo
          ? { scheme: 'exact', network: 'eip155:84532', asset: input.payment.asset, amount: '10000', payTo: input.payment.payTo }
          : input.payment,
        describe: { title: 'Web search', inputs: { queryText: 'string' } },
        signals: { settleCount7d: 0, rejectionRate7d: 0 },
        provenance: {},
      });
    });

    it('the same resource in different spellings is one listing; routeTemplate becomes a brace template', async () => {
      const spellings = [
        'https://Geo.Example/users/42',
        'HTTPS://geo.example:443/users/7?x=1',
        'https://geo.example/users/{userId}',
      ];
      const ids = new Set<string>();
      for (const resource of spellings) {
        const { id } = await writer().upsert(httpInput({ resource, routeTemplate: resource.includes('{') ? undefined : '/users/:userId' }), { source: 'announce' });
        ids.add(id);
      }
      assert.equal(ids.size, 1);
      const [id] = [...ids];
      const doc = await applied(id!);
      assert.equal(doc.resource, 'https://geo.example/users/{userId}');
      await waitFor(async () => (await searchableCount({ term: { canonicalKey: 'GET https://geo.example/users/{userId}' } })) === 1, 5000, 50);
      // A different method is a different listing.
      const post = await writer().upsert(httpInput({ resource: 'https://geo.example/users/{userId}', method: 'post' }), { source: 'announce' });
      assert.notEqual(post.id, id);
    });

    it('created is true only when the id was not live; an update keeps firstSeen and signals, replaces content', async () => {
      const input = mcpInput({ resource: 'mcp://Tools.Example/summarize', name: 'summarize' });
      const first = await writer().upsert(input, { source: 'publish', owner: 'tok_1', seenAt: new Date('2026-01-01T00:00:00Z') });
      assert.equal(first.created, true);
      assert.equal(first.id, mcpListingId('mcp://tools.example', 'summarize'));
      await applied(first.id);
      await writer().updateSignals([{ id: first.id, signals: { lastSettled: '2026-01-02T00:00:00.000Z', settleCount7d: 4, rejectionRate7d: 0.25 } }]);
      await applied(first.id, (d) => d.signals.settleCount7d === 4);

      const { outputSchema: _dropped, ...withoutOutput } = input;
      const second = await writer().upsert(
        { ...withoutOutput, description: 'Summarize long documents', payment: { ...input.payment, pricing: undefined, amount: '70000' } as never },
        { source: 'publish', owner: 'tok_1', seenAt: new Date('2026-02-01T00:00:00Z') },
      );
      assert.deepEqual({ id: second.id, created: second.created }, { id: first.id, created: false });
      const doc = await applied(first.id, (d) => d.description === 'Summarize long documents');
      assert.equal(doc.firstSeen, '2026-01-01T00:00:00.000Z');
      assert.equal(doc.lastSeen, '2026-02-01T00:00:00.000Z');
      assert.deepEqual(doc.signals, { lastSettled: '2026-01-02T00:00:00.000Z', settleCount7d: 4, rejectionRate7d: 0.25 });
      assert.equal(doc.outputSchema, undefined, 'a dropped outputSchema is gone');
      assert.equal(doc.payment.pricing, undefined, 'a dropped pricing is gone');
      assert.equal(doc.payment.amount, '70000');
    });
  });

  describe('touch, remove, signals and bulk', () => {
    it('touch moves lastSeen only; remove takes the listing out and a later upsert brings it back as created', async () => {
      const { id } = await writer().upsert(httpInput({ resource: 'https://ocr.example/extract' }), { source: 'announce', seenAt: new Date('2026-03-01T00:00:00Z') });
      const stored = await applied(id);
      await writer().touch(id, new Date('2026-03-05T00:00:00Z'));
      const touched = await applied(id, (d) => d.lastSeen === '2026-03-05T00:00:00.000Z');
      assert.equal(touched.updatedAt, stored.updatedAt);
      assert.deepEqual(touched.payment, stored.payment);

      await writer().remove(id, 'unpublished');
      const removed = await applied(id, (d) => d.removed);
      assert.equal(removed.removedReason, 'unpublished');
      assert.ok(removed.removedAt);
      await waitFor(async () => (await searchableCount({ bool: { filter: [{ term: { id } }, { term: { removed: false } }] } })) === 0, 5000, 50);

      const again = await writer().upsert(httpInput({ resource: 'https://ocr.example/extract' }), { source: 'announce' });
      assert.deepEqual({ id: again.id, created: again.created }, { id, created: true });
      const back = await applied(id, (d) => !d.removed);
      assert.equal(back.removedReason, undefined);
      assert.equal(back.firstSeen, '2026-03-01T00:00:00.000Z');
    });

    it('touch, remove and updateSignals on an unknown id are dropped, not dead-lettered', async () => {
      await writer().touch('lst_000000000000000000000000');
      await writer().remove('lst_000000000000000000000001', 'stale');
      await writer().updateSignals([{ id: 'lst_000000000000000000000002', signals: { settleCount7d: 1, rejectionRate7d: 0 } }]);
      const stats = await waitFor(async () => {
        const s = await h.container.catalog.queue.stats();
        return s.depth === 0 ? s : undefined;
      }, 10_000, 50);
      assert.equal(stats.deadLetters, 0);
      assert.equal(await reader().get('lst_000000000000000000000000'), undefined);
    });

    it('updateSignals replaces the block, clearing a lastSettled that is no longer there', async () => {
      const { id } = await writer().upsert(
        httpInput({ resource: 'https://fx.example/latest', signals: { lastSettled: '2026-05-01T10:00:00Z', settleCount7d: 9, rejectionRate7d: 0.5 } }),
        { source: 'import' },
      );
      const imported = await applied(id);
      assert.deepEqual(imported.signals, { lastSettled: '2026-05-01T10:00:00.000Z', settleCount7d: 9, rejectionRate7d: 0.5 });
      await writer().updateSignals([{ id, signals: { settleCount7d: 0, rejectionRate7d: 0 } }]);
      const updated = await applied(id, (d) => d.signals.settleCount7d === 0);
      assert.deepEqual(updated.signals, { settleCount7d: 0, rejectionRate7d: 0 });
      assert.deepEqual(toListing(updated).signals, { settleCount7d: 0, rejectionRate7d: 0 });
    });

    it('many writes to one listing in quick succession apply in order: the last one wins', async () => {
      const inputs = Array.from({ length: 40 }, (_, i) =>
        httpInput({ resource: 'https://order.example/quote', payment: { ...httpInput().payment, amount: String(1000 + i) } }),
      );
      // Other listings in between, so the writes spread over several batches.
      const noise = Array.from({ length: 40 }, (_, i) => httpInput({ resource: `https://order.example/noise/${i}` }));
      const mixed = inputs.flatMap((input, i) => [input, noise[i]!]);
      const { accepted } = await writer().upsertMany(mixed.slice(0, 40), { source: 'import' });
      await writer().updateSignals([{ id: accepted[0]!.id, signals: { settleCount7d: 5, rejectionRate7d: 0 } }]);
      await writer().upsertMany(mixed.slice(40), { source: 'import' });
      const doc = await waitFor(async () => ((await h.container.catalog.queue.stats()).depth === 0 ? reader().get(accepted[0]!.id) : undefined));
      assert.equal(doc.payment.amount, '1039');
      assert.equal(doc.signals.settleCount7d, 5, 'the signals written between two upserts survive the later one');
    });

    it('a row of traffic writes to one listing in a batch is applied as its last one, and the listings between are applied too', async () => {
      // One listing paid many times a second (a fresh payTo per payment, say) gets a traffic write per
      // settlement: a batch sends only the last of a row of them (catalogOperations.ts supersededOperations).
      const hot = (i: number) => httpInput({ resource: 'https://hot.example/paid', payment: { ...httpInput().payment, amount: String(2000 + i) } });
      const { id } = await writer().upsert(hot(0), { source: 'traffic' });
      await applied(id);
      const store = new ListingStore(h.elasticsearch, h.config.listingsAlias);
      const upsert = (input: ReturnType<typeof httpInput>, source: 'traffic' | 'import', at: number): CatalogOperation => {
        const doc = buildListingDocument(input, { source }, new Date(Date.UTC(2026, 10, 26, 12, 0, at)));
        return { op: 'upsert', id: doc.id, doc, replaceSignals: false };
      };
      const operations = Array.from({ length: 30 }, (_, i) => [upsert(hot(i + 1), 'traffic', i), upsert(httpInput({ resource: `https://hot.example/other/${i}` }), 'import', i)]).flat();
      const outcomes = await store.apply(operations);
      const hotOutcomes = outcomes.filter((_, i) => operations[i]!.id === id).map((o) => o.status);
      assert.deepEqual(hotOutcomes, [...Array<string>(29).fill('dropped'), 'applied']);
      assert.ok(outcomes.every((o, i) => operations[i]!.id === id || o.status === 'applied'));
      const stored = await reader().get(id);
      assert.equal(stored?.payment.amount, '2030');
      assert.equal(stored?.lastSeen, '2026-11-26T12:00:29.000Z');
    });

    it('upsertMany queues the valid entries and reports each invalid one with its index and fields', async () => {
      const result = await writer().upsertMany(
        [
          httpInput({ resource: 'https://bulk.example/a' }),
          { ...httpInput({ resource: 'https://bulk.example/b' }), payment: { scheme: 'exact' } },
          mcpInput({ resource: 'mcp://bulk.example/tool_one', name: 'tool_one' }),
          'not a listing',
          httpInput({ resource: 'https://bulk.example/a' }),
        ],
        { source: 'import' },
      );
      assert.deepEqual(result.accepted.map((a) => [a.index, a.created]), [[0, true], [2, true], [4, false]]);
      assert.equal(result.accepted[0]!.id, result.accepted[2]!.id);
      assert.deepEqual(result.rejected.map((r) => r.index), [1, 3]);
      assert.deepEqual(result.rejected[0]!.errors.map((e) => e.path).sort(), ['payment.amount', 'payment.asset', 'payment.network']);
      for (const a of result.accepted) await applied(a.id);
      await waitFor(async () => (await searchableCount({ prefix: { resource: 'https://bulk.example' } })) === 1, 5000, 50);
      await waitFor(async () => (await searchableCount({ prefix: { resource: 'mcp://bulk.example' } })) === 1, 5000, 50);
    });
  });
});
