/**
 * `since` / `nextSince` tokens of GET /discovery/changes: opaque and tamper-evident like the read
 * cursors (README "Catalog reads: the choices"). A token carries a change-log position and an HMAC
 * over it (the cursor secret, with a label of its own so a cursor never passes for a token).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidInput } from '../core/errors.js';
import { POSITION } from '../store/changeLog.js';

const TAG_BYTES = 16;
const LABEL = 'discovery-changes-v1';

function invalidToken(reason: string): InvalidInput {
  return new InvalidInput('invalid_cursor', `The since token is not valid: ${reason}. Start again without since (from the beginning).`, [
    { path: 'since', message: reason },
  ]);
}

export class ChangeTokenCodec {
  constructor(private readonly secret: () => Promise<Buffer>) {}

  private async tag(body: string): Promise<Buffer> {
    return createHmac('sha256', await this.secret()).update(`${LABEL}.${body}`).digest().subarray(0, TAG_BYTES);
  }

  async encode(position: string, epoch: string): Promise<string> {
    const body = Buffer.from(JSON.stringify({ v: 1, p: position, e: epoch })).toString('base64url');
    return `${body}.${(await this.tag(body)).toString('base64url')}`;
  }

  /** The position a token carries; 400 invalid_cursor unless this service made it for this log (`epoch`). */
  async decode(token: string, epoch: string): Promise<string> {
    const match = /^([A-Za-z0-9_-]{1,256})\.([A-Za-z0-9_-]{22})$/.exec(token);
    if (!match) throw invalidToken('malformed token');
    const [, body, tag] = match as unknown as [string, string, string];
    const expected = await this.tag(body);
    const given = Buffer.from(tag, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidToken('the token was altered');
    let payload: { v?: unknown; p?: unknown; e?: unknown };
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof payload;
    } catch {
      throw invalidToken('malformed token');
    }
    if (payload?.v !== 1 || typeof payload.p !== 'string' || !POSITION.test(payload.p)) throw invalidToken('token from another version');
    if (payload.e !== epoch) throw invalidToken('the change log was started again since this token was issued');
    return payload.p;
  }
}
