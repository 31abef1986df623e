/**
 * `since` / `nextSince` tokens of GET /discovery/changes: opaque and tamper-evident like the read
 * cursors (docs/catalog-reads.md "Cursors"). A token carries a change-log position and an HMAC
 * over it (the cursor secret, with a label of its own so a cursor never passes for a token).
 */
import { InvalidInput } from '../core/errors.js';
import { SignedTokenCodec } from '../core/signedToken.js';
import { POSITION } from '../store/redis/changeLog.js';

const LABEL = 'discovery-changes-v1';

function invalidToken(reason: string): InvalidInput {
  return new InvalidInput('invalid_cursor', `The since token is not valid: ${reason}. Start again without since (from the beginning).`, [
    { path: 'since', message: reason },
  ]);
}

export class ChangeTokenCodec {
  private readonly tokens: SignedTokenCodec;

  constructor(secret: () => Promise<Buffer>) {
    this.tokens = new SignedTokenCodec(secret, { maxBodyChars: 256, label: LABEL });
  }

  async encode(position: string, epoch: string): Promise<string> {
    return this.tokens.seal({ v: 1, p: position, e: epoch });
  }

  /** The position a token carries; 400 invalid_cursor unless this service made it for this log (`epoch`). */
  async decode(token: string, epoch: string): Promise<string> {
    const opened = await this.tokens.open(token);
    if (!opened.ok) throw invalidToken(opened.problem === 'altered' ? 'the token was altered' : 'malformed token');
    const payload = opened.payload as { v?: unknown; p?: unknown; e?: unknown } | null;
    if (payload?.v !== 1 || typeof payload.p !== 'string' || !POSITION.test(payload.p)) throw invalidToken('token from another version');
    if (payload.e !== epoch) throw invalidToken('the change log was started again since this token was issued');
    return payload.p;
  }
}
