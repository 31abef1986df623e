/**
 * The HTTP half of a graceful stop: stop accepting, let requests in flight finish, close each
 * keep-alive connection as it goes idle, and cut off what is still running when the HTTP part of
 * the stop budget is spent, naming those requests (a stop that overran once could not say which
 * request held it).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Logger } from '../logger.js';

/** How SHUTDOWN_GRACE_MS is shared: the whole stop fits in it, and the workers keep a reserve. */
export interface StopBudget {
  /** When connections still busy are closed (ms after the signal). */
  httpCutAfterMs: number;
  /** When the process exits 1 whatever is still pending (ms after the signal). */
  deadlineMs: number;
}

/**
 * `workersNeedMs`: what the workers and clients may take once the HTTP part is done (the catalog
 * consumer's wait for its batches in flight, and a margin for the rest); they get at most half.
 */
export function stopBudget(graceMs: number, workersNeedMs: number): StopBudget {
  const reserve = Math.min(workersNeedMs, Math.floor(graceMs / 2));
  return { httpCutAfterMs: graceMs - reserve, deadlineMs: graceMs };
}

export interface RequestInFlight {
  method: string;
  url: string;
  ms: number;
}

/**
 * Keeps the requests received and not yet answered (a map entry and a close listener per request), so that
 * a stop that must cut them off can log them.
 */
export function trackRequestsInFlight(server: Server): () => RequestInFlight[] {
  const inFlight = new Map<IncomingMessage, number>();
  server.on('request', (req: IncomingMessage, res) => {
    inFlight.set(req, performance.now());
    res.once('close', () => inFlight.delete(req));
  });
  return () => {
    const now = performance.now();
    return [...inFlight].map(([req, started]) => ({ method: req.method ?? '', url: (req.url ?? '').slice(0, 200), ms: Math.round(now - started) }));
  };
}

/** Resolves once the server has closed: at once when nothing is in flight, at the latest at `cutAfterMs`. */
export async function drainServer(
  server: Server,
  options: { cutAfterMs: number; logger: Logger; inFlight: () => RequestInFlight[] },
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive sockets become idle as their last response goes out; close each one then rather
  // than waiting for the cut.
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  const cut = setTimeout(() => {
    const requests = options.inFlight();
    options.logger.warn('closing connections still busy at the end of the HTTP part of the stop', { afterMs: options.cutAfterMs, requests });
    server.closeAllConnections();
  }, options.cutAfterMs);
  try {
    await closed;
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
}
