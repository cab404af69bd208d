import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import type { PreparedQueries } from '../../database/prepared-queries.runner';
import { composedText } from '../../database/statement-text';
import { spacePrefetchColumn } from '../../common/permissions/space-access.port';
import { ownUserColumns } from '../users/users.contract';

/** Prefix of the own-user columns the session check can fetch along (`@Authenticated({ withOwnUser: true })`). */
export const OWN_USER_PREFIX = 'own.';
const OWN_USER_SELECT = ownUserColumns('u', OWN_USER_PREFIX);

// The user must still reach the session's instance: removing a member ends their tokens for it at once.
const SESSION_SQL = `SELECT u.email, u.is_superadmin, s.impersonator_id, s.instance_id%OWN%%SPACE%
   FROM sessions s JOIN users u ON u.id = s.user_id
  WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now() AND u.is_active
    AND (s.instance_id = '${DEFAULT_INSTANCE_ID}' OR u.is_superadmin
         OR EXISTS (SELECT 1 FROM instance_memberships m WHERE m.instance_id = s.instance_id AND m.user_id = s.user_id))`;

/** The session check's text with and without the own-user columns (`%SPACE%` still to fill). */
const SESSION_TEXTS = {
  plain: SESSION_SQL.replace('%OWN%', ''),
  withOwnUser: SESSION_SQL.replace('%OWN%', `, ${OWN_USER_SELECT}`),
};

/**
 * The accounts module's raw SQL, and why each is not the repository API:
 * - the live-session check is the hot path of every authenticated request:
 *   one fixed statement, run as a named prepared statement on the pool
 *   (outside any transaction), that can also carry the `{slug}` space along;
 *   it uses the sessions primary key, the users primary key and
 *   instance_memberships' primary key (instance_id, user_id);
 * - the registration lock is an advisory lock, which has no repository form
 *   (no table, no index);
 * - the lockout read uses login_failures_email_idx (email, failed_at);
 * - the daily purges delete by range in one statement each (sessions and
 *   password_reset_tokens by a scan, small once purged daily;
 *   login_failures by its failed_at, a scan too).
 */
@Injectable()
export class AccountsQueries {
  /**
   * The live session `sessionId` of `userId`, with its user; `space` adds the
   * space-prefetch column (its SQL from SpaceAccessPort.prefetchSql, its key
   * bound as $3); `withOwnUser` adds the user's own-user columns, named
   * `OWN_USER_PREFIX<property>` (users.contract.ts).
   */
  liveSession<Row>(
    prepared: PreparedQueries,
    sessionId: string,
    userId: string,
    space?: { sql: string; key: string },
    withOwnUser = false,
  ): Promise<Row[]> {
    const sql = withOwnUser ? SESSION_TEXTS.withOwnUser : SESSION_TEXTS.plain;
    if (!space)
      return prepared.queryOutsideTransaction<Row>(composedText(sql, '%SPACE%', ''), [sessionId, userId]);
    return prepared.queryOutsideTransaction<Row>(
      composedText(sql, '%SPACE%', spacePrefetchColumn(space.sql)),
      [sessionId, userId, space.key],
    );
  }

  /** Serialises registrations until the transaction ends. */
  async lockRegistrations(em: EntityManager): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtext('verity:register'))`);
  }

  /** The latest `limit` failed sign-ins for `email` within the last `windowSeconds`, newest first. */
  async recentLoginFailures(
    em: EntityManager,
    email: string,
    windowSeconds: number,
    limit: number,
  ): Promise<{ failed_at: Date }[]> {
    return (await em.query(
      `SELECT failed_at FROM login_failures WHERE email = $1 AND failed_at > now() - make_interval(secs => $2)
        ORDER BY failed_at DESC LIMIT $3`,
      [email, windowSeconds, limit],
    )) as { failed_at: Date }[];
  }

  // Revoked or expired sessions are kept a week for investigations; their refresh tokens go with them (cascade).
  async purgeStaleSessions(em: EntityManager): Promise<void> {
    await em.query(
      `DELETE FROM sessions WHERE expires_at < now() - interval '7 days' OR revoked_at < now() - interval '7 days'`,
    );
  }

  async purgeStaleResetTokens(em: EntityManager): Promise<void> {
    await em.query(`DELETE FROM password_reset_tokens WHERE expires_at < now() - interval '1 day'`);
  }

  async purgeOldLoginFailures(em: EntityManager): Promise<void> {
    await em.query(`DELETE FROM login_failures WHERE failed_at < now() - interval '1 day'`);
  }
}
