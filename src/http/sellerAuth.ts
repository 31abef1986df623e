/**
 * Bearer authentication with a seller token (RFC 6750 challenges): 401 `unauthorized` with
 * `WWW-Authenticate: Bearer`, plus `error="invalid_token"` when a token was sent but is not valid.
 */
import type { RequestHandler, Response } from 'express';
import type { SellerToken, SellerTokenStore } from '../publish/sellerTokens.js';
import { Unauthorized } from '../core/errors.js';

export function sellerTokenOf(res: Response): SellerToken {
  const token = res.locals.sellerToken as SellerToken | undefined;
  if (!token) throw new Error('requireSellerToken must run before this handler');
  return token;
}

export function requireSellerToken(store: SellerTokenStore): RequestHandler {
  return async (req, res, next) => {
    const header = req.header('authorization');
    const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      throw new Unauthorized('A seller token is required: send Authorization: Bearer <token>.');
    }
    const check = await store.authenticate(match[1]!);
    if (!check.ok) {
      const why = check.reason === 'revoked' ? 'has been revoked' : 'is not a valid seller token';
      throw new Unauthorized(`The bearer token ${why}.`, check.reason);
    }
    res.locals.sellerToken = check.token;
    next();
  };
}
