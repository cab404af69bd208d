import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../common/auth/actor';
import { DomainError } from '../../common/errors/domain-error';
import { ProblemDetailsFilter } from '../../common/errors/problem-details.filter';
import { dropAnswerHeaders, sendAnswer } from '../../common/errors/ready-answer';
import { RequestTransactions } from '../../database/request-transaction';
import { CLAIMS_IN_TRANSACTION } from './claims-in-transaction.decorator';
import { parseIdempotencyKey, requestFingerprint, type StoredResponse } from './idempotency-key';
import { IdempotencyKeyInvalid, IdempotentReplay, replayOf } from './idempotency.errors';
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

/** What goes out instead of the handler's answer: a kept answer replayed, or the problem an error makes. */
type Instead = { replay: StoredResponse } | { problem: unknown };

/**
 * Given the answer about to be sent (null when it cannot be kept), keeps or
 * releases the key, and says what to send instead, if anything.
 */
type Settle = (stored: StoredResponse | null) => Promise<Instead | void>;

/**
 * `Idempotency-Key` on POST (IETF httpapi draft, as Stripe uses it), for
 * every route in one place. A signed-in caller's key, with the same method,
 * path and body within 24 hours, replays the first response (status, body,
 * `Location`, marked `Idempotent-Replayed: true`); another request under the
 * key answers 422, and one while the first still runs 409. 5xx responses,
 * responses over 256 KiB and responses that are not JSON are not kept (the
 * key is released). Anonymous requests and uploads (multipart or raw
 * bodies) are not made idempotent: the key is checked for its format only.
 *
 * A guard, bound by request-pipeline.ts after every other guard of each POST
 * route (where an interceptor would start), rather than an interceptor: Nest
 * runs a route with any interceptor through an RxJS chain, which cost every
 * POST about 15% of its CPU, with or without a key. What an interceptor would
 * do after the handler happens where the answer is sent (`res.end`, which
 * Nest's reply and the problem-details filter both end in): the answer is
 * kept there before it goes out.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  private readonly logger = new Logger(IdempotencyGuard.name);

  constructor(
    private readonly store: IdempotencyStore,
    private readonly problems: ProblemDetailsFilter,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    const header = request.headers['idempotency-key'];
    if (header === undefined || request.method !== 'POST') return true;
    const key = parseIdempotencyKey(header);
    if (key === null) throw new IdempotencyKeyInvalid();
    const scope = scopeOf(request);
    if (!scope || (hasBody(request) && !FINGERPRINTED_BODY.test(request.headers['content-type'] ?? ''))) {
      return true;
    }
    const response = context.switchToHttp().getResponse<Response>();
    const fingerprint = requestFingerprint(request.method, request.originalUrl, request.body);
    if (Reflect.getMetadata(CLAIMS_IN_TRANSACTION, context.getHandler()) === true) {
      this.claimInTransaction(request, response, scope, key, fingerprint);
      return true;
    }
    return this.claimFirst(request, response, scope, key, fingerprint);
  }

  /** The claim in a commit of its own, before the handler; a key holding this request's answer replays it. */
  private async claimFirst(
    request: Request,
    response: Response,
    scope: string,
    key: string,
    fingerprint: string,
  ): Promise<boolean> {
    const claim = await this.store.claim(scope, key, fingerprint);
    if (claim.kind === 'replay') throw new IdempotentReplay(claim.response);
    const release = () => void this.store.release(scope, key, claim.token).catch(this.warn);
    const sent = this.capture(request, response, (stored) => this.keep(scope, key, claim.token, stored));
    // Nest sends every handler's answer, the client still there or not; only a streamed answer cut short never ends.
    response.once('close', () => {
      if (sent.streamed() && !sent.ended()) release();
    });
    return true;
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
    request: Request,
    response: Response,
    scope: string,
    key: string,
    fingerprint: string,
  ): void {
    const actor = request.actor as Actor;
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
    const sent = this.capture(request, response, async (stored) => {
      RequestTransactions.detach(actor);
      if (state === 'pending') {
        state = 'refused';
        try {
          const claim = await this.store.claim(scope, key, fingerprint);
          if (claim.kind === 'replay') return { replay: replayOf(claim.response) };
          token = claim.token;
          state = 'committed';
        } catch (error) {
          return { problem: error };
        }
      }
      if (state === 'committed') await this.keep(scope, key, token, stored);
    });
    response.once('close', () => {
      if (state === 'committed' && sent.streamed() && !sent.ended()) {
        void this.store.release(scope, key, token).catch(this.warn);
      }
    });
  }

  /** Keeps the answer under the key, or frees the key when the answer cannot be kept. */
  private keep(scope: string, key: string, token: string, stored: StoredResponse | null): Promise<void> {
    return stored ? this.store.complete(scope, key, token, stored) : this.store.release(scope, key, token);
  }

  private readonly warn = (error: unknown) =>
    this.logger.warn(`Idempotency key release failed: ${String(error)}`);

  /**
   * Wraps `res.end` (where both Nest's reply and the problem-details filter
   * end up) to hand the finished response to `settle` before it is sent, so
   * a retry that follows the answer always finds it kept; `settle` may have
   * another answer sent instead. Answers whether the response was written
   * in parts (streamed) and whether it was ended.
   */
  private capture(
    request: Request,
    response: Response,
    settle: Settle,
  ): { streamed: () => boolean; ended: () => boolean } {
    let ended = false;
    let streamed = false;
    const write = response.write;
    const end = response.end;
    response.write = function (this: Response, ...args: Parameters<Response['write']>) {
      streamed = true;
      return write.apply(this, args);
    } as Response['write'];
    response.end = ((...args: EndArgs) => {
      response.write = write;
      response.end = end;
      ended = true;
      settle(streamed ? null : this.storable(response, args))
        .then(
          (instead) => {
            if (!instead) return end.apply(response, args as Parameters<Response['end']>);
            if ('replay' in instead) return sendAnswer(response, instead.replay, end);
            dropAnswerHeaders(response);
            this.problems.answer(instead.problem, request, response);
          },
          (error: unknown) => {
            this.logger.warn(`Keeping an idempotent response failed: ${String(error)}`);
            end.apply(response, args as Parameters<Response['end']>);
          },
        )
        .catch((error: unknown) => {
          this.logger.error(`Sending an idempotent answer failed: ${String(error)}`);
          if (!response.headersSent) response.statusCode = 500;
          if (!response.writableEnded) end.apply(response, [] as unknown as Parameters<Response['end']>);
        });
      return response;
    }) as Response['end'];
    return { streamed: () => streamed, ended: () => ended };
  }

  /** The answer `res.end(...args)` completes, as a replay would send it; null when it is not kept. */
  private storable(response: Response, [chunk, encoding]: EndArgs): StoredResponse | null {
    const body =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk)
          : Buffer.alloc(0);
    const type = String(response.getHeader('content-type') ?? '');
    if (
      response.statusCode >= 500 ||
      body.length > MAX_STORED_RESPONSE_BYTES ||
      (body.length > 0 && !STORABLE_TYPE.test(type))
    ) {
      return null;
    }
    const headers: Record<string, string | string[]> = {};
    for (const name of KEPT_HEADERS) {
      const value = response.getHeader(name);
      if (value !== undefined) headers[name] = Array.isArray(value) ? value : String(value);
    }
    return { status: response.statusCode, headers, body };
  }
}
