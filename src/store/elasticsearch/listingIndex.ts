/**
 * The listing index: a versioned index (`listings-v1`) behind an alias (`listings`) that every read
 * and write uses, so a reindex into `listings-v2` is an alias swap, not a deploy.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Client } from '@elastic/elasticsearch';
import { errors } from '@elastic/elasticsearch';
import type { IndexLayout } from '../../config/index.js';
import { settingsWithLayout } from './indexLayout.js';
import { elasticsearchAnswers } from './client.js';

interface FieldMapping {
  type?: string;
  enabled?: boolean;
  properties?: Record<string, FieldMapping>;
  fields?: Record<string, FieldMapping>;
  [k: string]: unknown;
}

export interface IndexDefinition {
  settings: Record<string, unknown>;
  mappings: { dynamic?: string; _source?: Record<string, unknown>; _meta?: Record<string, unknown>; properties: Record<string, FieldMapping> };
}

const DEFINITION_PATH = fileURLToPath(new URL('../../../../mappings/listings.json', import.meta.url));
const SOURCE_DEFINITION_PATH = fileURLToPath(new URL('../../../mappings/listings.json', import.meta.url));

/** mappings/listings.json, found both when running from src/ (tsx) and from dist/src (node). */
export function loadIndexDefinition(): IndexDefinition {
  for (const path of [SOURCE_DEFINITION_PATH, DEFINITION_PATH]) {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as IndexDefinition;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  throw new Error(`mappings/listings.json not found (looked at ${SOURCE_DEFINITION_PATH} and ${DEFINITION_PATH})`);
}

export class IncompatibleIndexError extends Error {
  constructor(readonly index: string, readonly conflicts: string[]) {
    super(
      `index "${index}" has a mapping this service cannot use:\n${conflicts.map((c) => `  - ${c}`).join('\n')}\n` +
        'Point the alias at a compatible index (or set LISTINGS_ALIAS/LISTINGS_INDEX to new names) and restart.',
    );
    this.name = 'IncompatibleIndexError';
  }
}

/** Flattens a mapping to `path -> descriptor` for comparison (object with enabled:false counts as a leaf). */
function flatten(properties: Record<string, FieldMapping>, prefix = '', out = new Map<string, string>()): Map<string, string> {
  for (const [name, field] of Object.entries(properties)) {
    const path = prefix ? `${prefix}.${name}` : name;
    const type = field.type ?? 'object';
    out.set(path, field.enabled === false ? `${type}(disabled)` : type);
    if (field.properties) flatten(field.properties, path, out);
    if (field.fields) flatten(field.fields, path, out);
  }
  return out;
}

/**
 * Lists the fields whose type differs between what the code needs and what the index has. Fields
 * the index lacks are not conflicts: they are added with a put-mapping (additive changes are safe).
 */
export function mappingConflicts(expected: IndexDefinition['mappings'], actual: { properties?: Record<string, FieldMapping> }): {
  conflicts: string[];
  missing: string[];
} {
  const want = flatten(expected.properties);
  const have = flatten(actual.properties ?? {});
  const conflicts: string[] = [];
  const missing: string[] = [];
  for (const [path, type] of want) {
    const found = have.get(path);
    if (found === undefined) missing.push(path);
    else if (found !== type) conflicts.push(`field "${path}" is ${found}, expected ${type}`);
  }
  return { conflicts, missing };
}

export interface BootstrapResult {
  index: string;
  created: boolean;
  addedFields: string[];
}

/**
 * Creates `index` behind `alias` when neither exists; otherwise checks the index the alias points
 * at and refuses (IncompatibleIndexError) when its mapping conflicts. Never touches the ranking
 * tunables of an existing index: those belong to the operator.
 */
export async function ensureListingIndex(client: Client, alias: string, index: string, layout?: IndexLayout): Promise<BootstrapResult> {
  const definition = loadIndexDefinition();
  const current = await resolveAlias(client, alias);
  if (current === undefined) {
    if (await client.indices.exists({ index: alias })) {
      throw new IncompatibleIndexError(alias, [`"${alias}" is a concrete index, not an alias; the service needs it to be an alias`]);
    }
    if (await client.indices.exists({ index })) {
      const added = await checkAndExtend(client, index, definition);
      await client.indices.updateAliases({ actions: [{ add: { index, alias, is_write_index: true } }] });
      return { index, created: false, addedFields: added };
    }
    try {
      await client.indices.create({
        index,
        settings: settingsWithLayout(definition.settings, layout),
        mappings: definition.mappings as never,
        aliases: { [alias]: { is_write_index: true } },
        wait_for_active_shards: 1,
      });
      return { index, created: true, addedFields: [] };
    } catch (err) {
      // Another instance created it first; fall through to the checks an existing index gets.
      if (!(err instanceof errors.ResponseError && err.body?.error?.type === 'resource_already_exists_exception')) throw err;
      return ensureListingIndex(client, alias, index, layout);
    }
  }
  const added = await checkAndExtend(client, current, definition);
  return { index: current, created: false, addedFields: added };
}

async function resolveAlias(client: Client, alias: string): Promise<string | undefined> {
  try {
    const found = await client.indices.getAlias({ name: alias });
    const indices = Object.keys(found);
    if (indices.length > 1) {
      const writer = indices.find((name) => found[name]?.aliases?.[alias]?.is_write_index);
      if (!writer) throw new IncompatibleIndexError(alias, [`alias "${alias}" points at ${indices.join(', ')} and none is its write index`]);
      return writer;
    }
    return indices[0];
  } catch (err) {
    if (err instanceof errors.ResponseError && err.meta.statusCode === 404) return undefined;
    throw err;
  }
}

async function checkAndExtend(client: Client, index: string, definition: IndexDefinition): Promise<string[]> {
  const response = await client.indices.getMapping({ index });
  const actual = Object.values(response)[0]?.mappings ?? {};
  const { conflicts, missing } = mappingConflicts(definition.mappings, actual as { properties?: Record<string, FieldMapping> });
  const schemaVersion = (actual as { _meta?: { schemaVersion?: unknown } })._meta?.schemaVersion;
  if (schemaVersion === undefined) conflicts.unshift('mapping has no _meta.schemaVersion: it was not created by this service');
  else if (typeof schemaVersion === 'number' && schemaVersion > Number(definition.mappings._meta?.schemaVersion ?? 0)) {
    conflicts.unshift(`mapping schemaVersion ${schemaVersion} is newer than this service understands`);
  } else if (typeof schemaVersion === 'number' && schemaVersion < Number(definition.mappings._meta?.schemaVersion ?? 0)) {
    // Analysis (analyzers, index_options) cannot change on a live index: it needs a new one.
    conflicts.unshift(
      `mapping schemaVersion ${schemaVersion} predates ${String(definition.mappings._meta?.schemaVersion)} (new text analysis): ` +
        'rebuild the index with `npm run reindex` (zero downtime), then start the service',
    );
  }
  if (conflicts.length > 0) throw new IncompatibleIndexError(index, conflicts);
  if (missing.length > 0) {
    // Only the new top-level properties are sent; Elasticsearch merges them into the existing mapping.
    await client.indices.putMapping({ index, properties: definition.mappings.properties as never });
  }
  return missing;
}

/** What catalog/indexKeeper.ts needs to put the listing index back when it disappears at run time. */
export class ListingIndexGuard {
  constructor(
    private readonly client: Client,
    readonly alias: string,
    private readonly index: string,
  ) {}

  /** The cluster answers (an unreachable node is not a missing index). */
  answers(): Promise<boolean> {
    return elasticsearchAnswers(this.client);
  }

  aliasExists(): Promise<boolean> {
    return this.client.indices.existsAlias({ name: this.alias });
  }

  /** Creates the index with its mapping and the alias, where missing. */
  ensure(): Promise<BootstrapResult> {
    return ensureListingIndex(this.client, this.alias, this.index);
  }
}

/**
 * A wildcard delete needs action.destructive_requires_name=false (scripts/services.sh sets it).
 * Errors are swallowed: cleanup must not hide the outcome of the run it follows.
 */
export async function dropDeploymentIndices(elasticsearch: Client, listingsIndex: string, listingsAlias?: string): Promise<void> {
  // `<alias>-outcomes`: the paid-outcome links (store/elasticsearch/outcomeLinks.ts).
  const patterns = [`${listingsIndex}*`, ...(listingsAlias ? [`${listingsAlias}-v*`, `${listingsAlias}-outcomes`] : [])];
  await elasticsearch.indices.delete({ index: patterns.join(','), ignore_unavailable: true, allow_no_indices: true }).catch(() => {});
}
