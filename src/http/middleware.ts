import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger.js';
import { API_VERSION } from '../version.js';
import { NotFound, type DomainError } from '../core/errors.js';
import { ProblemError, problemOf, problems } from '../problems/problem.js';

/** A problem as the HTTP answer: its status, headers and problem+json body. */
function sendProblem(res: Response, problem: ProblemError, instance?: string): void {
  for (const [name, value] of Object.entries(problem.extras.headers ?? {})) res.setHeader(name, value);
  res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem.toBody(instance)));
}

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a well-formed incoming X-Request-Id (so traces join up across services), else makes one. */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.header('x-request-id');
    req.id = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    // Built on first use: most requests log nothing, and a child logger per search cost CPU on the hot path.
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', { configurable: true, enumerable: true, get: () => (child ??= logger.child({ requestId: req.id })) });
    res.setHeader('X-Request-Id', req.id);
    res.setHeader('X-API-Version', API_VERSION);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const level = res.statusCode >= 500 ? 'error' : 'http';
      // Search is the hot path: skip building a log line nobody will see.
      if (!logger.isLevelEnabled(level)) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      req.log.log(level, 'request', {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Math.round(ms * 100) / 100,
        // A 5xx line names its cause, so an operator grepping for failed requests finds why (issue 43).
        ...(res.statusCode >= 500 && typeof res.locals.failure === 'string' ? { error: res.locals.failure } : {}),
      });
    });
    next();
  };
}

export const notFound: RequestHandler = (req, _res, next) => {
  next(new NotFound(`No route for ${req.method} ${req.path}.`));
};

export interface ErrorHandlerOptions {
  /** Recognises a backend outage in a client library's error (the app factory passes src/store's). */
  backendError?: (err: unknown) => DomainError | undefined;
}

/** The one place an error becomes a response: problem+json, and a 500 never shows internals. */
export function errorHandler(options: ErrorHandlerOptions = {}): ErrorRequestHandler {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const problem = toProblem(err, options);
    if (problem.status >= 500) res.locals.failure = err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 500) : String(err).slice(0, 500);
    if (problem.status >= 500 && problem.code === 'internal') {
      req.log?.error('unhandled error', { err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err) });
    } else if (problem.code === 'search_unavailable') {
      req.log?.warn('elasticsearch unavailable', { err: err instanceof Error ? err.message : String(err) });
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    sendProblem(res, problem, req.id ? `urn:request:${req.id}` : undefined);
  };
}

function toProblem(err: unknown, options: ErrorHandlerOptions): ProblemError {
  if (err instanceof ProblemError) return err;
  const domain = problemOf(err) ?? problemOf(options.backendError?.(err));
  if (domain) return domain;
  // The router could not percent-decode a path parameter (`/discovery/resources/%ZZ`).
  if (err instanceof URIError) return new ProblemError('invalid_path', 'The request path is not valid percent-encoded UTF-8.');
  return problems.internal();
}
