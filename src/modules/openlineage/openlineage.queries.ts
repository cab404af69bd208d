import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** One validated event, ready to store. */
export interface StoredEventInput {
  kind: string;
  run_id: string | null;
  event_type: string | null;
  event_time: string;
  payload: unknown;
  space_ids: string[];
  /** The API key's user it was sent as. */
  actor_user_id: string;
}

export interface ClaimedEventRow {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  actor_user_id: string;
  space_ids: string[];
  attempts: number;
}

/**
 * The raw OpenLineage event store. Raw SQL because a request's events go in
 * as one multi-row statement (`jsonb_array_elements`) with ON CONFLICT on the
 * (run_id, event_type, event_time) unique index `openlineage_events_run_key`,
 * and because claims need FOR UPDATE SKIP LOCKED. Claims walk the partial
 * index `openlineage_events_pending_idx` (event_time, seq WHERE processed_at
 * IS NULL); marks and failures go by primary key; the prune by
 * `openlineage_events_received_idx`. Savepoints and the processor's advisory lock
 * (no table, no index) let one event's failure roll back only its own
 * effects within a claimed batch, and keep one processor per database.
 */
@Injectable()
export class OpenLineageQueries {
  /** Stores the events in one statement; a run event stored before is skipped. */
  async insertEvents(em: EntityManager, events: StoredEventInput[]): Promise<void> {
    await em.query(
      `INSERT INTO openlineage_events (kind, run_id, event_type, event_time, payload, actor_user_id, space_ids)
       SELECT e->>'kind', (e->>'run_id')::uuid, e->>'event_type', (e->>'event_time')::timestamptz, e->'payload',
              (e->>'actor_user_id')::uuid, ARRAY(SELECT jsonb_array_elements_text(e->'space_ids'))::uuid[]
         FROM jsonb_array_elements($1::jsonb) e
       ON CONFLICT (run_id, event_type, event_time) DO NOTHING`,
      [JSON.stringify(events)],
    );
  }

  /** Up to `limit` unprocessed events, oldest event time first (ties in arrival order), locked for this transaction. */
  async claimPending(em: EntityManager, limit: number): Promise<ClaimedEventRow[]> {
    return (await em.query(
      `SELECT id, kind, payload, actor_user_id, space_ids, attempts FROM openlineage_events
        WHERE processed_at IS NULL
        ORDER BY event_time, seq
        LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    )) as ClaimedEventRow[];
  }

  /** Marks events applied, each with what applying it skipped (null: nothing). */
  async markProcessed(em: EntityManager, done: { id: string; outcome: object | null }[]): Promise<void> {
    if (!done.length) return;
    await em.query(
      `UPDATE openlineage_events e SET processed_at = now(), outcome = d.outcome, last_error = NULL
         FROM jsonb_to_recordset($1::jsonb) AS d(id uuid, outcome jsonb)
        WHERE e.id = d.id`,
      [JSON.stringify(done)],
    );
  }

  /** Records a failed attempt; past `maxAttempts` the event is given up (processed, with its error). */
  async recordFailure(
    em: EntityManager,
    id: string,
    attempts: number,
    message: string,
    givingUp: boolean,
  ): Promise<void> {
    await em.query(
      `UPDATE openlineage_events SET attempts = $2, last_error = $3, processed_at = CASE WHEN $4 THEN now() END
        WHERE id = $1`,
      [id, attempts, message, givingUp],
    );
  }

  /** Deletes processed events received before `before`; answers how many. */
  async prune(em: EntityManager, before: Date): Promise<number> {
    const rows = (await em.query(
      `DELETE FROM openlineage_events WHERE received_at < $1 AND processed_at IS NOT NULL RETURNING 1`,
      [before],
    )) as unknown[];
    return rows.length;
  }

  /** Whether this transaction is the one processor of the database now (an advisory lock, no table). */
  async tryLockProcessor(em: EntityManager): Promise<boolean> {
    const [row] = (await em.query(
      `SELECT pg_try_advisory_xact_lock(hashtext('openlineage:processor')) AS locked`,
    )) as {
      locked: boolean;
    }[];
    return row.locked;
  }

  async savepoint(em: EntityManager): Promise<void> {
    await em.query('SAVEPOINT openlineage_event');
  }

  async releaseSavepoint(em: EntityManager): Promise<void> {
    await em.query('RELEASE SAVEPOINT openlineage_event');
  }

  async rollbackToSavepoint(em: EntityManager): Promise<void> {
    await em.query('ROLLBACK TO SAVEPOINT openlineage_event');
  }
}
