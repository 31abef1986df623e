/**
 * RFC 9457 problem details: every problem code with its status, in one table (README "Errors"
 * lists them for clients), and the one mapping from domain errors (src/core/errors.ts) to problems.
 * Its users are the transports: src/http sends them as problem+json, src/mcp as tool errors, and
 * src/openapi documents each route's codes from this table's names. It imports no transport.
 */
import {
  DomainError,
  Forbidden,
  InvalidInput,
  NotFound,
  RateLimited,
  Unauthorized,
  Unavailable,
  type FieldError,
  type UnavailableBackend,
} from '../core/errors.js';

export type { FieldError } from '../core/errors.js';

/** Every problem code the service answers with, and its status. */
export const PROBLEM_STATUS = {
  unknown_filter: 400,
  invalid_filter_value: 400,
  missing_query: 400,
  invalid_cursor: 400,
  invalid_json: 400,
  invalid_listing: 400,
  invalid_announce: 400,
  invalid_optout: 400,
  invalid_request: 400,
  invalid_arguments: 400,
  invalid_path: 400,
  invalid_encoding: 400,
  nesting_too_deep: 400,
  request_aborted: 400,
  unauthorized: 401,
  forbidden_resource: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  search_unavailable: 503,
  service_unavailable: 503,
  announce_unavailable: 503,
  facilitator_unavailable: 503,
  not_ready: 503,
} as const;

export type ProblemCode = keyof typeof PROBLEM_STATUS;

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

/** A problem ready to send: its code (and so its status), detail, extensions and headers. */
export class ProblemError extends Error {
  readonly status: number;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extras: { errors?: FieldError[]; headers?: Record<string, string>; [k: string]: unknown } = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.status = PROBLEM_STATUS[code];
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

const UNAVAILABLE_CODES: Record<UnavailableBackend, ProblemCode> = {
  search: 'search_unavailable',
  store: 'service_unavailable',
  announce: 'announce_unavailable',
  facilitator: 'facilitator_unavailable',
};

/** RFC 6750 challenge of the seller-token endpoints. */
const BEARER_REALM = 'Bearer realm="discovery"';

/** The one mapping of a domain error to its problem; undefined for anything else. */
export function problemOf(err: unknown): ProblemError | undefined {
  if (!(err instanceof DomainError)) return undefined;
  if (err instanceof InvalidInput) {
    return new ProblemError(err.code, err.detail, err.fieldErrors.length > 0 ? { errors: err.fieldErrors } : {});
  }
  if (err instanceof NotFound) return new ProblemError('not_found', err.detail);
  if (err instanceof Unauthorized) {
    const challenge = err.reason ? `${BEARER_REALM}, error="invalid_token", error_description="token ${err.reason}"` : BEARER_REALM;
    return new ProblemError('unauthorized', err.detail, { headers: { 'WWW-Authenticate': challenge } });
  }
  if (err instanceof Forbidden) return new ProblemError('forbidden_resource', err.detail);
  if (err instanceof Unavailable) {
    return new ProblemError(UNAVAILABLE_CODES[err.what], err.detail, { headers: { 'Retry-After': String(err.retryAfterSeconds) } });
  }
  if (err instanceof RateLimited) {
    return new ProblemError('rate_limited', err.detail, {
      headers: { 'Retry-After': String(err.retryAfterSeconds) },
      limit: err.limit,
      windowSeconds: err.windowSeconds,
    });
  }
  return undefined;
}

export const problems = {
  invalidJson: (detail: string) => new ProblemError('invalid_json', `The request body is not valid JSON: ${detail}`),
  payloadTooLarge: (limit: number) => new ProblemError('payload_too_large', `The request body exceeds the limit of ${limit} bytes.`),
  internal: () => new ProblemError('internal', 'An unexpected error occurred. The request id identifies it in the logs.'),
};
