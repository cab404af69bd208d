import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * Raw SQL of the connectors module on Verity's own database. The connector
 * count per source system is one grouped statement for a whole page of
 * systems, which the repository API would do as one count per system; it
 * uses connectors_source_system_idx.
 *
 * (The SQL sent to a connector's own database — its catalog harvest and the
 * read-only session's protocol — runs on a ReadOnlySession, not on an
 * EntityManager, and stays with that session's code.)
 */
@Injectable()
export class ConnectorsQueries {
  /** How many connectors each of `systemIds` has; systems without any are absent. */
  async connectorCounts(em: EntityManager, systemIds: string[]): Promise<{ id: string; n: number }[]> {
    return (await em.query(
      `SELECT source_system_id AS id, count(*)::int AS n FROM connectors WHERE source_system_id = ANY($1::uuid[]) GROUP BY 1`,
      [systemIds],
    )) as { id: string; n: number }[];
  }
}
