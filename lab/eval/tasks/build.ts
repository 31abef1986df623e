/**
 * Expands the hand-written compact source of eval/tasks (src/*.txt) into the files of the set:
 * listings.jsonl, all.json (every task query, with its split), tuning.json, heldout.json and
 * history.jsonl. Run from anywhere: `npx tsx lab/eval/tasks/build.ts`. Deterministic: the same
 * source gives byte-identical files (the split and the history use only seeded hashes).
 *
 * It adds no text: every title, description, tag, input, query and intent comes verbatim from the
 * source. What it derives is structural: the payment block's asset (USDC of the network),
 * maxTimeoutSeconds, payTo (from the resource's host), lastSettled (referenceTime minus the
 * written age), MCP tool names (the resource's last path segment), JSON Schemas from the compact
 * argument lists, judgments from the need groups, the split and the history lines.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DIR = dirname(fileURLToPath(import.meta.url));
export const REFERENCE_TIME = '2026-12-08T00:00:00Z';
export const SEED = 'eval/tasks v1';

const USDC: Record<string, string> = {
  'eip155:84532': '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  'eip155:8453': '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
};

export const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const addressOf = (label: string) => `0x${sha(label).slice(0, 40)}`;

// ---------------------------------------------------------------- listings

export interface SourceListing {
  file: string;
  line: number;
  resource: string;
  type: 'http' | 'mcp';
  groups: Map<string, number>;
  spam: boolean;
  json: Record<string, unknown>;
  amount: number;
  neverSettled: boolean;
}

function ageMs(age: string, where: string): number {
  const m = /^(\d+)([mhd])$/.exec(age);
  if (!m) throw new Error(`${where}: bad age ${age}`);
  const n = Number(m[1]);
  return n * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'];
}

/** `name:type! ; other:string(a|b)` -> a JSON Schema of the arguments object. */
function toolSchema(spec: string, where: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of spec.split(';').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9_]+):(string|number|integer|boolean|array|object)(\(([^)]*)\))?(!)?$/.exec(part);
    if (!m) throw new Error(`${where}: bad tool argument "${part}"`);
    const [, name = '', type, , enumText, req] = m;
    const prop: Record<string, unknown> = { type };
    if (type === 'array') prop.items = { type: 'string' };
    if (enumText) prop.enum = enumText.split('|');
    properties[name] = prop;
    if (req) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** `name: free text ; other: text` -> describe.inputs. */
function httpInputs(spec: string, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of spec.split(' ; ').map((p) => p.trim()).filter(Boolean)) {
    const i = part.indexOf(':');
    if (i <= 0) throw new Error(`${where}: bad input "${part}"`);
    out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

export function parseListings(): SourceListing[] {
  const ref = Date.parse(REFERENCE_TIME);
  const files = readdirSync(join(DIR, 'src')).filter((f) => f.startsWith('listings-') && f.endsWith('.txt')).sort();
  const out: SourceListing[] = [];
  for (const file of files) {
    const lines = readFileSync(join(DIR, 'src', file), 'utf8').split('\n');
    let block: Array<[number, string]> = [];
    const flush = () => {
      if (block.length === 0) return;
      out.push(parseBlock(file, block, ref));
      block = [];
    };
    lines.forEach((text, i) => {
      if (text.startsWith('//')) return;
      if (text.trim() === '') flush();
      else block.push([i + 1, text]);
    });
    flush();
  }
  return out;
}

function parseBlock(file: string, block: Array<[number, string]>, ref: number): SourceListing {
  const where = `${file}:${block[0]![0]}`;
  const [head = '', ...rest] = block.map(([, t]) => t);
  const fields = new Map<string, string>();
  for (const line of rest) {
    const key = line[0] ?? '';
    if (!'$~TD#<=!'.includes(key) || line[1] !== ' ' && line !== '!') throw new Error(`${where}: bad line "${line}"`);
    if (fields.has(key)) throw new Error(`${where}: "${key}" twice`);
    fields.set(key, line.slice(2).trim());
  }
  let type: 'http' | 'mcp';
  let method: string | undefined;
  let resource: string;
  const h = /^H (GET|POST) (\S+)$/.exec(head);
  const m = /^M (mcp:\/\/\S+)$/.exec(head);
  if (h) [type, method, resource] = ['http', h[1], h[2]!];
  else if (m) [type, resource] = ['mcp', m[1]!];
  else throw new Error(`${where}: bad head "${head}"`);

  const pay = (fields.get('$') ?? '').split(/\s+/);
  if (pay.length !== 3 && pay.length !== 5) throw new Error(`${where}: bad payment`);
  const [scheme, net, amount = '', unit, perUnit] = pay;
  if (scheme !== 'exact' && scheme !== 'upto') throw new Error(`${where}: bad scheme`);
  const network = `eip155:${net}`;
  if (!USDC[network]) throw new Error(`${where}: bad network`);
  if (!/^[1-9][0-9]*$/.test(amount)) throw new Error(`${where}: bad amount`);
  const host = new URL(resource.replace(/^mcp:/, 'https:')).host;
  const labels = host.split('.');
  const keep = labels.length >= 3 && /^(co|com|org|net)$/.test(labels[labels.length - 2]!) && labels[labels.length - 1]!.length === 2 ? 3 : 2;
  const seller = labels.slice(-keep).join('.');
  const payment: Record<string, unknown> = {
    scheme,
    network,
    asset: USDC[network],
    amount,
    payTo: addressOf(`payTo|${seller}`),
    maxTimeoutSeconds: 60,
  };
  if (unit) payment.pricing = { unit, pricePerUnit: perUnit };

  const sig = (fields.get('~') ?? '').split(/\s+/);
  let signals: Record<string, unknown>;
  let neverSettled = false;
  if (sig[0] === 'null') {
    signals = { lastSettled: null, settleCount7d: null, rejectionRate7d: null };
    neverSettled = true;
  } else if (sig.length === 1 && sig[0] === '0') {
    signals = { settleCount7d: 0, rejectionRate7d: 0 };
    neverSettled = true;
  } else if (sig.length === 3) {
    const at = new Date(ref - ageMs(sig[2]!, where)).toISOString().replace('.000Z', 'Z');
    signals = { settleCount7d: Number(sig[0]), rejectionRate7d: Number(sig[1]), lastSettled: at };
  } else throw new Error(`${where}: bad signals`);

  const tags = fields.get('#')?.split(',').map((t) => t.trim()).filter(Boolean);
  const groups = new Map<string, number>();
  for (const g of (fields.get('=') ?? '').split(/\s+/).filter(Boolean)) {
    const gm = /^([a-z0-9]+\.[a-z0-9]+):([0-3])$/.exec(g);
    if (!gm) throw new Error(`${where}: bad group "${g}"`);
    groups.set(gm[1]!, Number(gm[2]));
  }
  const spam = fields.has('!');
  const description = fields.get('D') ?? '';
  let json: Record<string, unknown>;
  if (type === 'http') {
    const describe: Record<string, unknown> = {};
    if (fields.has('T')) describe.title = fields.get('T');
    if (description) describe.description = description;
    if (tags) describe.tags = tags;
    if (fields.has('<')) describe.inputs = httpInputs(fields.get('<')!, where);
    json = { type, resource, ...(method === 'POST' ? { method } : {}), payment, describe, signals };
  } else {
    const name = resource.split('/').pop()!;
    json = {
      type,
      resource,
      name,
      ...(fields.has('T') ? { title: fields.get('T') } : {}),
      description,
      inputSchema: toolSchema(fields.get('<') ?? '', where),
      payment,
      ...(tags ? { tags } : {}),
      signals,
    };
  }
  return { file, line: block[0]![0], resource, type, groups, spam, json, amount: Number(amount), neverSettled };
}

// ---------------------------------------------------------------- task families

export interface Family {
  id: string;
  file: string;
  line: number;
  /** Per need, the need groups any listing of which serves it. */
  needs: string[][];
  intent: string;
  tags: string[];
  queries: Array<{ id: string; q: string; tags: string[] }>;
  overrides: Array<{ target: string; grade: number; need?: number }>;
}

export function parseFamilies(): Family[] {
  const files = readdirSync(join(DIR, 'src')).filter((f) => f.startsWith('tasks-') && f.endsWith('.txt')).sort();
  const out: Family[] = [];
  for (const file of files) {
    let cur: Family | undefined;
    readFileSync(join(DIR, 'src', file), 'utf8').split('\n').forEach((text, i) => {
      const where = `${file}:${i + 1}`;
      if (text.startsWith('//') || text.trim() === '') return;
      const key = text.slice(0, 2);
      const rest = text.slice(2).trim();
      if (key === 'F ') {
        if (!/^[a-z0-9-]+$/.test(rest)) throw new Error(`${where}: bad family id`);
        cur = { id: rest, file, line: i + 1, needs: [], intent: '', tags: [], queries: [], overrides: [] };
        out.push(cur);
        return;
      }
      if (!cur) throw new Error(`${where}: line outside a family`);
      if (key === 'n ') cur.needs = rest.split(' ; ').map((n) => n.split('|').map((g) => g.trim()));
      else if (key === 'i ') cur.intent = rest;
      else if (key === 'c ') cur.tags = rest.split(',').map((t) => t.trim());
      else if (key === 'q ' || key === 'q[') {
        const m = /^q(?:\[([a-z, -]+)\])? (.+)$/.exec(text);
        if (!m) throw new Error(`${where}: bad query line`);
        const tags = m[1] ? m[1].split(',').map((t) => t.trim()) : [];
        cur.queries.push({ id: `${cur.id}-${cur.queries.length + 1}`, q: m[2]!.trim(), tags });
      }
      else if (key === 'o ') {
        const m = /^(\S+) ([0-3])(?: (\d))?$/.exec(rest);
        if (!m) throw new Error(`${where}: bad override`);
        cur.overrides.push({ target: m[1]!, grade: Number(m[2]), ...(m[3] ? { need: Number(m[3]) } : {}) });
      } else throw new Error(`${where}: bad line "${text}"`);
    });
  }
  return out;
}

export interface TaskQuery {
  id: string;
  family: string;
  q: string;
  intent: string;
  categories: string[];
  needs: string[][];
  judgments: Record<string, number>;
  split?: 'tuning' | 'heldout' | 'history';
}

/** Judgments and needs of a family, from the need groups its needs name and its overrides. */
export function judgeFamily(f: Family, listings: SourceListing[]): { needs: string[][]; judgments: Map<string, number>; signature: string } {
  const byResource = new Map(listings.map((l) => [l.resource, l]));
  const groupMembers = new Map<string, Array<[SourceListing, number]>>();
  for (const l of listings) for (const [g, grade] of l.groups) {
    if (!groupMembers.has(g)) groupMembers.set(g, []);
    groupMembers.get(g)!.push([l, l.spam ? 0 : grade]);
  }
  const judgments = new Map<string, number>();
  const raise = (r: string, g: number) => judgments.set(r, Math.max(judgments.get(r) ?? 0, g));
  const needSets: Array<Map<string, number>> = f.needs.map(() => new Map());
  f.needs.forEach((groups, k) => {
    for (const g of groups) {
      const members = groupMembers.get(g);
      if (!members) throw new Error(`${f.file}:${f.line}: family ${f.id} names unknown need group ${g}`);
      for (const [l, grade] of members) {
        raise(l.resource, grade);
        if (grade >= 2) needSets[k]!.set(l.resource, Math.max(needSets[k]!.get(l.resource) ?? 0, grade));
      }
    }
  });
  for (const o of f.overrides) {
    const targets = byResource.has(o.target) ? [o.target] : (groupMembers.get(o.target) ?? []).map(([l]) => l.resource);
    if (targets.length === 0) throw new Error(`${f.file}:${f.line}: override of unknown ${o.target}`);
    for (const r of targets) {
      if (byResource.get(r)!.spam && o.grade > 0) throw new Error(`${f.id}: spam ${r} overridden above 0`);
      judgments.set(r, o.grade);
      for (const set of needSets) if (o.grade < 2) set.delete(r);
      if (o.grade >= 2 && o.need !== undefined) needSets[o.need - 1]!.set(r, o.grade);
      for (const set of needSets) if (set.has(r)) set.set(r, o.grade);
    }
  }
  const needs = needSets.map((set) =>
    [...set].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([r]) => r),
  );
  needs.forEach((n, k) => {
    if (!n.some((r) => judgments.get(r) === 3)) throw new Error(`${f.id}: need ${k + 1} has no grade-3 listing`);
  });
  const signature = f.needs.map((n) => [...n].sort().join('|')).sort().join(' ; ');
  return { needs, judgments, signature };
}

function derivedCategories(needs: string[][], judgments: Map<string, number>, byResource: Map<string, SourceListing>): string[] {
  const cats: string[] = [];
  if (needs.some((n) => n.filter((r) => judgments.get(r) === 3).length >= 2)) cats.push('near-duplicate');
  if (needs.some((n) => Math.min(...n.filter((r) => judgments.get(r) === 3).map((r) => byResource.get(r)!.amount)) >= 1_000_000)) cats.push('expensive-best');
  if (needs.some((n) => n.some((r) => judgments.get(r) === 3 && byResource.get(r)!.neverSettled))) cats.push('never-settled-best');
  if ([...judgments].some(([r, g]) => g === 0 && byResource.get(r)!.spam)) cats.push('spam-target');
  if ([...judgments].some(([r, g]) => g === 0 && !byResource.get(r)!.spam)) cats.push('distractor');
  return cats;
}

// ---------------------------------------------------------------- split

export interface Split {
  queries: TaskQuery[];
  /** signature -> split of the unit (every family with that need signature). */
  unitSplit: Map<string, 'tuning' | 'heldout'>;
}

/**
 * The seeded split (README "Split rule"): the unit is the need signature (every family whose needs
 * name the same groups), so two queries of one task kind never land on both sides. Units are taken
 * in the order of sha256(SEED|unit|signature) within strata of (need count, has a history
 * paraphrase), and each goes to the side with fewer evaluation queries in its stratum so far (then
 * fewer overall, then tuning). In each family of two or more queries, the query with the smallest
 * sha256(SEED|history|id) is the history paraphrase; the others go with the unit.
 */
export function splitQueries(families: Family[], listings: SourceListing[]): Split {
  const byResource = new Map(listings.map((l) => [l.resource, l]));
  const queries: TaskQuery[] = [];
  const units = new Map<string, Array<{ family: Family; qs: TaskQuery[] }>>();
  for (const f of families) {
    const { needs, judgments, signature } = judgeFamily(f, listings);
    const cats = ['task', `${f.needs.length}-needs`, ...f.tags, ...derivedCategories(needs, judgments, byResource)];
    const sortedJudgments = Object.fromEntries(
      [...judgments].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
    );
    const qs: TaskQuery[] = f.queries.map((q) => ({
      id: q.id,
      family: f.id,
      q: q.q,
      intent: f.intent,
      categories: [...new Set([...cats, ...q.tags])],
      needs,
      judgments: sortedJudgments,
    }));
    if (qs.length === 0) throw new Error(`${f.id}: no query`);
    if (qs.length >= 2) {
      const h = [...qs].sort((a, b) => (sha(`${SEED}|history|${a.id}`) < sha(`${SEED}|history|${b.id}`) ? -1 : 1))[0];
      h!.split = 'history';
    }
    queries.push(...qs);
    if (!units.has(signature)) units.set(signature, []);
    units.get(signature)!.push({ family: f, qs });
  }
  const strata = new Map<string, string[]>();
  for (const [sig, fams] of units) {
    const key = `${fams[0]!.family.needs.length}|${fams.some((f) => f.qs.length >= 2)}`;
    if (!strata.has(key)) strata.set(key, []);
    strata.get(key)!.push(sig);
  }
  const unitSplit = new Map<string, 'tuning' | 'heldout'>();
  const overall = { tuning: 0, heldout: 0 };
  for (const key of [...strata.keys()].sort()) {
    const inStratum = { tuning: 0, heldout: 0 };
    const sigs = strata.get(key)!.sort((a, b) => (sha(`${SEED}|unit|${a}`) < sha(`${SEED}|unit|${b}`) ? -1 : 1));
    for (const sig of sigs) {
      const side: 'tuning' | 'heldout' =
        inStratum.tuning !== inStratum.heldout
          ? inStratum.tuning < inStratum.heldout ? 'tuning' : 'heldout'
          : overall.tuning <= overall.heldout ? 'tuning' : 'heldout';
      unitSplit.set(sig, side);
      const n = units.get(sig)!.flatMap((f) => f.qs).filter((q) => q.split !== 'history').length;
      inStratum[side] += n;
      overall[side] += n;
      for (const f of units.get(sig)!) for (const q of f.qs) if (q.split !== 'history') q.split = side;
    }
  }
  return { queries, unitSplit };
}

// ---------------------------------------------------------------- history

export interface HistoryLine {
  q: string;
  resource: string;
  payer: string;
  at: string;
}

export const PAYERS = Array.from({ length: 90 }, (_, i) => addressOf(`payer|${i}`));

const hashInt = (label: string) => parseInt(sha(`${SEED}|${label}`).slice(0, 12), 16);

/**
 * Payments after past searches (README "History"): for each need of a history query, one grade-3
 * listing of the need (seeded pick) paid by 3-8 distinct payers; for one need in five with another
 * listing of grade >= 2, that one too by 3 payers (a listing already paid for the query is not paid again); and for one history query in four, one payment
 * by a single payer to a listing the query does not judge (noise).
 */
export function historyLines(queries: TaskQuery[], listings: SourceListing[]): HistoryLine[] {
  const ref = Date.parse(REFERENCE_TIME);
  const lines: HistoryLine[] = [];
  const pay = (q: TaskQuery, resource: string, count: number, label: string) => {
    const pool = [...PAYERS].sort((a, b) => hashInt(`${label}|payer|${a}`) - hashInt(`${label}|payer|${b}`));
    for (let i = 0; i < count; i++) {
      const minutes = 60 + (hashInt(`${label}|at|${i}`) % (29 * 24 * 60));
      lines.push({ q: q.q, resource, payer: pool[i]!, at: new Date(ref - minutes * 60_000).toISOString().replace('.000Z', 'Z') });
    }
  };
  for (const q of queries.filter((x) => x.split === 'history')) {
    const paid = new Set<string>(); // a listing serving two needs of the query is paid once
    q.needs.forEach((need, k) => {
      const label = `${q.id}|need|${k}`;
      if (need.some((r) => paid.has(r))) return;
      const best = need.filter((r) => q.judgments[r] === 3);
      const first = best[hashInt(`${label}|pick`) % best.length]!;
      pay(q, first, 3 + (hashInt(`${label}|count`) % 6), `${label}|1`);
      paid.add(first);
      const others = need.filter((r) => !paid.has(r));
      if (others.length > 0 && hashInt(`${label}|second`) % 5 === 0) {
        const second = others[hashInt(`${label}|pick2`) % others.length]!;
        pay(q, second, 3, `${label}|2`);
        paid.add(second);
      }
    });
    if (hashInt(`${q.id}|noise`) % 4 === 0) {
      const unjudged = listings.filter((l) => !(l.resource in q.judgments));
      pay(q, unjudged[hashInt(`${q.id}|noise-pick`) % unjudged.length]!.resource, 1, `${q.id}|noise`);
    }
  }
  return lines.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.payer < b.payer ? -1 : 1));
}

// ---------------------------------------------------------------- main

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const listings = parseListings();
  const seen = new Set<string>();
  for (const l of listings) {
    if (seen.has(l.resource)) throw new Error(`${l.file}:${l.line}: duplicate resource ${l.resource}`);
    seen.add(l.resource);
  }
  const spam = listings.filter((l) => l.spam).map((l) => l.resource);
  const families = parseFamilies();
  const ids = new Set<string>();
  for (const f of families) {
    if (ids.has(f.id)) throw new Error(`duplicate family ${f.id}`);
    ids.add(f.id);
  }
  const { queries } = splitQueries(families, listings);
  const history = historyLines(queries, listings);
  const strip = ({ family: _f, split: _s, ...rest }: TaskQuery) => rest;
  const setFile = (side: string) =>
    JSON.stringify({ referenceTime: REFERENCE_TIME, spam, queries: queries.filter((q) => q.split === side).map(strip) }, null, 1) + '\n';
  writeFileSync(join(DIR, 'listings.jsonl'), listings.map((l) => JSON.stringify(l.json)).join('\n') + '\n');
  writeFileSync(
    join(DIR, 'all.json'),
    JSON.stringify({ referenceTime: REFERENCE_TIME, spam, seed: SEED, queries: queries.map(({ family, ...rest }) => ({ ...rest, family })) }, null, 1) + '\n',
  );
  writeFileSync(join(DIR, 'tuning.json'), setFile('tuning'));
  writeFileSync(join(DIR, 'heldout.json'), setFile('heldout'));
  writeFileSync(join(DIR, 'history.jsonl'), history.map((h) => JSON.stringify(h)).join('\n') + '\n');
  const count = (s: string) => queries.filter((q) => q.split === s).length;
  console.log(`${listings.length} listings, ${families.length} families, ${queries.length} queries: tuning ${count('tuning')}, heldout ${count('heldout')}, history ${count('history')}; ${history.length} history lines`);
}
