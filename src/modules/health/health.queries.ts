import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * The health probe's database ping. Raw SQL because there is no entity to
 * ask: `SELECT 1` only proves the database answers, and it reads no table,
 * so it uses no index.
 */
@Injectable()
export class HealthQueries {
  async ping(em: EntityManager): Promise<void> {
    await em.query('SELECT 1');
  }
}
