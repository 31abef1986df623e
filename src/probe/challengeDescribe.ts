/**
 * The listing's `describe` block carried in a 402 (docs/announce.md, "What is read from a 402"). Our seller SDK sends it explicitly; other x402
 * sellers only have the resource description, the Bazaar service metadata (`serviceName`, `tags`,
 * `iconUrl`, read by x402/bazaarMetadata.ts as on every other path) and the bazaar discovery
 * extension (or v1 `outputSchema.input`), from which the same fields are derived. Explicit values win.
 * Looked for, in order: `describe`, `extensions.describe`, `extensions.bazaar.info.describe`,
 * `accepts[0].extra.describe`, `accepts[0].describe`.
 */
import type { Describe } from '../shapes/listing.js';
import { isObject, type JsonObject } from '../core/json.js';
import { cleanIconUrl, type BazaarMetadata } from '../x402/bazaarMetadata.js';

const LIMITS = { title: 200, description: 2000, tags: 32, tag: 64, inputs: 64, name: 64, typeName: 64 };

const str = (value: unknown, max: number): string | undefined =>
  typeof value === 'string' && value.trim().length > 0 ? value.trim().slice(0, max) : undefined;

export function describeFromChallenge(
  raw: JsonObject,
  bazaar: JsonObject | undefined,
  firstAccept: JsonObject | undefined,
  metadata: BazaarMetadata,
): Describe | undefined {
  const info = isObject(bazaar?.info) ? bazaar.info : undefined;
  const explicit = [
    raw.describe,
    isObject(raw.extensions) ? raw.extensions.describe : undefined,
    info?.describe,
    isObject(firstAccept?.extra) ? firstAccept.extra.describe : undefined,
    firstAccept?.describe,
  ].find(isObject);

  const resource = isObject(raw.resource) ? raw.resource : undefined;
  const describe: Describe = {};
  const title = str(explicit?.title, LIMITS.title) ?? metadata.serviceName;
  if (title) describe.title = title;
  const description =
    str(explicit?.description, LIMITS.description) ??
    str(resource?.description, LIMITS.description) ??
    str(firstAccept?.description, LIMITS.description);
  if (description) describe.description = description;
  const tags = tagList(explicit?.tags) ?? metadata.tags ?? tagList(bazaar?.tags);
  if (tags) describe.tags = tags;
  const iconUrl = cleanIconUrl(explicit?.iconUrl) ?? metadata.iconUrl;
  if (iconUrl) describe.iconUrl = iconUrl;
  const inputs = inputMap(explicit?.inputs) ?? inputsFromDiscovery(bazaar, firstAccept);
  if (inputs) describe.inputs = inputs;
  return Object.keys(describe).length > 0 ? describe : undefined;
}

function tagList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const tags = [...new Set(value.map((t) => str(t, LIMITS.tag)).filter((t): t is string => t !== undefined))].slice(0, LIMITS.tags);
  return tags.length > 0 ? tags : undefined;
}

/** `{name: 'type'}` as declared; anything that is not a string type name is dropped. */
function inputMap(value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [name, type] of Object.entries(value).slice(0, LIMITS.inputs)) {
    const typeName = str(type, LIMITS.typeName);
    if (name.length > 0 && name.length <= LIMITS.name && typeName) out[name] = typeName;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Input names and types from the bazaar extension (`info.input.queryParams|body|pathParams` as
 * examples, typed by `schema.properties.input.properties.*.properties`) or v1 `outputSchema.input`
 * (`queryParams`, `bodyFields`: `{name: {type}}` or `{name: 'type'}`).
 */
function inputsFromDiscovery(bazaar: JsonObject | undefined, firstAccept: JsonObject | undefined): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const info = isObject(bazaar?.info) ? bazaar.info : undefined;
  const input = isObject(info?.input) ? info.input : undefined;
  const schemaInput = pick(bazaar, ['schema', 'properties', 'input', 'properties']);
  for (const group of ['pathParams', 'queryParams', 'body']) {
    const examples = isObject(input?.[group]) ? (input[group] as JsonObject) : {};
    const typed = pick(schemaInput, [group, 'properties']) ?? {};
    for (const name of new Set([...Object.keys(typed), ...Object.keys(examples)])) {
      const declared = isObject(typed[name]) ? str(typed[name].type, LIMITS.typeName) : undefined;
      out[name] ??= declared ?? typeOfExample(examples[name]);
    }
  }
  const v1Input = pick(firstAccept, ['outputSchema', 'input']);
  for (const group of ['queryParams', 'bodyFields', 'body']) {
    const fields = isObject(v1Input?.[group]) ? (v1Input[group] as JsonObject) : {};
    for (const [name, spec] of Object.entries(fields)) {
      out[name] ??= str(spec, LIMITS.typeName) ?? (isObject(spec) ? str(spec.type, LIMITS.typeName) : undefined) ?? 'string';
    }
  }
  const entries = Object.entries(out).filter(([name]) => name.length > 0 && name.length <= LIMITS.name).slice(0, LIMITS.inputs);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

function pick(value: unknown, path: string[]): JsonObject | undefined {
  let current: unknown = value;
  for (const key of path) current = isObject(current) ? current[key] : undefined;
  return isObject(current) ? current : undefined;
}

function typeOfExample(example: unknown): string {
  if (Array.isArray(example)) return 'array';
  if (example === null || example === undefined) return 'string';
  if (typeof example === 'number') return Number.isInteger(example) ? 'integer' : 'number';
  return typeof example;
}
