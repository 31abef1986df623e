/**
 * Opaque, tamper-evident tokens (the read cursors, the change feed's `since` tokens): base64url
 * JSON, a dot, and an HMAC-SHA256 over the body cut to 16 bytes. A label goes into the HMAC so a
 * token of one kind never passes for another kind made with the same secret.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

const TAG_BYTES = 16;

export type OpenedToken = { ok: true; payload: unknown } | { ok: false; problem: 'malformed' | 'altered' };

export class SignedTokenCodec {
  private readonly shape: RegExp;
  private readonly label: string | undefined;

  constructor(
    private readonly secret: () => Promise<Buffer>,
    options: { maxBodyChars: number; label?: string },
  ) {
    this.shape = new RegExp(`^([A-Za-z0-9_-]{1,${options.maxBodyChars}})\\.([A-Za-z0-9_-]{22})$`);
    this.label = options.label;
  }

  /** The secret as a KeyObject, made once per secret: from a Buffer, createHmac makes one on every call (most of a tag's CPU). */
  private key: { secret: Buffer; object: KeyObject } | undefined;

  private async tag(body: string): Promise<Buffer> {
    const signed = this.label === undefined ? body : `${this.label}.${body}`;
    const secret = await this.secret();
    if (this.key?.secret !== secret) this.key = { secret, object: createSecretKey(secret) };
    return createHmac('sha256', this.key.object).update(signed).digest().subarray(0, TAG_BYTES);
  }

  async seal(payload: unknown): Promise<string> {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${(await this.tag(body)).toString('base64url')}`;
  }

  /** The payload this codec sealed; `altered` when the tag does not match (compared in constant time). */
  async open(token: string): Promise<OpenedToken> {
    const match = this.shape.exec(token);
    if (!match) return { ok: false, problem: 'malformed' };
    const [, body, tag] = match as unknown as [string, string, string];
    const expected = await this.tag(body);
    const given = Buffer.from(tag, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, problem: 'altered' };
    try {
      return { ok: true, payload: JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown };
    } catch {
      return { ok: false, problem: 'malformed' };
    }
  }
}
