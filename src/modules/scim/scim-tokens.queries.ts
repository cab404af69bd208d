import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { PreparedQueries } from '../../database/prepared-queries.runner';

/**
 * The SCIM token check of every SCIM request, in raw SQL rather than the
 * repository API: the lookup is one fixed statement run as a named prepared
 * statement on the pool (outside any transaction), over
 * scim_tokens_token_hash_key; `last_used_at` is written by the scim_tokens
 * primary key, at most once a minute.
 */
@Injectable()
export class ScimTokensQueries {
  /** The live token of hash `hash`, if any. */
  liveToken(prepared: PreparedQueries, hash: string): Promise<{ id: string; last_used_at: Date | null }[]> {
    return prepared.queryOutsideTransaction<{ id: string; last_used_at: Date | null }>(
      `SELECT id, last_used_at FROM scim_tokens
        WHERE token_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      [hash],
    );
  }

  async touch(em: EntityManager, tokenId: string): Promise<void> {
    await em.query(`UPDATE scim_tokens SET last_used_at = now() WHERE id = $1`, [tokenId]);
  }
}
