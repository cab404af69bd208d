import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * The metadata configuration's raw SQL. Serialising the writes to one
 * collection of one space needs a transaction-scoped advisory lock, which the
 * repository API has no call for. The lock is on a key, not a row: it uses no
 * index.
 */
@Injectable()
export class MetadataConfigQueries {
  /** Holds the lock on `<table>:<spaceId>` until the transaction ends. */
  async lockCollection(em: EntityManager, table: string, spaceId: string): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`${table}:${spaceId}`]);
  }
}
