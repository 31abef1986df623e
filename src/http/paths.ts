/** Every route path of the HTTP API, in one place (README "API" documents each). */
export const PATHS = {
  resources: '/discovery/resources',
  resource: '/discovery/resources/:id',
  history: '/discovery/resources/:id/history',
  changes: '/discovery/changes',
  search: '/discovery/search',
  /** One payTo's listings and aggregate signals (CDP's /discovery/merchant). */
  merchant: '/discovery/merchant',
  mcpTools: '/mcp/tools',
  announce: '/discovery/announce',
  announceStatus: '/discovery/announce/status',
  /** The upstream catalogs this service lists from, with their crawl state (src/federation). */
  reach: '/discovery/reach',
  publish: '/discovery/publish',
  unpublish: '/discovery/publish/:id',
  /** A seller takes its own HTTP listing out (POST) and lets it back (DELETE): src/publish/optOut.ts. */
  optOut: '/discovery/optout',
  supported: '/supported',
  verify: '/verify',
  settle: '/settle',
  /** One payTo's settlements on chain, and one settlement by its transaction hash (src/facilitator/settlementHistory.ts). */
  settlements: '/settlements',
  settlement: '/settlements/:transaction',
  /** MCP discovery (Streamable HTTP). */
  mcp: '/mcp',
  /** The x402 Bazaar-compatible discovery surface. */
  bazaarResources: '/x402/discovery/resources',
  bazaarSearch: '/x402/discovery/search',
  metrics: '/metrics',
  healthz: '/healthz',
  readyz: '/readyz',
  /** The web catalog's views, routed by its client (keep in step with src/web/client/router.tsx). */
  webPages: ['/', '/listings/:id', '/merchants/:payTo', '/sellers'],
  /** The web client as built by npm run build:web (src/web/page.ts links them). */
  webScript: '/assets/app.js',
  webStyles: '/assets/app.css',
} as const;

/** Where one listing is read (the Location of a publish). */
export const resourcePath = (id: string): string => `${PATHS.resources}/${id}`;

/** Where an announce's outcome is looked up (the Location of an announce). */
export const announceStatusPath = (id: string): string => `${PATHS.announceStatus}?id=${id}`;

/** Where an origin announce's outcome is looked up. */
export const originStatusPath = (origin: string): string => `${PATHS.announceStatus}?origin=${encodeURIComponent(origin)}`;
