/**
 * The errors features throw. They say what went wrong in the domain's words; src/problems/problem.ts
 * alone turns them into statuses and problem+json (README "Errors"), so no feature knows HTTP.
 */

/** One failing field of an input: `path` is dotted (`payment.amount`), `(root)` for the whole input. */
export interface FieldError {
  path: string;
  message: string;
}

export abstract class DomainError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = new.target.name;
  }
}

/** The codes of a refused input, one per kind of input (README "Errors" lists each). */
export type InvalidInputCode =
  | 'unknown_filter'
  | 'invalid_filter_value'
  | 'missing_query'
  | 'invalid_cursor'
  | 'invalid_listing'
  | 'invalid_announce'
  | 'invalid_optout'
  | 'invalid_request'
  | 'invalid_arguments';

/** The caller sent something that cannot be accepted; `fieldErrors` names every field to fix. */
export class InvalidInput extends DomainError {
  constructor(
    readonly code: InvalidInputCode,
    detail: string,
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(detail);
  }
}

export class NotFound extends DomainError {}

/** No credentials, or credentials that are not valid (`reason` says which, for the challenge). */
export class Unauthorized extends DomainError {
  constructor(
    detail: string,
    readonly reason?: 'malformed' | 'unknown' | 'revoked',
  ) {
    super(detail);
  }
}

/** Valid credentials that do not cover what was asked (another seller's host or listing). */
export class Forbidden extends DomainError {}

/** What is unavailable decides the problem code: each backs a different promise to the caller. */
export type UnavailableBackend = 'search' | 'store' | 'announce' | 'facilitator';

/** A backend the request needs does not answer; nothing was written; retry after the given time. */
export class Unavailable extends DomainError {
  constructor(
    readonly what: UnavailableBackend,
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(detail);
  }
}

/** The caller's budget for this window is spent. */
export class RateLimited extends DomainError {
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
    readonly limit: number,
    readonly windowSeconds: number,
  ) {
    super(detail);
  }
}
