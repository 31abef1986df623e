/**
 * The OpenAPI 3.1 document served at GET /openapi.json. Each area describes its routes in one file
 * under ./paths (built with ./builders); to describe a new route, add its path there (or a new
 * file listed in SECTIONS). test/openapi-compliance.test.ts fails, naming the route, while an
 * Express route is missing here or a path here has no route, and sends every `x-examples` request
 * to a real service to validate the answer against this document.
 */
import { API_VERSION } from '../version.js';
import type { OpenApiObject } from './builders.js';
import { components } from './components.js';
import { bazaarPaths } from './paths/bazaar.js';
import { catalogPaths } from './paths/catalog.js';
import { facilitatorPaths } from './paths/facilitator.js';
import { settlementsPaths } from './paths/settlements.js';
import { changesPaths } from './paths/changes.js';
import { sellerPaths } from './paths/sellers.js';
import { servicePaths } from './paths/service.js';
import { federationPaths } from './paths/federation.js';

const SECTIONS: Array<Record<string, OpenApiObject>> = [catalogPaths, changesPaths, sellerPaths, federationPaths, facilitatorPaths, settlementsPaths, bazaarPaths, servicePaths];

const TAGS = [
  { name: 'catalog', description: 'Catalog reads: filtering, ranked search, one listing (docs/catalog-reads.md).' },
  { name: 'lifecycle', description: 'Change feed for mirrors and listing history (docs/changes.md).' },
  { name: 'sellers', description: 'Announce and its status, publish and unpublish MCP tools (docs/announce.md, docs/sdk.md).' },
  { name: 'facilitator', description: 'x402 facilitator on the test ledger (docs/facilitator.md).' },
  { name: 'x402', description: 'The x402 Bazaar surface: Bazaar discovery and the facilitator under /x402 (README "x402 Bazaar surface").' },
  { name: 'mcp', description: 'Discovery over MCP (docs/mcp.md).' },
  { name: 'web', description: 'The web catalog page and its assets (docs/web.md).' },
  { name: 'operations', description: 'Health, readiness, metrics and this document.' },
];

function mergePaths(): Record<string, OpenApiObject> {
  const paths: Record<string, OpenApiObject> = {};
  for (const section of SECTIONS) {
    for (const [path, item] of Object.entries(section)) {
      if (paths[path]) throw new Error(`OpenAPI: ${path} is described twice`);
      paths[path] = item;
    }
  }
  return paths;
}

let cached: OpenApiObject | undefined;

export function openApiDocument(): OpenApiObject {
  cached ??= {
    openapi: '3.1.0',
    info: {
      title: 'Paid API discovery',
      version: API_VERSION,
      description:
        'Catalog and search of paid HTTP endpoints and MCP tools, and an x402 facilitator on a test ledger. Every error is RFC 9457 problem details with a machine-readable `code`; every response carries `X-API-Version` and `X-Request-Id`.',
    },
    tags: TAGS,
    paths: mergePaths(),
    components,
  };
  return cached;
}
