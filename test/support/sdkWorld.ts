/**
 * A running service (the harness, listening on loopback so the SDK reaches it over HTTP) and
 * local seller servers, for the seller SDK tests.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { startHarness, type Harness } from './harness.js';

export interface Listening {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function listen(app: Express): Promise<Listening> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ServiceWorld {
  h: Harness;
  service: Listening;
  close(): Promise<void>;
}

/** The service with loopback allowed for probes (the local sellers), signals flushed quickly. */
export async function startService(env: Record<string, string> = {}): Promise<ServiceWorld> {
  const h = await startHarness({ PROBE_ALLOW: '127.0.0.0/8', PROBE_MIN_INTERVAL_MS: '0', SIGNALS_FLUSH_MS: '200', ...env });
  const service = await listen(h.app);
  return {
    h,
    service,
    close: async () => {
      await service.close();
      await h.close();
    },
  };
}

/** A stateless Streamable HTTP MCP endpoint at `/mcp`: `build()` makes a fresh server per request. */
export async function serveStatelessMcp(build: () => { server: McpServer }): Promise<Listening> {
  const app = express();
  app.use(express.json());
  app.post('/mcp', async (req, res) => {
    const { server } = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  return listen(app);
}
