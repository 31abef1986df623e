/**
 * Expands the hand-written compact source of eval/tasks (src/*.txt) into the files of the set:
 * listings.jsonl, queries.json (every task query, with its split), tuning.json, heldout.json and
 * history.jsonl. Run from anywhere: `npx tsx eval/tasks/build.ts`. Deterministic: the same
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
    const [, name, type, , enumText, req] = m;
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
  const where = `${file}:${block[0][0]}`;
  const [head, ...rest] = block.map(([, t]) => t);
  const fields = new Map<string, string>();
  for (const line of rest) {
    const key = line[0];
    if (!'$~TD#<=!'.includes(key) || line[1] !== ' ' && line !== '!') throw new Error(`${where}: bad line "${line}"`);
    if (fields.has(key)) throw new Error(`${where}: "${key}" twice`);
    fields.set(key, line.slice(2).trim());
  }
  let type: 'http' | 'mcp';
  let method: string | undefined;
  let resource: string;
  const h = /^H (GET|POST) (\S+)$/.exec(head);
  const m = /^M (mcp:\/\/\S+)$/.exec(head);
  if (h) [type, method, resource] = ['http', h[1], h[2]];
  else if (m) [type, resource] = ['mcp', m[1]];
  else throw new Error(`${where}: bad head "${head}"`);

  const pay = (fields.get('$') ?? '').split(/\s+/);
  if (pay.length !== 3 && pay.length !== 5) throw new Error(`${where}: bad payment`);
  const [scheme, net, amount, unit, perUnit] = pay;
  if (scheme !== 'exact' && scheme !== 'upto') throw new Error(`${where}: bad scheme`);
  const network = `eip155:${net}`;
  if (!USDC[network]) throw new Error(`${where}: bad network`);
  if (!/^[1-9][0-9]*$/.test(amount)) throw new Error(`${where}: bad amount`);
  const host = new URL(resource.replace(/^mcp:/, 'https:')).host;
  const labels = host.split('.');
  const keep = labels.length >= 3 && /^(co|com|org|net)$/.test(labels[labels.length - 2]) && labels[labels.length - 1].length === 2 ? 3 : 2;
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
    const at = new Date(ref - ageMs(sig[2], where)).toISOString().replace('.000Z', 'Z');
    signals = { settleCount7d: Number(sig[0]), rejectionRate7d: Number(sig[1]), lastSettled: at };
  } else throw new Error(`${where}: bad signals`);

  const tags = fields.get('#')?.split(',').map((t) => t.trim()).filter(Boolean);
  const groups = new Map<string, number>();
  for (const g of (fields.get('=') ?? '').split(/\s+/).filter(Boolean)) {
    const gm = /^([a-z0-9]+\.[a-z0-9]+):([0-3])$/.exec(g);
    if (!gm) throw new Error(`${where}: bad group "${g}"`);
    groups.set(gm[1], Number(gm[2]));
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
  return { file, line: block[0][0], resource, type, groups, spam, json, amount: Number(amount), neverSettled };
}

// ---------------------------------------------------------------- main

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const listings = parseListings();
  const seen = new Set<string>();
  for (const l of listings) {
    if (seen.has(l.resource)) throw new Error(`${l.file}:${l.line}: duplicate resource ${l.resource}`);
    seen.add(l.resource);
  }
  writeFileSync(join(DIR, 'listings.jsonl'), listings.map((l) => JSON.stringify(l.json)).join('\n') + '\n');
  console.log(`${listings.length} listings`);
}
