import type { EntityManager } from 'typeorm';
import type { IncidentStatus } from './entities/incident.entity';

/** Rows per (space, status): new incidents update one at random, so they rarely wait on each other. */
export const COUNT_SHARDS = 16;

/** Upkeep and reads of `quality_incident_counts`, always inside the caller's transaction. */
export class IncidentCounts {
  /** One incident opened, or moved from one status to another. Rows are locked in status order (no deadlock). */
  static async move(
    em: EntityManager,
    spaceId: string,
    from: IncidentStatus | null,
    to: IncidentStatus,
  ): Promise<void> {
    if (from === to) return;
    const deltas = new Map<IncidentStatus, number>([[to, 1]]);
    if (from) deltas.set(from, -1);
    for (const [status, delta] of [...deltas].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await em.query(
        `INSERT INTO quality_incident_counts (space_id, status, shard, total) VALUES ($1, $2, $3, $4)
         ON CONFLICT (space_id, status, shard) DO UPDATE SET total = quality_incident_counts.total + EXCLUDED.total`,
        [spaceId, status, Math.floor(Math.random() * COUNT_SHARDS), delta],
      );
    }
  }

  /** Incidents of the space, in one status or in all. */
  static async total(em: EntityManager, spaceId: string, status?: IncidentStatus): Promise<number> {
    const rows = (await em.query(
      `SELECT COALESCE(sum(total), 0)::int AS total FROM quality_incident_counts
        WHERE space_id = $1 AND ($2::text IS NULL OR status = $2)`,
      [spaceId, status ?? null],
    )) as { total: number }[];
    return rows[0].total;
  }
}
