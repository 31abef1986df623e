/**
 * RFC 9457 problem details. Every rejected request is answered with one of these, carrying a
 * machine-readable `code` (DECISIONS.md "Errors and limits").
 */
import type { Response } from 'express';

export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Thrown anywhere below a handler; the error middleware turns it into the response. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly extras: { errors?: FieldError[]; headers?: Record<string, string>; [k: string]: unknown } = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
  }

  toBody(instance?: string): ProblemBody {
    const { headers: _headers, ...extensions } = this.extras;
    return {
      // A relative reference: the README documents every code under "Errors".
      type: `/problems/${this.code}`,
      title: TITLES[this.status] ?? 'Error',
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...(instance ? { instance } : {}),
      ...extensions,
    };
  }
}

export function sendProblem(res: Response, problem: ProblemError, instance?: string): void {
  for (const [name, value] of Object.entries(problem.extras.headers ?? {})) res.setHeader(name, value);
  res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem.toBody(instance)));
}

export const problems = {
  notFound: (what: string) => new ProblemError(404, 'not_found', what),
  invalidJson: (detail: string) => new ProblemError(400, 'invalid_json', `The request body is not valid JSON: ${detail}`),
  payloadTooLarge: (limit: number) =>
    new ProblemError(413, 'payload_too_large', `The request body exceeds the limit of ${limit} bytes.`),
  searchUnavailable: () =>
    new ProblemError(503, 'search_unavailable', 'The search backend is unavailable; retry shortly.', {
      headers: { 'Retry-After': '5' },
    }),
  /** Redis (queues, counters, tokens) unreachable: the write was not taken, so the client should retry. */
  storeUnavailable: () =>
    new ProblemError(503, 'service_unavailable', 'A backing store is temporarily unavailable; nothing was written. Retry shortly.', {
      headers: { 'Retry-After': '5' },
    }),
  internal: () => new ProblemError(500, 'internal', 'An unexpected error occurred. The request id identifies it in the logs.'),
};
