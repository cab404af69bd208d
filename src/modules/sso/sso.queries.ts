import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * The SSO module's raw SQL. An advisory lock has no repository form, and the
 * daily purge deletes by a range on `expires_at` in one statement per table
 * rather than loading rows to remove them through the repository.
 *
 * Indexes: the lock reads no table; the purges use sso_pending_logins_expires_idx,
 * sso_login_codes_expires_idx and sso_assertions_expires_idx.
 */
@Injectable()
export class SsoQueries {
  /** Serialises domain-overlap checks until the transaction ends. */
  async lockDomains(em: EntityManager): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtext('verity:sso-domains'))`);
  }

  async purgeExpiredPendingLogins(em: EntityManager): Promise<void> {
    await em.query(`DELETE FROM sso_pending_logins WHERE expires_at < now()`);
  }

  async purgeExpiredLoginCodes(em: EntityManager): Promise<void> {
    await em.query(`DELETE FROM sso_login_codes WHERE expires_at < now()`);
  }

  async purgeExpiredAssertions(em: EntityManager): Promise<void> {
    await em.query(`DELETE FROM sso_assertions WHERE expires_at < now()`);
  }
}
