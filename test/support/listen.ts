/** An Express app of a test (a seller behind x402 middleware) on an ephemeral loopback port, and its stop. */
import type express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Closes a server, its kept-alive connections too (a client's pool would hold close() open). */
export async function close(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
