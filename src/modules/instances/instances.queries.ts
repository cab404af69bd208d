import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * Raw SQL of the instances module. The space count runs on an instance's own
 * database, whose entities this module does not own (spaces belong to the
 * spaces module), so it is one plain statement rather than a repository of
 * another module; it counts the spaces primary key (spaces_pkey).
 */
@Injectable()
export class InstancesQueries {
  /** The number of spaces in the database `em` works on. */
  async countSpaces(em: EntityManager): Promise<number> {
    const [row] = (await em.query('SELECT count(*)::int AS n FROM spaces')) as { n: number }[];
    return row.n;
  }
}
