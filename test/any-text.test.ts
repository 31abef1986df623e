/**
 * Issue 43, item 7: any text is a query. Every name a JavaScript prototype carries (the words a
 * plain-object lookup table answers with Object's own members: `q=constructor` was a 500) and a
 * large sample of the English dictionary go to the search endpoints as `q` and to the catalog
 * reads as filter values, against the demo catalog (so the typo pass, synonyms and word counts run
 * on real listings). Nothing answers 5xx: a word is a query or a 400 naming the parameter.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { seedDemoCatalog } from './support/demoCatalog.js';
import { startHarness, type Harness } from './support/harness.js';

/** Every own member name of every global constructor's prototype, and Object's and Function's own. */
function prototypeMemberNames(): string[] {
  const names = new Set<string>(['__proto__', 'prototype']);
  const globals = globalThis as unknown as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(globalThis)) {
    let value: unknown;
    try {
      value = globals[key];
    } catch {
      continue;
    }
    if (typeof value !== 'function') continue;
    const proto = (value as { prototype?: object }).prototype;
    if (proto) for (const name of Object.getOwnPropertyNames(proto)) names.add(name);
    for (const name of Object.getOwnPropertyNames(value)) names.add(name);
  }
  for (const name of Object.getOwnPropertyNames(Object.prototype)) names.add(name);
  return [...names].filter((name) => name.length > 0);
}

/** Every `step`-th word of the hunspell English dictionary the search's spelling check also uses (dictionary-en). */
function dictionarySample(step: number): string[] {
  // The package exports only its loader; the word list sits beside it.
  const path = createRequire(import.meta.url).resolve('dictionary-en').replace(/index\.js$/, 'index.dic');
  const lines = readFileSync(path, 'utf8').split('\n').slice(1);
  const words: string[] = [];
  for (let i = 0; i < lines.length; i += step) {
    const word = lines[i]!.split('/')[0]!.trim();
    if (word) words.push(word);
  }
  return words;
}

describe('any text is a query (issue 43, item 7)', function () {
  this.timeout(240_000);
  let h: Harness;
  let server: Server;
  let base: string;
  const names = prototypeMemberNames();
  const statuses = new Map<number, number>();
  const fiveHundreds: string[] = [];

  before(async () => {
    h = await startHarness();
    await seedDemoCatalog(h);
    server = h.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
  });

  /** GETs every path, four at a time, and counts the statuses; a 5xx is remembered with its path. */
  async function sweep(paths: string[]): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < paths.length) {
        const path = paths[next++]!;
        const res = await fetch(`${base}${path}`);
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) fiveHundreds.push(`${res.status} ${path}`);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  }
  const q = (path: string, params: Record<string, string>) => `${path}?${new URLSearchParams(params).toString()}`;

  it(`sends each of the ${names.length} prototype member names as q to every search endpoint: no 5xx`, async () => {
    assert.ok(names.length > 400, `${names.length} names`);
    assert.ok(names.includes('constructor') && names.includes('hasOwnProperty') && names.includes('toLocaleString'));
    // One name per search on the main endpoint (single-word queries take paths of their own: the
    // exact-name clause, the typo pass); eight at a time on the endpoints over the same search.
    const groups: string[] = [];
    for (let i = 0; i < names.length; i += 8) groups.push(names.slice(i, i + 8).join(' '));
    await sweep([
      ...names.map((name) => q('/discovery/search', { q: name })),
      ...groups.flatMap((words) => [q('/discovery/search', { q: `website ${words}` }), q('/mcp/tools', { q: words }), q('/x402/discovery/search', { query: words })]),
    ]);
    assert.deepEqual(fiveHundreds, []);
    // The first of these was a 500 before (a plain-object table of abbreviations).
    const res = await fetch(`${base}/discovery/search?q=constructor`);
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(((await res.json()) as { results: unknown[] }).results));
  });

  it('sends them as the value of every filter and as a parameter name: 200 or 400, no 5xx', async () => {
    // Every name where the value is free text; every eighth where it must be one of a few words
    // (those are checked against a list before anything looks them up).
    const closed = ['scheme', 'type', 'sort', 'limit', 'cursor', 'maxPrice', 'payWith', 'maxUsd', 'explain'];
    const paths = names.flatMap((name, i) => [
      // A tag is free text (the read runs with it); payTo and asset are checked together.
      q('/discovery/resources', { capability: name }),
      q('/discovery/resources', { payTo: name, asset: name }),
      q('/discovery/resources', { network: name }),
      q('/discovery/resources', { [name]: 'x' }),
      ...(i % 8 === 0
        ? [
            ...closed.map((filter) => q('/discovery/resources', { [filter]: name })),
            q('/discovery/search', { q: 'weather', capability: name, payTo: name }),
            q('/discovery/merchant', { payTo: name }),
            `/discovery/resources/${encodeURIComponent(name)}`,
            q('/discovery/announce/status', { resource: name }),
            q('/discovery/changes', { since: name }),
          ]
        : []),
    ]);
    await sweep(paths);
    assert.deepEqual(fiveHundreds, []);
  });

  it('sends a tenth of the English dictionary as q (twenty words at a time, and some alone): no 5xx', async () => {
    const words = dictionarySample(10);
    assert.ok(words.length > 4500, `${words.length} words`);
    const singles = words.filter((_, i) => i % 60 === 0).map((word) => q('/discovery/search', { q: word }));
    const groups: string[] = [];
    for (let i = 0; i < words.length; i += 20) groups.push(q('/discovery/search', { q: words.slice(i, i + 20).join(' ') }));
    await sweep([...singles, ...groups, ...words.filter((_, i) => i % 40 === 0).map((word) => q('/discovery/resources', { capability: word }))]);
    assert.deepEqual(fiveHundreds, []);
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    console.log(`      ${total} requests: ${[...statuses].map(([status, count]) => `${count}x ${status}`).join(', ')}`);
  });
});
