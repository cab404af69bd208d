import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { from, Observable, of, switchMap, finalize } from 'rxjs';
import { parseIdempotencyKey, requestFingerprint } from './idempotency-key';
import { IdempotencyKeyInvalid } from './idempotency.errors';
import { IdempotencyStore, StoredResponse } from './idempotency.store';

/** Responses larger than this are not kept: the key is released and a retry runs again. */
export const MAX_STORED_RESPONSE_BYTES = 256 * 1024;
/** Headers a replay restores; the rest (request id, rate limits) describe the new request. */
const KEPT_HEADERS = ['content-type', 'location', 'cache-control', 'set-cookie'];
const STORABLE_TYPE = /^application\/(problem\+)?json\b/i;
/** Bodies the fingerprint can see: parsed JSON or form fields, or none. */
const FINGERPRINTED_BODY = /^application\/(json|[\w.+-]+\+json|x-www-form-urlencoded)\b/i;

function scopeOf(request: Request): string | null {
  const actor = request.actor;
  if (!actor) return null;
  return actor.apiKeyId ? `api_key:${actor.apiKeyId}` : `user:${actor.userId}`;
}

function hasBody(request: Request): boolean {
  return (
    request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0
  );
}

type EndArgs = [chunk?: unknown, encoding?: unknown, callback?: unknown];

/**
 * `Idempotency-Key` on POST (IETF httpapi draft, as Stripe uses it), for
 * every route in one place. A signed-in caller's key, with the same method,
 * path and body within 24 hours, replays the first response (status, body,
 * `Location`, marked `Idempotent-Replayed: true`); another request under the
 * key answers 422, and one while the first still runs 409. 5xx responses,
 * responses over 256 KiB and responses that are not JSON are not kept (the
 * key is released). Anonymous requests and uploads (multipart or raw
 * bodies) are not made idempotent: the key is checked for its format only.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);

  constructor(private readonly store: IdempotencyStore) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<Request>();
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined) return next.handle();
    const key = parseIdempotencyKey(header);
    if (key === null) throw new IdempotencyKeyInvalid();
    const scope = scopeOf(request);
    if (!scope || (hasBody(request) && !FINGERPRINTED_BODY.test(request.headers['content-type'] ?? ''))) {
      return next.handle();
    }
    const response = context.switchToHttp().getResponse<Response>();
    const fingerprint = requestFingerprint(request.method, request.originalUrl, request.body);
    return from(this.store.claim(scope, key, fingerprint)).pipe(
      switchMap((claim) => {
        if (claim.kind === 'replay') return of(this.replay(claim.response));
        let handled = false;
        const done = this.capture(response, (stored) =>
          stored
            ? this.store.complete(scope, key, claim.token, stored)
            : this.store.release(scope, key, claim.token),
        );
        // A client gone before the answer: once the handler is over, nothing will be written; free the key.
        response.once('close', () => {
          if (handled && !done()) void this.store.release(scope, key, claim.token).catch(this.warn);
        });
        return next.handle().pipe(
          finalize(() => {
            handled = true;
            if (response.destroyed && !done())
              void this.store.release(scope, key, claim.token).catch(this.warn);
          }),
        );
      }),
    );
  }

  private readonly warn = (error: unknown) =>
    this.logger.warn(`Idempotency key release failed: ${String(error)}`);

  private replay(stored: StoredResponse): globalThis.Response {
    const headers = new Headers();
    for (const [name, value] of Object.entries(stored.headers)) {
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
    headers.set('Idempotent-Replayed', 'true');
    const empty = stored.status === 204 || stored.status === 304 || stored.body.length === 0;
    return new globalThis.Response(empty ? null : new Uint8Array(stored.body), {
      status: stored.status,
      headers,
    });
  }

  /**
   * Wraps `res.end` (where both Nest's reply and the problem-details filter
   * end up) to hand the finished response to `settle` before it is sent, so
   * a retry that follows the answer always finds it kept. Answers whether
   * the response was ended.
   */
  private capture(
    response: Response,
    settle: (stored: StoredResponse | null) => Promise<void>,
  ): () => boolean {
    let ended = false;
    let streamed = false;
    const write = response.write;
    const end = response.end;
    response.write = function (this: Response, ...args: Parameters<Response['write']>) {
      streamed = true;
      return write.apply(this, args);
    } as Response['write'];
    response.end = function (this: Response, ...args: EndArgs) {
      response.write = write;
      response.end = end;
      ended = true;
      const [chunk, encoding] = args;
      const body =
        typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
          : chunk instanceof Uint8Array
            ? Buffer.from(chunk)
            : Buffer.alloc(0);
      const type = String(response.getHeader('content-type') ?? '');
      const keep =
        !streamed &&
        response.statusCode < 500 &&
        body.length <= MAX_STORED_RESPONSE_BYTES &&
        (body.length === 0 || STORABLE_TYPE.test(type));
      const headers: Record<string, string | string[]> = {};
      for (const name of KEPT_HEADERS) {
        const value = response.getHeader(name);
        if (value !== undefined) headers[name] = Array.isArray(value) ? value : String(value);
      }
      settle(keep ? { status: response.statusCode, headers, body } : null)
        .catch((error: unknown) =>
          Logger.warn(`Keeping an idempotent response failed: ${String(error)}`, 'Idempotency'),
        )
        .finally(() => end.apply(response, args as Parameters<Response['end']>));
      return response;
    } as Response['end'];
    return () => ended;
  }
}
