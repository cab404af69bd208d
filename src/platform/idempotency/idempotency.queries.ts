import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

export interface KeyRow {
  fingerprint: string;
  status: 'running' | 'done';
  response_status: number | null;
  response_sealed: string | null;
}

/**
 * The claim (parameters scope, key, fingerprint, token, lease seconds,
 * retention hours, numbered from `from`): takes the key when it is new,
 * expired, or abandoned by a dead process mid-request (same request only).
 */
function claimSql(from: number): string {
  const p = (i: number) => `$${from + i}`;
  return `INSERT INTO idempotency_keys (scope, key, fingerprint, status, claim_token, locked_until, expires_at)
     VALUES (${p(0)}, ${p(1)}, ${p(2)}, 'running', ${p(3)}, now() + make_interval(secs => ${p(4)}), now() + make_interval(hours => ${p(5)}))
     ON CONFLICT (scope, key) DO UPDATE
        SET fingerprint = EXCLUDED.fingerprint, status = 'running', claim_token = EXCLUDED.claim_token,
            locked_until = EXCLUDED.locked_until, response_status = NULL, response_sealed = NULL,
            created_at = now(), expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= now()
         OR (idempotency_keys.status = 'running' AND idempotency_keys.locked_until < now()
             AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
     RETURNING claim_token`;
}

/**
 * The idempotency-key statements, in raw SQL rather than the repository API:
 * a claim is one `INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING`
 * (exactly one of two racing requests wins, which a read-then-write could
 * not promise), completion and release are conditional on the claim token,
 * and lease renewal updates every held key in one statement. Each uses the
 * idempotency_keys primary key (scope, key); the sweep uses
 * idempotency_keys_expires_idx.
 */
@Injectable()
export class IdempotencyQueries {
  /**
   * Takes the key when it is new, expired, or abandoned by a dead process
   * mid-request (same request only); answers the claim token when taken.
   */
  async claim(
    em: EntityManager,
    scope: string,
    key: string,
    fingerprint: string,
    token: string,
    leaseSeconds: number,
    retentionHours: number,
  ): Promise<{ claim_token: string }[]> {
    return (await em.query(claimSql(1), [scope, key, fingerprint, token, leaseSeconds, retentionHours])) as {
      claim_token: string;
    }[];
  }

  /**
   * The claim as a data-modifying CTE body for another module's one-statement
   * write (its parameters numbered from `from`): it returns the claim token
   * when the key was taken.
   */
  claimStatement(
    from: number,
    scope: string,
    key: string,
    fingerprint: string,
    token: string,
    leaseSeconds: number,
    retentionHours: number,
  ): { sql: string; params: unknown[] } {
    return { sql: claimSql(from), params: [scope, key, fingerprint, token, leaseSeconds, retentionHours] };
  }

  /** The live (unexpired) key, if any. */
  async live(em: EntityManager, scope: string, key: string): Promise<KeyRow | undefined> {
    const [row] = (await em.query(
      `SELECT fingerprint, status, response_status, response_sealed FROM idempotency_keys
          WHERE scope = $1 AND key = $2 AND expires_at > now()`,
      [scope, key],
    )) as KeyRow[];
    return row;
  }

  async complete(
    em: EntityManager,
    scope: string,
    key: string,
    token: string,
    status: number,
    sealed: string,
  ): Promise<void> {
    await em.query(
      `UPDATE idempotency_keys SET status = 'done', locked_until = NULL, response_status = $4, response_sealed = $5
        WHERE scope = $1 AND key = $2 AND claim_token = $3`,
      [scope, key, token, status, sealed],
    );
  }

  async release(em: EntityManager, scope: string, key: string, token: string): Promise<void> {
    await em.query(`DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND claim_token = $3`, [
      scope,
      key,
      token,
    ]);
  }

  /** Deletes expired keys; answers how many. */
  async sweep(em: EntityManager): Promise<number> {
    const [, count] = (await em.query(`DELETE FROM idempotency_keys WHERE expires_at <= now()`)) as [
      unknown,
      number,
    ];
    return count;
  }

  /** Extends the lease of the held keys still running. */
  async renew(
    em: EntityManager,
    held: { scope: string; key: string; token: string }[],
    leaseSeconds: number,
  ): Promise<void> {
    await em.query(
      `UPDATE idempotency_keys k SET locked_until = now() + make_interval(secs => $4)
           FROM unnest($1::text[], $2::text[], $3::uuid[]) AS h(scope, key, token)
          WHERE k.scope = h.scope AND k.key = h.key AND k.claim_token = h.token AND k.status = 'running'`,
      [held.map((h) => h.scope), held.map((h) => h.key), held.map((h) => h.token), leaseSeconds],
    );
  }
}
