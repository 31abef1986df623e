/**
 * Local sellers on loopback for the announce/probe tests: hand-written x402 v1 and v2 402s plus
 * the misbehaving answers the probe must refuse.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PAY_TO = '0x1111111111111111111111111111111111111111';
export const USDC_BASE_SEPOLIA = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

export function v1Challenge(resource: string, amount = '1000'): Record<string, unknown> {
  return {
    x402Version: 1,
    error: 'X-PAYMENT header is required',
    accepts: [
      {
        scheme: 'exact',
        network: 'base-sepolia',
        maxAmountRequired: amount,
        resource,
        description: 'Current weather for a city',
        mimeType: 'application/json',
        payTo: PAY_TO,
        maxTimeoutSeconds: 60,
        asset: USDC_BASE_SEPOLIA,
        outputSchema: { input: { type: 'http', method: 'GET', queryParams: { city: { type: 'string' } } }, output: {} },
        extra: { name: 'USDC', version: '2' },
      },
    ],
  };
}

export function v2Challenge(resource: string, options: { amount?: string; routeTemplate?: string; describe?: object; payTo?: string } = {}): Record<string, unknown> {
  const challenge: Record<string, unknown> = {
    x402Version: 2,
    error: 'Payment required',
    resource: { url: resource, description: 'Forecast for a city, by day', mimeType: 'application/json', tags: ['weather', 'forecast'] },
    accepts: [
      {
        scheme: 'exact',
        network: 'eip155:84532',
        amount: options.amount ?? '2500',
        asset: USDC_BASE_SEPOLIA,
        payTo: options.payTo ?? PAY_TO,
        maxTimeoutSeconds: 300,
        extra: { name: 'USDC', version: '2' },
      },
    ],
    extensions: {
      bazaar: {
        info: { input: { type: 'http', method: 'GET', queryParams: { days: 3 } } },
        schema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: { input: { type: 'object', properties: { queryParams: { type: 'object', properties: { days: { type: 'integer' } } } } } },
          required: ['input'],
        },
        ...(options.routeTemplate ? { routeTemplate: options.routeTemplate } : {}),
      },
    },
  };
  if (options.describe) challenge.describe = options.describe;
  return challenge;
}

export const encodeHeader = (challenge: object) => Buffer.from(JSON.stringify(challenge)).toString('base64');

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface LocalServer {
  server: Server;
  port: number;
  url(path: string): string;
  /** Replace what a path answers (re-probe tests change a seller's behaviour). */
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startServer(routes: Record<string, Handler> = {}): Promise<LocalServer> {
  const table = new Map(Object.entries(routes));
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const handler = table.get(path) ?? [...table.entries()].find(([p]) => p.endsWith('*') && path.startsWith(p.slice(0, -1)))?.[1];
    if (handler) handler(req, res);
    else res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    route: (path, handler) => void table.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const answers = {
  v1: (challenge: () => object): Handler => (_req, res) => {
    res.writeHead(402, { 'Content-Type': 'application/json' }).end(JSON.stringify(challenge()));
  },
  v2: (challenge: () => object): Handler => (_req, res) => {
    res.writeHead(402, { 'Content-Type': 'application/json', 'PAYMENT-REQUIRED': encodeHeader(challenge()) }).end('{}');
  },
  status: (status: number, headers: Record<string, string> = {}): Handler => (_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end('{"ok":true}');
  },
  hang: (): Handler => () => {
    /* never answers */
  },
  big402: (bytes: number): Handler => (_req, res) => {
    res.writeHead(402, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ x402Version: 1, accepts: [], padding: 'x'.repeat(bytes) }));
  },
};
