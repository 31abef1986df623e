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

const FEATURES = ['catalog', 'search', 'ingest', 'publish', 'facilitator', 'signals', 'bazaar', 'lifecycle', 'semantic'];
/** Transports over the services, like http: MCP discovery, the web page, the OpenAPI document. */
const TRANSPORTS = ['http', 'mcp', 'web', 'openapi'];

/** `no-restricted-imports` patterns forbidding imports of the given src/ folders (relative imports). */
function forbid(folders, message) {
  return folders.map((folder) => ({ group: [`**/${folder}/*`, `**/${folder}`], message }));
}

function floor(files, folders, message) {
  return { files, rules: { 'no-restricted-imports': ['error', { patterns: forbid(folders, message) }] } };
}

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
  floor(['src/core/**/*.ts'], [...FEATURES, ...TRANSPORTS, 'store', 'sdk', 'shapes', 'x402'], 'src/core is the ground floor: it imports nothing from the project.'),
  floor(['src/store/**/*.ts'], [...FEATURES, ...TRANSPORTS, 'sdk'], 'src/store imports only the ground floor and the wire shapes, never a feature or http.'),
  floor(FEATURES.map((f) => `src/${f}/**/*.ts`), TRANSPORTS, 'Features know nothing of HTTP: throw a src/core/errors.ts error; src/http maps it.'),
  floor(['src/shapes/**/*.ts', 'src/x402/**/*.ts'], [...FEATURES, ...TRANSPORTS, 'store', 'sdk'], 'Wire shapes sit below everything but the ground floor.'),
  floor(['src/sdk/**/*.ts'], [...FEATURES, ...TRANSPORTS, 'store'], 'The seller SDK is a client of the HTTP API: it imports only core, shapes and x402.'),
);
