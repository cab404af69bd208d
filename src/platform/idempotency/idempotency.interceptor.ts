import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { Reflector } from '@nestjs/core';
import { catchError, finalize, from, map, mergeMap, Observable, of, switchMap, throwError } from 'rxjs';
import type { Actor } from '../../common/auth/actor';
import { DomainError } from '../../common/errors/domain-error';
import { RequestTransactions } from '../../database/request-transaction';
import { CLAIMS_IN_TRANSACTION } from './claims-in-transaction.decorator';
import { parseIdempotencyKey, requestFingerprint, type StoredResponse } from './idempotency-key';
import { IdempotencyKeyInvalid, IdempotentReplay } from './idempotency.errors';
import { IdempotencyStore } from './idempotency.store';

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

  constructor(
    private readonly store: IdempotencyStore,
    private readonly reflector: Reflector,
  ) {}

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
    if (this.reflector.get<boolean | undefined>(CLAIMS_IN_TRANSACTION, context.getHandler())) {
      return this.claimInTransaction(request.actor as Actor, response, scope, key, fingerprint, next);
    }
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

  /**
   * A `@ClaimsInTransaction()` route: the claim is left for the request's
   * first transaction (request-transaction.ts), whose service passes the
   * actor to TransactionRunner.run, and commits with its writes. A handler
   * that ends without such a transaction having committed (it failed before
   * or inside it, or wrote nothing) claims the key then, on its own, before
   * its answer is sent: it changed nothing, so when the key already holds an
   * answer that answer is sent instead, as an up-front claim would have.
   */
  private claimInTransaction(
    actor: Actor,
    response: Response,
    scope: string,
    key: string,
    fingerprint: string,
    next: CallHandler,
  ): Observable<unknown> {
    let token: string = randomUUID();
    // pending: nothing of this request's is in the table; committed: its claim is; refused: another request holds the key.
    let state: 'pending' | 'committed' | 'refused' = 'pending';
    RequestTransactions.attach(actor, {
      run: async (em) => {
        try {
          await this.store.claimWithin(em, scope, key, fingerprint, token);
        } catch (error) {
          if (error instanceof DomainError || error instanceof IdempotentReplay) state = 'refused';
          throw error;
        }
      },
      committed: () => {
        state = 'committed';
        this.store.hold(scope, key, token);
      },
      inline: (from) => ({
        ...this.store.claimStatement(scope, key, fingerprint, token, from),
        settle: async (ran) => {
          if (ran) {
            state = 'committed';
            this.store.hold(scope, key, token);
            return;
          }
          state = 'refused';
          await this.store.refuse(scope, key, fingerprint);
        },
      }),
    });
    const claimLate = async (): Promise<StoredResponse | null> => {
      RequestTransactions.detach(actor);
      state = 'refused';
      const claim = await this.store.claim(scope, key, fingerprint);
      if (claim.kind === 'replay') return claim.response;
      token = claim.token;
      state = 'committed';
      return null;
    };
    let handled = false;
    const release = () => {
      if (state === 'committed') void this.store.release(scope, key, token).catch(this.warn);
    };
    const done = this.capture(response, (stored) => {
      if (state !== 'committed') return Promise.resolve();
      return stored ? this.store.complete(scope, key, token, stored) : this.store.release(scope, key, token);
    });
    response.once('close', () => {
      if (handled && !done()) release();
    });
    return next.handle().pipe(
      mergeMap((value: unknown) =>
        state !== 'pending'
          ? of(value)
          : from(claimLate()).pipe(map((kept) => (kept ? this.replay(kept) : value))),
      ),
      catchError((error: unknown) => {
        if (error instanceof IdempotentReplay) return of(this.replay(error.response));
        if (state !== 'pending') return throwError(() => error);
        return from(claimLate()).pipe(
          mergeMap((kept) => (kept ? of(this.replay(kept)) : throwError(() => error))),
        );
      }),
      finalize(() => {
        handled = true;
        RequestTransactions.detach(actor);
        if (response.destroyed && !done()) release();
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
