import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { DomainError, Forbidden, ValidationFailed } from '../../common/errors/domain-error';
import { SpaceAccessPort } from '../../common/permissions/space-access.port';
import { InstanceContext } from '../../database/instance-context';
import { Wakeup } from '../../platform/jobs/wakeup.service';
import { NamespaceMappingsService } from './namespace-mappings.service';
import { GroupInsert } from './group-insert';
import { kindOf, namespacesOf, OlEvent, validateEvent } from './openlineage-event';
import { OpenLineageQueries, StoredEventInput } from './openlineage.queries';

/** Events one request may carry (a batch); the body limit is the other bound. */
export const MAX_BATCH = 1_000;
/** The wakeup topic of the event processor. */
export const OPENLINEAGE_TOPIC = 'openlineage';
/** Concurrent inserts per process and instance; requests arriving meanwhile join the next one. */
const INSERTS_IN_FLIGHT = 4;
/** How long a granted edit right is remembered per (instance, user, space). */
const GRANT_CACHE_MS = 5_000;
const GRANT_CACHE_MAX = 10_000;

/**
 * The request side of OpenLineage ingestion: validate, find the spaces that
 * map the events' namespaces, check the sender may edit each, and store the
 * events in one statement (shared with the requests arriving meanwhile, see
 * GroupInsert), acknowledged once committed. Applying them is the processor's work
 * (OpenLineageProcessor), woken once the insert commits.
 * See docs/decisions.md#openlineage-ingestion.
 */
@Injectable()
export class OpenLineageIngestService {
  private readonly grants = new Map<string, number>();
  /** Per instance: its requests' events share statements (and commits) while they arrive together. */
  private readonly writers = new Map<string, GroupInsert<StoredEventInput>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: SpaceAccessPort,
    private readonly mappings: NamespaceMappingsService,
    private readonly queries: OpenLineageQueries,
    private readonly wakeup: Wakeup,
  ) {}

  async ingest(actor: Actor, body: unknown): Promise<{ accepted: number }> {
    const batch = Array.isArray(body);
    const items: unknown[] = batch ? body : [body];
    if (items.length > MAX_BATCH) {
      throw ValidationFailed.field(
        'body',
        `A batch holds at most ${MAX_BATCH} events; this one has ${items.length}.`,
      );
    }
    const errors = items.flatMap((item, index) => validateEvent(item, batch ? `[${index}].` : ''));
    if (errors.length) throw new ValidationFailed(errors);
    const events = items as OlEvent[];
    const em = this.dataSource.manager;
    const mapped = await this.mappings.spacesFor(em, [...new Set(events.flatMap(namespacesOf))]);
    const stored: StoredEventInput[] = [];
    for (const event of events) {
      const spaceIds = [
        ...new Set(namespacesOf(event).flatMap((ns) => (mapped.get(ns) ?? []).map((m) => m.spaceId))),
      ];
      if (!spaceIds.length) continue;
      const kind = kindOf(event as unknown as Record<string, unknown>);
      stored.push({
        kind,
        run_id: kind === 'run' ? event.run!.runId.toLowerCase() : null,
        event_type: kind === 'run' ? (event.eventType ?? 'OTHER') : null,
        event_time: event.eventTime,
        payload: event,
        space_ids: spaceIds,
        actor_user_id: actor.userId,
      });
    }
    if (!stored.length) return { accepted: 0 };
    // All or nothing: one space the sender may not edit refuses the whole request.
    for (const spaceId of new Set(stored.flatMap((event) => event.space_ids))) {
      await this.requireEditor(actor, spaceId, mapped, events);
    }
    await this.writerOf(InstanceContext.instanceId()).add(stored);
    this.wakeup.signal(null, OPENLINEAGE_TOPIC);
    return { accepted: stored.length };
  }

  private writerOf(instanceId: string): GroupInsert<StoredEventInput> {
    let writer = this.writers.get(instanceId);
    if (!writer) {
      // Runs in the scope of the request that starts a group: one of this instance's.
      writer = new GroupInsert(
        (rows) => this.queries.insertEvents(this.dataSource.manager, rows),
        MAX_BATCH,
        INSERTS_IN_FLIGHT,
      );
      this.writers.set(instanceId, writer);
    }
    return writer;
  }

  private async requireEditor(
    actor: Actor,
    spaceId: string,
    mapped: Map<string, { spaceId: string }[]>,
    events: OlEvent[],
  ): Promise<void> {
    const key = `${InstanceContext.instanceId()}\u0000${actor.userId}\u0000${spaceId}`;
    const grantedAt = this.grants.get(key);
    if (grantedAt !== undefined && Date.now() - grantedAt < GRANT_CACHE_MS) return;
    try {
      await this.access.requireRole(actor, spaceId, 'editor', this.dataSource.manager);
    } catch (error) {
      if (!(error instanceof DomainError) || (error.status !== 403 && error.status !== 404)) throw error;
      const namespace = [...new Set(events.flatMap(namespacesOf))].find((ns) =>
        (mapped.get(ns) ?? []).some((m) => m.spaceId === spaceId),
      );
      throw new Forbidden(
        `Namespace ${namespace} is mapped to a space this API key's user may not edit; no event of the request was stored.`,
        'openlineage_space_forbidden',
      );
    }
    if (this.grants.size > GRANT_CACHE_MAX) this.grants.clear();
    this.grants.set(key, Date.now());
  }
}
