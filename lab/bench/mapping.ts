/**
 * What each analyzed part of mappings/listings.json costs Elasticsearch per document (issue 14,
 * bulk load): the same generated listing documents are indexed into scratch indices whose mapping
 * leaves one part out, and each index's own indexing and refresh time (index stats: thread time of
 * that index, waiting for a core included) and the node's CPU are compared per 1,000 documents.
 * Variants run in rounds (each variant once per round, the order rotating), since the node is shared.
 *
 *   npx tsx lab/bench/mapping.ts [--count 30000] [--rounds 2] [--variants full,no-phrase-text,...]
 *
 * Only measures: a variant without a field the queries use cannot serve search as it is.
 */
import { buildListingDocument } from '../../src/door.js';
import { checkListingInput } from '../../src/door.js';
import { loadConfig } from '../../src/door.js';
import { createElasticsearchClient } from '../../src/door.js';
import { loadIndexDefinition, type IndexDefinition } from '../../src/door.js';
import { fail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { elasticsearchCpuMs } from '../lib/httpLoad.js';
import { generateListings } from '../lib/listingGenerator.js';

type Mapping = Record<string, unknown>;

/** Calls `visit` on every field mapping (properties and multi-fields), with its dotted path. */
function eachField(properties: Record<string, Mapping>, visit: (path: string, field: Mapping, siblings: Record<string, Mapping>, name: string) => void, prefix = ''): void {
  for (const [name, field] of Object.entries(properties)) {
    const path = `${prefix}${name}`;
    visit(path, field, properties, name);
    if (field.properties) eachField(field.properties as Record<string, Mapping>, visit, `${path}.`);
    if (field.fields) eachField(field.fields as Record<string, Mapping>, visit, `${path}.`);
  }
}

const VARIANTS: Record<string, (definition: IndexDefinition) => void> = {
  full: () => {},
  // phrase_text: copy of name, description, titles and tags, hunspell-stemmed again, with positions.
  'no-phrase-text': (d) => {
    delete (d.mappings.properties as Record<string, Mapping>).phrase_text;
    eachField(d.mappings.properties as Record<string, Mapping>, (_p, field) => delete field.copy_to);
  },
  'phrase-text-unstemmed': (d) => {
    ((d.mappings.properties as Record<string, Mapping>).phrase_text as Mapping).analyzer = 'catalog_text';
  },
  'no-stemmed-subfields': (d) => {
    eachField(d.mappings.properties as Record<string, Mapping>, (_p, field) => {
      if (field.fields) delete (field.fields as Record<string, Mapping>).stemmed;
    });
  },
  'no-hunspell': (d) => {
    const analyzers = (d.settings.index as { analysis: { analyzer: Record<string, { filter: string[] }> } }).analysis.analyzer;
    analyzers.catalog_stemmed!.filter = analyzers.catalog_stemmed!.filter.filter((f) => f !== 'catalog_hunspell');
  },
  'no-title-phrases': (d) => {
    eachField(d.mappings.properties as Record<string, Mapping>, (path, field) => {
      if (path === 'describe.title' && field.fields) delete (field.fields as Record<string, Mapping>).phrases;
    });
  },
  'no-index-sort': (d) => {
    const index = d.settings.index as Record<string, unknown>;
    delete index['sort.field'];
    delete index['sort.order'];
  },
};

const { values } = parseCommandLine(
  { options: { count: { type: 'string', default: '30000' }, rounds: { type: 'string', default: '2' }, variants: { type: 'string', default: Object.keys(VARIANTS).join(',') } } },
  `usage: bench-mapping [--count N] [--rounds N] [--variants ${Object.keys(VARIANTS).join(',')}]`,
);
const count = numberOption('count', values.count, { max: 200_000 });
const rounds = numberOption('rounds', values.rounds, { max: 10 });
const variants = values.variants.split(',').map((v) => v.trim());
for (const v of variants) if (!VARIANTS[v]) fail(`unknown variant "${v}"`);

interface Result { variant: string; indexMs: number; refreshMs: number; mergeMs: number; nodeCpuMs: number; wallMs: number; storeBytes: number }

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const client = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 120_000 });
  const docs = generateListings(count, 1).map((input) => {
    const checked = checkListingInput(input);
    if (!checked.ok) fail('generator produced an invalid listing', 1);
    return buildListingDocument(checked.listing, { source: 'import' }, new Date());
  });
  const results: Result[] = [];
  const stamp = Date.now().toString(36);
  try {
    for (let round = 0; round < rounds; round++) {
      const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
      for (const variant of order) {
        const definition = loadIndexDefinition();
        VARIANTS[variant]!(definition);
        const index = `bench-mapping-${stamp}-${variant}-${round}`;
        await client.indices.create({ index, settings: definition.settings, mappings: definition.mappings } as never);
        const cpuBefore = await elasticsearchCpuMs(client);
        const started = performance.now();
        // As the ingest consumer sends them: batches of 1,000, two at a time, refresh every second.
        const batches: Array<typeof docs> = [];
        for (let i = 0; i < docs.length; i += 1000) batches.push(docs.slice(i, i + 1000));
        const send = async () => {
          for (let batch = batches.shift(); batch; batch = batches.shift()) {
            const response = await client.bulk({ index, operations: batch.flatMap((doc) => [{ create: { _id: doc.id } }, doc]), filter_path: ['errors'] });
            if (response.errors) fail(`bulk into ${index} had errors`, 1);
          }
        };
        await Promise.all([send(), send()]);
        await client.indices.refresh({ index });
        const wallMs = performance.now() - started;
        const nodeCpuMs = (await elasticsearchCpuMs(client)) - cpuBefore;
        const stats = (await client.indices.stats({ index, metric: ['indexing', 'refresh', 'merge', 'store'] }))._all.primaries;
        results.push({
          variant,
          indexMs: stats?.indexing?.index_time_in_millis ?? 0,
          refreshMs: stats?.refresh?.total_time_in_millis ?? 0,
          mergeMs: stats?.merges?.total_time_in_millis ?? 0,
          storeBytes: stats?.store?.size_in_bytes ?? 0,
          nodeCpuMs,
          wallMs,
        });
        await client.indices.delete({ index });
        process.stderr.write(`round ${round + 1} ${variant}: index ${results.at(-1)!.indexMs} ms, refresh ${results.at(-1)!.refreshMs} ms, node CPU ${Math.round(nodeCpuMs)} ms\n`);
      }
    }
  } finally {
    await client.indices.delete({ index: `bench-mapping-${stamp}-*` }).catch(() => undefined);
    await client.close();
  }
  const per = (ms: number) => ((ms / count) * 1000).toFixed(0);
  const lines = [
    `${count} generated listing documents per index, ${rounds} round(s); ms per 1,000 documents: the lowest of the rounds (each round in parentheses), store size`,
    '',
    '| variant | index time | refresh time | merge time | node CPU (shared node) | store |',
    '|---|---|---|---|---|---|',
    ...variants.map((variant) => {
      const rows = results.filter((r) => r.variant === variant);
      // The lowest: what the node shared with other work adds only ever raises a number.
      const lowest = (pick: (r: Result) => number) => Math.min(...rows.map(pick));
      const all = (pick: (r: Result) => number) => rows.map((r) => per(pick(r))).join(', ');
      return `| ${variant} | ${per(lowest((r) => r.indexMs))} (${all((r) => r.indexMs)}) | ${per(lowest((r) => r.refreshMs))} | ${per(lowest((r) => r.mergeMs))} | ${per(lowest((r) => r.nodeCpuMs))} (${all((r) => r.nodeCpuMs)}) | ${(lowest((r) => r.storeBytes) / 1e6).toFixed(1)} MB |`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

runMain('bench-mapping', main);
