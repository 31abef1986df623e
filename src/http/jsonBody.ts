/**
 * JSON request bodies, read with raw-body (the reader body-parser itself uses). Not express.json:
 * on any body error body-parser reads the whole request to its end before answering, so a client
 * declaring 10 MB, or streaming without end, holds the connection as long as it likes (issue 9,
 * defect 8). Here an oversized body is refused from its Content-Length before a byte is read, a
 * stream is cut off as soon as it passes the limit (inflated or not), and the connection is closed
 * after the answer instead of being drained. Decoding errors and nesting too deep for the code
 * behind (README "Errors") are 4xx problems too.
 */
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import getRawBody from 'raw-body';
import { dottedPath, pathBeyondDepth } from '../core/jsonDepth.js';
import { ProblemError, problems } from '../problems/problem.js';

export interface JsonBodyOptions {
  /** Largest body in bytes, compressed and inflated alike. */
  limit: number;
  /** Deepest nesting of objects and arrays accepted (the body itself is level 1). */
  maxDepth: number;
  /** Media types read as JSON; other bodies are left alone (`req.body` stays undefined). */
  types: string[];
}

/** How long a closing connection still takes (and drops) what the client sends, so the answer is not lost to a reset. */
const LINGER_MS = 500;

const DECOMPRESSORS: ReadonlyMap<string, () => NodeJS.ReadWriteStream> = new Map([
  ['gzip', createGunzip],
  ['x-gzip', createGunzip],
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
]);

interface RawBodyError extends Error {
  type?: string;
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function charsetOf(req: Request): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
}

/**
 * Answers with `Connection: close` and closes the socket shortly after the answer, discarding what
 * the client still sends meanwhile. Node would otherwise close at once (a client still writing
 * gets a reset that can discard the answer before it is read) or, without the header, read the
 * unread body to its end before the next request.
 */
function closeAfterAnswer(req: Request, res: Response, stream: Readable): void {
  res.setHeader('Connection', 'close');
  if (stream !== req) req.unpipe();
  req.resume();
  const socket = req.socket as typeof req.socket & { destroySoon?: () => void };
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

function readError(err: RawBodyError, limit: number, inflating: string | undefined): ProblemError {
  if (err instanceof ProblemError) return err;
  if (err.type === 'entity.too.large') return problems.payloadTooLarge(limit);
  if (err.type === 'request.aborted') return new ProblemError('request_aborted', 'The request body was not received completely.');
  if (err.type === 'request.size.invalid') return new ProblemError('request_aborted', 'The request body is shorter or longer than its Content-Length.');
  if (inflating) return new ProblemError('invalid_encoding', `The request body is not valid ${inflating} data (Content-Encoding: ${inflating}).`);
  return new ProblemError('request_aborted', `The request body could not be read: ${err.message}`);
}

/** body-parser's strict mode: a JSON body is an object or an array; an empty one reads as `{}`. */
function parse(text: string, maxDepth: number): unknown {
  if (text.length === 0) return {};
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
  if (first !== '{' && first !== '[') {
    throw problems.invalidJson(first === undefined ? 'the body is blank' : `unexpected token ${JSON.stringify(first)}: a body is an object or an array`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw problems.invalidJson((err as Error).message);
  }
  const tooDeep = pathBeyondDepth(value, maxDepth);
  if (tooDeep) {
    const path = dottedPath(tooDeep) || '(root)';
    throw new ProblemError('nesting_too_deep', `The request body nests objects and arrays deeper than ${maxDepth} levels (at ${path}).`, {
      errors: [{ path, message: `is nested deeper than ${maxDepth} levels` }],
    });
  }
  return value;
}

export function jsonBody(options: JsonBodyOptions): RequestHandler {
  const { limit, maxDepth, types } = options;
  return (req, res, next) => {
    if (req.body !== undefined || !hasBody(req) || !req.is(types)) return next();
    const refuse = (problem: ProblemError, stream: Readable = req) => {
      closeAfterAnswer(req, res, stream);
      next(problem);
    };
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) return refuse(problems.payloadTooLarge(limit));
    const charset = charsetOf(req);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return refuse(new ProblemError('unsupported_media_type', `Unsupported charset "${charset}": JSON bodies are UTF-8.`));
    }
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    let stream: Readable = req;
    if (encoding !== 'identity') {
      const decompressor = DECOMPRESSORS.get(encoding);
      if (!decompressor) {
        return refuse(new ProblemError('unsupported_media_type', `Unsupported Content-Encoding "${encoding}": use gzip, deflate, br or identity.`));
      }
      const inflate = decompressor() as unknown as Readable;
      // The compressed bytes count too: a stream that inflates to nothing must not run forever.
      let received = 0;
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > limit) inflate.destroy(Object.assign(new Error('compressed body too large'), { type: 'entity.too.large' }));
      });
      req.pipe(inflate as unknown as NodeJS.WritableStream);
      stream = inflate;
    }
    const length = encoding === 'identity' && declared !== undefined ? Number(declared) : undefined;
    getRawBody(stream, { limit, length, encoding: 'utf-8' }, (err, text) => {
      if (err) return refuse(readError(err as RawBodyError, limit, stream === req ? undefined : encoding), stream);
      if (stream !== req) {
        stream.destroy();
        req.resume();
      }
      try {
        req.body = parse(text, maxDepth);
      } catch (problem) {
        return next(problem);
      }
      next();
    });
  };
}
