/**
 * Checks the task set of this folder (README.md) and prints its counts:
 *   npx tsx lab/eval/tasks/check.ts
 * Exit code 1 with every problem listed when a check fails. It reads only this folder, the
 * project's write-path validation (src/catalog/validation.ts, the check `npm run import` applies
 * to every entry) and, for a collision count only, the listings files of the other eval sets.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { canonicalIdentity, parseListingFile, validateListingInput } from '../../../src/door.js';
import { DIR, REFERENCE_TIME, parseFamilies, parseListings, splitQueries, historyLines } from './build.js';

interface Query {
  id: string;
  q: string;
  intent: string;
  categories: string[];
  needs: string[][];
  judgments: Record<string, number>;
  split?: string;
  family?: string;
}
interface SetFile {
  referenceTime: string;
  spam: string[];
  queries: Query[];
}
interface History {
  q: string;
  resource: string;
  payer: string;
  at: string;
}

const USDC: Record<string, string> = {
  'eip155:84532': '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  'eip155:8453': '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
};
const STOP = new Set('the and for with that this what from have are you can your there how into about any get need want just then also our out its will does which when where who all but not too some'.split(' '));
const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu)?.filter((w) => !STOP.has(w)) ?? []);
const jaccard = (a: Set<string>, b: Set<string>) => {
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / (a.size + b.size - inter || 1);
};
const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)}%`;

async function main(): Promise<void> {
  const problems: string[] = [];
  const fail = (m: string) => problems.push(m);
  const read = (f: string) => readFileSync(join(DIR, f), 'utf8');

  // ------------------------------------------------------------ listings
  const listingText = read('listings.jsonl');
  const entries = parseListingFile(listingText);
  const listings = new Map<string, Record<string, any>>();
  const canonical = new Set<string>();
  const payToBySeller = new Map<string, string>();
  for (const e of entries) {
    if ('error' in e) {
      fail(`listing #${e.index}: ${e.error.message}`);
      continue;
    }
    const v = e.value as Record<string, any>;
    const errors = validateListingInput(v);
    if (errors.length > 0) fail(`listing #${e.index} ${v.resource}: ${errors.map((x) => `${x.path} ${x.message}`).join('; ')}`);
    if (listings.has(v.resource)) fail(`listing #${e.index}: resource ${v.resource} twice`);
    listings.set(v.resource, v);
    const id = canonicalIdentity(v.type === 'http' ? { type: 'http', resource: v.resource, method: v.method ?? 'GET' } : { type: 'mcp', resource: v.resource, name: v.name });
    const key = `${v.type} ${v.method ?? ''} ${id.resource} ${v.name ?? ''}`;
    if (canonical.has(key)) fail(`listing ${v.resource}: canonical key ${key} twice`);
    canonical.add(key);
    if (USDC[v.payment.network] !== v.payment.asset) fail(`listing ${v.resource}: asset is not USDC of ${v.payment.network}`);
    if (!/^0x[0-9a-f]{40}$/.test(v.payment.payTo)) fail(`listing ${v.resource}: payTo not an address`);
    const last = v.signals?.lastSettled;
    if (typeof last === 'string') {
      const age = Date.parse(REFERENCE_TIME) - Date.parse(last);
      if (age <= 0 || age > 10 * 86_400_000) fail(`listing ${v.resource}: lastSettled not within 10 days before referenceTime`);
    }
    const host = new URL(v.resource.replace(/^mcp:/, 'https:')).host;
    const prev = payToBySeller.get(host);
    if (prev && prev !== v.payment.payTo) fail(`host ${host} has two payTo`);
    payToBySeller.set(host, v.payment.payTo);
  }

  // ------------------------------------------------------------ queries
  const all = JSON.parse(read('all.json')) as SetFile & { seed: string };
  const tuning = JSON.parse(read('tuning.json')) as SetFile;
  const heldout = JSON.parse(read('heldout.json')) as SetFile;
  const history = read('history.jsonl').trim().split('\n').map((l) => JSON.parse(l) as History);
  const spam = new Set(all.spam);
  for (const f of [all, tuning, heldout]) {
    if (f.referenceTime !== REFERENCE_TIME) fail(`a set file has referenceTime ${f.referenceTime}`);
    if (JSON.stringify(f.spam) !== JSON.stringify(all.spam)) fail('the spam lists of the files differ');
  }
  for (const r of spam) if (!listings.has(r)) fail(`spam ${r} is not a listing`);
  const ids = new Set<string>();
  const checkQuery = (q: Query, where: string) => {
    if (ids.has(q.id)) fail(`${where} ${q.id}: duplicate id`);
    ids.add(q.id);
    if (!q.q || !q.intent || !Array.isArray(q.categories) || !q.categories.includes('task')) fail(`${q.id}: q, intent or categories missing`);
    if (!Array.isArray(q.needs) || q.needs.length < 1 || q.needs.length > 3) fail(`${q.id}: ${q.needs?.length} needs (must be 1-3)`);
    if (!q.categories.includes(`${q.needs.length}-needs`)) fail(`${q.id}: category ${q.needs.length}-needs missing`);
    for (const [r, g] of Object.entries(q.judgments)) {
      if (!listings.has(r)) fail(`${q.id}: judged ${r} is not a listing`);
      if (!Number.isInteger(g) || g < 0 || g > 3) fail(`${q.id}: grade ${g}`);
      if (spam.has(r) && g > 0) fail(`${q.id}: spam ${r} judged ${g}`);
    }
    q.needs.forEach((need, k) => {
      if (need.length === 0) fail(`${q.id}: need ${k + 1} is empty`);
      for (const r of need) {
        if (!listings.has(r)) fail(`${q.id}: need ${k + 1} names ${r}, not a listing`);
        if ((q.judgments[r] ?? 0) < 2) fail(`${q.id}: need ${k + 1} listing ${r} judged ${q.judgments[r] ?? 'nothing'} (< 2)`);
      }
      if (!need.some((r) => q.judgments[r] === 3)) fail(`${q.id}: need ${k + 1} has no grade-3 listing`);
    });
  };
  for (const q of tuning.queries) checkQuery(q, 'tuning');
  for (const q of heldout.queries) checkQuery(q, 'heldout');
  const historyQueries = all.queries.filter((q) => q.split === 'history');
  for (const q of historyQueries) checkQuery(q, 'history');

  // The split files are exactly the seeded split of the source (and so of all.json).
  const source = splitQueries(parseFamilies(), parseListings());
  const strip = ({ family: _f, split: _s, ...rest }: any) => rest;
  for (const [name, file] of [['tuning', tuning], ['heldout', heldout]] as const) {
    const expected = source.queries.filter((q) => q.split === name).map(strip);
    if (JSON.stringify(expected) !== JSON.stringify(file.queries)) fail(`${name}.json is not the seeded split of the source (run build.ts)`);
    const inAll = all.queries.filter((q) => q.split === name).map(strip);
    if (JSON.stringify(inAll) !== JSON.stringify(file.queries)) fail(`${name}.json differs from the ${name} queries of all.json`);
  }
  const expectedHistory = historyLines(source.queries, parseListings());
  if (JSON.stringify(expectedHistory) !== JSON.stringify(history)) fail('history.jsonl is not what build.ts derives from the source');

  // ------------------------------------------------------------ history
  const evalTexts = new Set([...tuning.queries, ...heldout.queries].map((q) => q.q.trim().toLowerCase()));
  const historyTexts = new Map(historyQueries.map((q) => [q.q, q]));
  const ref = Date.parse(REFERENCE_TIME);
  const payersOf = new Map<string, Set<string>>();
  for (const h of history) {
    if (!listings.has(h.resource)) fail(`history: ${h.resource} is not a listing`);
    if (!/^0x[0-9a-f]{40}$/.test(h.payer)) fail(`history: payer ${h.payer} is not an EVM address`);
    const at = Date.parse(h.at);
    if (!(at < ref && at >= ref - 30 * 86_400_000)) fail(`history: ${h.at} is not within 30 days before referenceTime`);
    if (evalTexts.has(h.q.trim().toLowerCase())) fail(`history: query "${h.q}" is a tuning or held-out query`);
    if (!historyTexts.has(h.q)) fail(`history: query "${h.q}" is not a history query of all.json`);
    const key = `${h.q}\u0000${h.resource}`;
    if (!payersOf.has(key)) payersOf.set(key, new Set());
    if (payersOf.get(key)!.has(h.payer)) fail(`history: ${h.payer} pays ${h.resource} twice for one query`);
    payersOf.get(key)!.add(h.payer);
  }
  const paid = new Set<string>(); // resources paid by 3+ payers after one history query
  let noise = 0;
  let relevantPairs = 0;
  for (const [key, payers] of payersOf) {
    const [q = '', resource = ''] = key.split('\u0000');
    const hq = historyTexts.get(q);
    const needed = hq?.needs.some((n) => n.includes(resource)) ?? false;
    if (needed) {
      relevantPairs++;
      if (payers.size < 3 || payers.size > 8) fail(`history: ${payers.size} payers for a needed listing (must be 3-8)`);
      paid.add(resource);
    } else {
      noise++;
      if (payers.size !== 1) fail(`history: a payment to an unneeded listing by ${payers.size} payers (noise is single-payer)`);
      if ((hq?.judgments[resource] ?? 0) > 0) fail(`history: noise payment to a judged listing`);
    }
  }
  for (const hq of historyQueries) {
    hq.needs.forEach((need, k) => {
      if (!need.some((r) => payersOf.has(`${hq.q}\u0000${r}`))) fail(`history: ${hq.id} need ${k + 1} was never paid for`);
    });
  }

  // ------------------------------------------------------------ split
  const evalCount = tuning.queries.length + heldout.queries.length;
  const total = evalCount + historyQueries.length;
  if (all.queries.length !== total) fail(`all.json has ${all.queries.length} queries, the splits ${total}`);
  const share = (n: number) => n / total;
  if (Math.abs(share(tuning.queries.length) - 0.4) > 0.05) fail(`tuning is ${pct(tuning.queries.length, total)} (about 40% wanted)`);
  if (Math.abs(share(heldout.queries.length) - 0.4) > 0.05) fail(`heldout is ${pct(heldout.queries.length, total)} (about 40% wanted)`);
  if (Math.abs(share(historyQueries.length) - 0.2) > 0.05) fail(`history is ${pct(historyQueries.length, total)} (about 20% wanted)`);

  // No held-out query is a near-copy of a tuning query: no shared need signature, little shared wording.
  const signature = (q: Query) => q.needs.map((n) => [...n].sort().join('|')).sort().join(' ; ');
  const tuningSigs = new Set(tuning.queries.map(signature));
  for (const q of heldout.queries) if (tuningSigs.has(signature(q))) fail(`heldout ${q.id} has the needs of a tuning query`);
  let maxSim = 0;
  let maxPair = '';
  const tuningWords = tuning.queries.map((q) => [q.id, words(q.q)] as const);
  for (const q of heldout.queries) {
    const w = words(q.q);
    for (const [id, tw] of tuningWords) {
      const s = jaccard(w, tw);
      if (s > maxSim) [maxSim, maxPair] = [s, `${q.id} / ${id}`];
    }
  }
  if (maxSim >= 0.5) fail(`heldout and tuning queries share too many words (${maxSim.toFixed(2)}: ${maxPair})`);
  let maxHist = 0;
  for (const hq of historyQueries) {
    const w = words(hq.q);
    for (const q of [...tuning.queries, ...heldout.queries]) maxHist = Math.max(maxHist, jaccard(w, words(q.q)));
  }

  // Coverage: a need of a tuning or held-out query is covered when history paid, with 3+ payers,
  // for one of the need's listings (after any history query); "by paraphrase" when a history query
  // of the same family did.
  const familyHasHistory = new Set(historyQueries.map((q) => q.family));
  const familyOf = new Map(all.queries.map((q) => [q.id, q.family]));
  const coverage = (qs: Query[]) => {
    let needs = 0;
    let covered = 0;
    let byParaphrase = 0;
    for (const q of qs) {
      for (const need of q.needs) {
        needs++;
        if (need.some((r) => paid.has(r))) covered++;
      }
      if (familyHasHistory.has(familyOf.get(q.id)!)) byParaphrase += q.needs.length;
    }
    return { needs, covered, byParaphrase, share: covered / needs };
  };
  const ct = coverage(tuning.queries);
  const ch = coverage(heldout.queries);
  for (const [name, c] of [['tuning', ct], ['heldout', ch]] as const) {
    if (c.share < 0.6 || c.share > 0.8) fail(`history covers ${pct(c.covered, c.needs)} of ${name} needs (60-80% wanted)`);
  }
  if (Math.abs(ct.share - ch.share) > 0.1) fail(`history covers tuning and heldout unequally (${pct(ct.covered, ct.needs)} vs ${pct(ch.covered, ch.needs)})`);

  // ------------------------------------------------------------ other sets (collision count only)
  const evalDir = dirname(DIR);
  let sharedResources = 0;
  const sharedHosts = new Set<string>();
  const hostsHere = new Set([...listings.keys()].map((r) => new URL(r.replace(/^mcp:/, 'https:')).host));
  for (const other of readdirSync(evalDir)) {
    const file = join(evalDir, other, 'listings.jsonl');
    if (other === 'tasks' || !existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = (JSON.parse(line) as { resource?: string }).resource;
      if (typeof r !== 'string') continue;
      if (listings.has(r)) sharedResources++;
      try {
        const h = new URL(r.replace(/^mcp:/, 'https:')).host;
        if (hostsHere.has(h)) sharedHosts.add(h);
      } catch {
        /* not a URL */
      }
    }
  }
  if (sharedResources > 0 || sharedHosts.size > 0) fail(`shares ${sharedResources} resources and hosts ${[...sharedHosts].join(', ')} with other eval sets`);

  // ------------------------------------------------------------ counts
  const ls = [...listings.values()];
  const by = <T,>(xs: T[], f: (x: T) => string) => xs.reduce((m, x) => m.set(f(x), (m.get(f(x)) ?? 0) + 1), new Map<string, number>());
  const fmt = (m: Map<string, number>) => [...m].sort().map(([k, v]) => `${k} ${v}`).join(', ');
  const needMix = (qs: Query[]) => fmt(by(qs, (q) => `${q.needs.length}-needs`));
  const grades = by([...tuning.queries, ...heldout.queries].flatMap((q) => Object.values(q.judgments).map(String)), (g) => `grade ${g}`);
  const neverSettled = ls.filter((l) => !l.signals?.lastSettled).length;
  console.log(`listings: ${ls.length} (${fmt(by(ls, (l) => l.type))}); ${spam.size} spam; ${neverSettled} never settled; networks ${fmt(by(ls, (l) => l.payment.network))}; schemes ${fmt(by(ls, (l) => l.payment.scheme))}; ${payToBySeller.size} hosts`);
  console.log(`queries: ${total} = tuning ${tuning.queries.length} (${pct(tuning.queries.length, total)}) + heldout ${heldout.queries.length} (${pct(heldout.queries.length, total)}) + history ${historyQueries.length} (${pct(historyQueries.length, total)})`);
  console.log(`  tuning:  ${needMix(tuning.queries)}`);
  console.log(`  heldout: ${needMix(heldout.queries)}`);
  console.log(`  history: ${needMix(historyQueries)}`);
  console.log(`  all:     ${needMix(all.queries)}`);
  console.log(`judgments (tuning + heldout): ${fmt(grades)}`);
  console.log(`categories (tuning + heldout): ${fmt(by([...tuning.queries, ...heldout.queries].flatMap((q) => q.categories), (c) => c))}`);
  console.log(`history: ${history.length} lines, ${new Set(history.map((h) => h.payer)).size} distinct payers, ${relevantPairs} (query, needed listing) pairs paid by 3-8 payers, ${noise} single-payer noise payments`);
  console.log(`coverage of needs by history payments: tuning ${pct(ct.covered, ct.needs)} of ${ct.needs}, heldout ${pct(ch.covered, ch.needs)} of ${ch.needs}; by a paraphrase in the same family: tuning ${pct(ct.byParaphrase, ct.needs)}, heldout ${pct(ch.byParaphrase, ch.needs)}`);
  console.log(`wording overlap (word Jaccard): heldout vs tuning max ${maxSim.toFixed(2)} (${maxPair}); history vs evaluation max ${maxHist.toFixed(2)}`);
  console.log(`collisions with other eval sets: ${sharedResources} resources, ${sharedHosts.size} hosts`);
  if (problems.length > 0) {
    console.error(`\n${problems.length} problem(s):\n${problems.join('\n')}`);
    process.exitCode = 1;
  } else console.log('\nok');
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
