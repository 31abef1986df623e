// The linter `npm test` runs before mocha (docs/architecture.md, "Rules the linter keeps"):
// type-aware typescript-eslint for promises nobody awaits, import-x for import circles (type-only
// imports included), and no-restricted-imports for the floors of the house (an import may only
// point down).
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** import-x/no-cycle as it is, but following `import type` edges too (see the module's comment). */
const TYPE_EDGES_PARSER = require.resolve('./scripts/lint/typeImportEdges.cjs');
const { followTypeImports } = require(TYPE_EDGES_PARSER);
const importXWithTypeEdges = { ...importX, rules: { ...importX.rules, 'no-cycle': followTypeImports(importX.rules['no-cycle']) } };

/**
 * The features in their order, bottom up (docs/architecture.md, "The order of features"): a feature
 * imports only features of the tiers below its own, never one beside it or above it.
 */
const FEATURE_TIERS = [['semantic'], ['catalog', 'outcomes'], ['search', 'probe', 'publish', 'signals', 'changes', 'staleness'], ['announce', 'bazaar'], ['federation', 'facilitator']];
const FEATURES = FEATURE_TIERS.flat();
/**
 * Transports over the services, like http: MCP discovery, the web page, the OpenAPI document, and
 * the problem table they share (src/problems: codes, statuses, domain error -> problem).
 */
const TRANSPORTS = ['http', 'mcp', 'web', 'openapi', 'problems'];

/**
 * `no-restricted-imports` patterns forbidding imports of the given src/ folders (relative imports).
 * Scoped packages are let through: `@x402/extensions/bazaar` is a package, not src/bazaar.
 */
function forbid(folders, message) {
  return folders.map((folder) => ({ group: [`**/${folder}/*`, `**/${folder}`, '!@*/**'], message }));
}

/**
 * The backend clients: their packages and the store's modules that hand out client types. Only
 * src/store and the composition root (src/container.ts, src/app.ts, src/server.ts) may import them;
 * everywhere else a feature asks the store for an adapter (src/store/stores.ts).
 */
const CLIENT_BAN = [
  {
    group: ['@elastic/elasticsearch', '@elastic/elasticsearch/*', 'ioredis', 'ioredis/*'],
    message: 'Only src/store and the composition root hold Elasticsearch and Redis clients: use a store adapter (src/store/stores.ts).',
  },
  {
    group: ['**/store/clients', '**/store/clients.js', '**/store/elasticsearch/client', '**/store/elasticsearch/client.js', '**/store/redis/client', '**/store/redis/client.js'],
    message: 'The client modules of src/store are for src/store and the composition root: use a store adapter (src/store/stores.ts).',
  },
];
/**
 * chain/ is the dev chain's deploy and funding logic (Hardhat-only RPC methods, public dev keys,
 * solc): scripts, tests and the lab use it; the service, which is given an RPC URL and a key, never.
 */
const CHAIN_BAN = [
  { group: ['**/chain/*', '!@*/**'], message: 'chain/ is dev tooling (deploys, mints, dev keys): the service never imports it; shared constants go to src/x402/.' },
];
/**
 * Where clients are made: the service's composition root, the operator commands' (src/cli: their
 * options and the catalog session they share) and the lab's door, which hands the lab what it may use.
 */
const COMPOSITION_ROOT = ['src/container.ts', 'src/app.ts', 'src/server.ts', 'src/cli/**', 'src/door.ts'];

/**
 * One `no-restricted-imports` config for `files`. In flat config a later object's rule replaces an
 * earlier one for the same file, so each group states all of its restrictions here at once: the
 * floors it may not import and, unless it is src/store, the client ban.
 */
function floor(files, folders, message, { clients = 'banned', also = [] } = {}) {
  const service = files.some((file) => file.startsWith('src/'));
  const patterns = [...forbid(folders, message), ...also, ...(clients === 'banned' ? CLIENT_BAN : []), ...(service ? CHAIN_BAN : [])];
  return { files, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

const STORE_FLOOR = [...FEATURES, ...TRANSPORTS, 'sdk'];
const STORE_MESSAGE = 'src/store imports only the ground floor and the wire shapes, never a feature or http.';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin, 'import-x': importXWithTypeEdges },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver()],
      // Without these import-x cannot read a .ts module's imports, and no-cycle would see no edge.
      // The parser is typescript-eslint's with type-only imports read as value ones.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { [TYPE_EDGES_PARSER]: ['.ts'] },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      'import-x/no-cycle': 'error',
    },
  },
  // Every src/ file outside src/store and the composition root: no client (the groups below repeat it).
  { ...floor(['src/**/*.ts'], [], ''), ignores: ['src/store/**', ...COMPOSITION_ROOT] },
  floor(['src/core/**/*.ts'], [...FEATURES, ...TRANSPORTS, 'store', 'sdk', 'shapes', 'x402'], 'src/core is the ground floor: it imports nothing from the project.'),
  floor(['src/config/**/*.ts'], [...FEATURES, ...TRANSPORTS, 'store', 'sdk', 'shapes', 'x402'], 'src/config/ holds the ground floor\'s settings readers: they import nothing from the project.'),
  // src/store: each engine's folder keeps to its engine; the root (shared types, error mapping,
  // the stores factory, readiness) may use both.
  floor(['src/store/*.ts'], STORE_FLOOR, STORE_MESSAGE, { clients: 'allowed' }),
  floor(['src/store/elasticsearch/**/*.ts'], STORE_FLOOR, STORE_MESSAGE, {
    clients: 'allowed',
    also: [{ group: ['../redis/*', '**/store/redis/*', 'ioredis', 'ioredis/*'], message: 'store/elasticsearch does not use Redis: what needs both engines goes to the src/store root.' }],
  }),
  floor(['src/store/redis/**/*.ts'], STORE_FLOOR, STORE_MESSAGE, {
    clients: 'allowed',
    also: [{ group: ['../elasticsearch/*', '**/store/elasticsearch/*', '@elastic/elasticsearch', '@elastic/elasticsearch/*'], message: 'store/redis does not use Elasticsearch: what needs both engines goes to the src/store root.' }],
  }),
  ...FEATURE_TIERS.flatMap((tier, level) =>
    tier.map((feature) =>
      floor([`src/${feature}/**/*.ts`], TRANSPORTS, 'Features know nothing of HTTP: throw a src/core/errors.ts error; src/http maps it.', {
        also: forbid(
          FEATURE_TIERS.slice(level).flat().filter((other) => other !== feature),
          `src/${feature} imports only the features below its tier (docs/architecture.md, "The order of features"; FEATURE_TIERS here).`,
        ),
      }),
    ),
  ),
  // The one known exception: the text an embedding represents spells tool names out with the
  // catalog's identifier splitting and the search's abbreviations (pure text helpers), while the
  // catalog hashes that text. Moving those helpers below the features would remove it.
  floor(['src/semantic/listingText.ts'], TRANSPORTS, 'Features know nothing of HTTP: throw a src/core/errors.ts error; src/http maps it.', {
    also: forbid(
      FEATURES.filter((other) => !['semantic', 'catalog', 'search'].includes(other)),
      'src/semantic/listingText.ts may use only the text helpers of catalog and search (docs/architecture.md, "The order of features").',
    ),
  }),
  floor(['src/shapes/**/*.ts', 'src/x402/**/*.ts'], [...FEATURES, ...TRANSPORTS, 'store', 'sdk'], 'Wire shapes sit below everything but the ground floor.'),
  floor(['src/sdk/**/*.ts'], [...FEATURES, ...TRANSPORTS, 'store'], 'The seller SDK is a client of the HTTP API: it imports only core, shapes and x402.'),
  // The lab (benchmarks, tuning, soak, fuzz, chaos) reaches the service through one door, src/door.ts,
  // and never through the operator scripts.
  {
    files: ['lab/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/src/**', '!**/src/door', '!**/src/door.js'], message: 'The lab reaches the service only through src/door.ts: export what a tool needs there.' },
          { group: ['**/scripts/**'], message: 'The lab does not import the operator scripts: run them as commands (or move what both need into src/ behind src/door.ts).' },
        ],
      }],
    },
  },
  // test/unit runs with Elasticsearch and Redis stopped (npm run test:unit): no client, no harness.
  {
    files: ['test/unit/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          ...CLIENT_BAN,
          { group: ['**/support/harness', '**/support/harness.js'], message: 'Unit tests start no service: use a fake from test/unit/fakes (or write the test in test/).' },
        ],
      }],
    },
  },
);
