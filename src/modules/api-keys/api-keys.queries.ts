import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import type { PreparedQueries } from '../../database/prepared-queries.runner';
import { composedText } from '../../database/statement-text';
import { spacePrefetchColumn } from '../../common/permissions/space-access.port';

// The creator must still reach the key's instance (a key belongs to one instance, docs/decisions.md#instance-of-a-credential).
const KEY_SQL = `SELECT k.id, k.user_id, k.instance_id, k.rate_limit_tier, k.last_used_at, u.email, u.is_superadmin%SPACE%
   FROM api_keys k JOIN users u ON u.id = k.user_id
  WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
    AND u.is_active
    AND (k.instance_id = '${DEFAULT_INSTANCE_ID}' OR u.is_superadmin
         OR EXISTS (SELECT 1 FROM instance_memberships m WHERE m.instance_id = k.instance_id AND m.user_id = k.user_id))`;

/**
 * The API-key reads and writes of the per-request hot path, in raw SQL
 * rather than the repository API:
 * - the key lookup is one fixed statement run as a named prepared statement
 *   on the pool (outside any transaction), joined with its user and able to
 *   carry the `{slug}` space along; it uses api_keys_key_hash_key, the users
 *   primary key and instance_memberships' primary key;
 * - the instance of a key, read before authentication, uses
 *   api_keys_key_hash_key, on the pool too;
 * - `last_used_at` is written with a condition (at most once per interval,
 *   whatever the concurrency), by the api_keys primary key.
 */
@Injectable()
export class ApiKeysQueries {
  /** The live key of hash `keyHash` with its creator; `space` adds the space-prefetch column ($2). */
  liveKey<Row>(
    prepared: PreparedQueries,
    keyHash: string,
    space?: { sql: string; key: string },
  ): Promise<Row[]> {
    if (!space) return prepared.queryOutsideTransaction<Row>(composedText(KEY_SQL, '%SPACE%', ''), [keyHash]);
    return prepared.queryOutsideTransaction<Row>(
      composedText(KEY_SQL, '%SPACE%', spacePrefetchColumn(space.sql)),
      [keyHash, space.key],
    );
  }

  instanceOfKey(prepared: PreparedQueries, keyHash: string): Promise<{ instance_id: string }[]> {
    return prepared.queryOutsideTransaction<{ instance_id: string }>(
      'SELECT instance_id FROM api_keys WHERE key_hash = $1',
      [keyHash],
    );
  }

  /** Records a use of the key unless one was recorded within `resolutionSeconds`. */
  async touch(em: EntityManager, keyId: string, resolutionSeconds: number): Promise<void> {
    await em.query(
      `UPDATE api_keys SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= now() - make_interval(secs => $2))`,
      [keyId, resolutionSeconds],
    );
  }
}
