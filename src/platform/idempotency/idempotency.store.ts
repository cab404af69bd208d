import { randomUUID } from 'node:crypto';
import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { SecretBox } from '../crypto/secret-box.service';
import { JobRunner } from '../jobs/job-runner.service';
import { renewalIntervalMs } from '../jobs/lease';
import { IdempotencyKeyInUse, IdempotencyKeyReused, IdempotentReplay } from './idempotency.errors';
import { IdempotencyQueries } from './idempotency.queries';
import type { StoredResponse } from './idempotency-key';

/** How long a key replays its first response (the draft's and Stripe's 24 hours). */
export const KEY_RETENTION_HOURS = 24;
/** A request holds its key this long without renewal; renewed while it runs, so a dead process frees it within this. */
const LEASE_MS = 30_000;
const SWEEP_JOB = 'platform.idempotency-sweep';
const CLAIM_TRIES = 3;

export type Claim = { kind: 'claimed'; token: string } | { kind: 'replay'; response: StoredResponse };

interface HeldKey {
  scope: string;
  key: string;
  token: string;
}

const sealContext = (scope: string, key: string) => `idempotency:${scope}:${key}`;

/**
 * Idempotency keys in PostgreSQL. A request claims its key with one
 * INSERT ... ON CONFLICT before its handler runs, so of two racing requests
 * exactly one executes; the other sees the claim (409) or, once it is done,
 * the stored response (replay).
 */
@Injectable()
export class IdempotencyStore implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(IdempotencyStore.name);
  private readonly held = new Map<string, HeldKey>();
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly secrets: SecretBox,
    private readonly jobs: JobRunner,
    private readonly queries: IdempotencyQueries,
  ) {}

  onModuleInit(): void {
    this.jobs.register(SWEEP_JOB, async () => void (await this.sweep()));
    this.jobs.registerCron(SWEEP_JOB, '37 * * * *', SWEEP_JOB);
  }

  onApplicationBootstrap(): void {
    this.heartbeat = setInterval(() => void this.renew(), renewalIntervalMs(LEASE_MS));
    this.heartbeat.unref();
  }

  beforeApplicationShutdown(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
  }

  /** Claims `key` for a request, or answers the stored response; throws 422 (other request) or 409 (still running). */
  async claim(scope: string, key: string, fingerprint: string): Promise<Claim> {
    // Outside any transaction: on the DataSource's manager, in a commit of its own.
    const claim = await this.claimOn(this.dataSource.manager, scope, key, fingerprint, randomUUID());
    if (claim.kind === 'claimed') this.hold(scope, key, claim.token);
    return claim;
  }

  /**
   * The claim as the first statement of the request's transaction (`em`), with
   * `token`: it commits with the request's writes or rolls back with them, so
   * it costs no commit of its own. Until that transaction ends, a racing claim
   * of the key waits on the uncommitted row, then sees it taken (or free again
   * after a rollback). Throws 422, 409, or IdempotentReplay when the key is taken;
   * call `hold` once the transaction has committed.
   */
  async claimWithin(
    em: EntityManager,
    scope: string,
    key: string,
    fingerprint: string,
    token: string,
  ): Promise<void> {
    const claim = await this.claimOn(em, scope, key, fingerprint, token);
    if (claim.kind === 'replay') throw new IdempotentReplay(claim.response);
  }

  /** Renews the lease of a committed claim while its request runs. */
  hold(scope: string, key: string, token: string): void {
    this.held.set(token, { scope, key, token });
  }

  /**
   * The claim as a CTE for a write that is one autocommit statement (its
   * parameters numbered from `from`); then `refuse` when it returned no row.
   */
  claimStatement(
    scope: string,
    key: string,
    fingerprint: string,
    token: string,
    from: number,
  ): { sql: string; params: unknown[] } {
    return this.queries.claimStatement(
      from,
      scope,
      key,
      fingerprint,
      token,
      LEASE_MS / 1000,
      KEY_RETENTION_HOURS,
    );
  }

  /**
   * After a claim made in another statement found the key taken: throws 422,
   * 409, or IdempotentReplay. A key gone since (released) answers 409: the
   * client retries it as new.
   */
  async refuse(scope: string, key: string, fingerprint: string): Promise<never> {
    const taken = await this.taken(this.dataSource.manager, scope, key, fingerprint);
    if (taken && taken.kind === 'replay') throw new IdempotentReplay(taken.response);
    throw new IdempotencyKeyInUse();
  }

  private async claimOn(
    em: EntityManager,
    scope: string,
    key: string,
    fingerprint: string,
    token: string,
  ): Promise<Claim> {
    for (let attempt = 1; ; attempt++) {
      const claimed = await this.queries.claim(
        em,
        scope,
        key,
        fingerprint,
        token,
        LEASE_MS / 1000,
        KEY_RETENTION_HOURS,
      );
      if (claimed.length) return { kind: 'claimed', token };
      const taken = await this.taken(em, scope, key, fingerprint);
      // Gone (expired or released) between the two statements: claim again.
      if (taken) return taken;
      if (attempt >= CLAIM_TRIES) throw new IdempotencyKeyReused();
    }
  }

  /** What a request finds under a key it could not claim: throws 422 or 409, answers the replay; null when gone. */
  private async taken(
    em: EntityManager,
    scope: string,
    key: string,
    fingerprint: string,
  ): Promise<Claim | null> {
    const row = await this.queries.live(em, scope, key);
    if (!row) return null;
    if (row.fingerprint !== fingerprint) throw new IdempotencyKeyReused();
    if (row.status === 'running' || row.response_status === null || row.response_sealed === null) {
      throw new IdempotencyKeyInUse();
    }
    const kept = JSON.parse(this.secrets.open(row.response_sealed, sealContext(scope, key))) as {
      headers: Record<string, string | string[]>;
      body: string;
    };
    return {
      kind: 'replay',
      response: {
        status: row.response_status,
        headers: kept.headers,
        body: Buffer.from(kept.body, 'base64'),
      },
    };
  }

  /** Keeps the response for replays; a no-op when the claim was lost meanwhile. */
  async complete(scope: string, key: string, token: string, response: StoredResponse): Promise<void> {
    this.held.delete(token);
    const sealed = this.secrets.seal(
      JSON.stringify({ headers: response.headers, body: response.body.toString('base64') }),
      sealContext(scope, key),
    );
    await this.queries.complete(this.dataSource.manager, scope, key, token, response.status, sealed);
  }

  /** Frees the key (nothing to replay): the client may retry it as new. */
  async release(scope: string, key: string, token: string): Promise<void> {
    this.held.delete(token);
    await this.queries.release(this.dataSource.manager, scope, key, token);
  }

  /** Deletes keys past their 24 hours; answers how many. */
  async sweep(): Promise<number> {
    return this.queries.sweep(this.dataSource.manager);
  }

  private async renew(): Promise<void> {
    const held = [...this.held.values()];
    if (!held.length) return;
    try {
      await this.queries.renew(this.dataSource.manager, held, LEASE_MS / 1000);
    } catch (error) {
      this.logger.warn(`Idempotency key lease renewal failed: ${String(error)}`);
    }
  }
}
