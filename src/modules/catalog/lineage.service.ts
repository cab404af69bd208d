import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict, FieldError, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import {
  CreateLineageEdgeDto,
  LineageEdgeCreatedResponse,
  LineageGraphResponse,
  LineageQuery,
} from './dto/lineage.dto';
import { LineageColumnEdge } from './entities/lineage-column-edge.entity';
import { LineageEdge } from './entities/lineage-edge.entity';
import { Product } from './entities/product.entity';
import { pickMostUpstream } from './lineage-graph';
import { LineageQueries } from './lineage.queries';

@Injectable()
export class LineageService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly audit: AuditService,
    private readonly queries: LineageQueries,
  ) {}

  async addEdge(
    actor: Actor,
    access: SpaceAccess,
    dto: CreateLineageEdgeDto,
  ): Promise<LineageEdgeCreatedResponse> {
    const spaceId = access.space.id;
    const { upstream_id: upstreamId, downstream_id: downstreamId } = dto;
    return this.tx.run(async (em) => {
      // Edge writes of one space are serialised, so two concurrent edges cannot close a cycle together.
      await this.queries.lockSpace(em, spaceId);
      const found = new Set(
        (
          await em.getRepository(Product).find({
            select: { id: true },
            where: { id: In([upstreamId, downstreamId]), spaceId },
          })
        ).map((p) => p.id),
      );
      const errors: FieldError[] = [];
      if (!found.has(upstreamId))
        errors.push({ field: 'upstream_id', message: 'upstream_id must name a product of this space.' });
      if (!found.has(downstreamId)) {
        errors.push({ field: 'downstream_id', message: 'downstream_id must name a product of this space.' });
      }
      if (errors.length) throw new ValidationFailed(errors);
      if (upstreamId === downstreamId) {
        throw new Conflict(
          'A product cannot be its own upstream: that edge would close a cycle.',
          'lineage_cycle',
        );
      }
      const edges = em.getRepository(LineageEdge);
      if (await edges.existsBy({ upstreamId, downstreamId })) {
        throw new Conflict('This lineage edge already exists.', 'lineage_edge_exists');
      }
      if (await this.queries.reaches(em, downstreamId, upstreamId)) {
        throw new Conflict(
          'The edge would close a cycle: the upstream product is already downstream of the downstream product.',
          'lineage_cycle',
        );
      }
      const edge = await edges.save(
        edges.create({ upstreamId, downstreamId, spaceId, createdBy: actor.userId }),
      );
      await this.outbox.append(em, {
        type: 'lineage.changed',
        spaceId,
        actorId: actor.userId,
        data: { space_id: spaceId, action: 'added', upstream_id: upstreamId, downstream_id: downstreamId },
      });
      return {
        upstream_id: edge.upstreamId,
        downstream_id: edge.downstreamId,
        space_id: spaceId,
        created_at: edge.createdAt.toISOString(),
      };
    });
  }

  async removeEdge(
    actor: Actor,
    access: SpaceAccess,
    upstreamId: string,
    downstreamId: string,
  ): Promise<void> {
    const spaceId = access.space.id;
    await this.tx.run(async (em) => {
      const result = await em.getRepository(LineageEdge).delete({ upstreamId, downstreamId, spaceId });
      if (!result.affected) throw new NotFound('lineage edge');
      await this.outbox.append(em, {
        type: 'lineage.changed',
        spaceId,
        actorId: actor.userId,
        data: { space_id: spaceId, action: 'removed', upstream_id: upstreamId, downstream_id: downstreamId },
      });
      await this.audit.record(em, actor, {
        action: 'lineage.edge_deleted',
        resourceType: 'lineage_edge',
        resourceId: `${upstreamId}->${downstreamId}`,
        spaceId,
      });
    });
  }

  async graph(
    _actor: Actor,
    access: SpaceAccess,
    productId: string,
    query: LineageQuery,
  ): Promise<LineageGraphResponse> {
    const em = this.dataSource.manager;
    if (!(await em.getRepository(Product).existsBy({ id: productId, spaceId: access.space.id }))) {
      throw new NotFound('product', productId);
    }
    const direction = query.direction ?? 'both';
    const directions = direction === 'both' ? (['downstream', 'upstream'] as const) : ([direction] as const);
    const graph = await this.queries.graph(em, productId, [...directions], query.depth ?? 3);
    // Nearest first, then by name (plain code-point order: thousands of nodes, no collation cost).
    graph.nodes.sort((a, b) => a.depth - b.depth || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const columns = new Map<string, { downstream_column: string; upstream_column: string }[]>();
    if (graph.edges.length) {
      for (const row of await this.queries.columnEdgesWithin(
        em,
        graph.nodes.map((node) => node.id),
      )) {
        const key = `${row.upstream_id}>${row.downstream_id}`;
        const list = columns.get(key) ?? [];
        list.push({ downstream_column: row.downstream_column, upstream_column: row.upstream_column });
        columns.set(key, list);
      }
    }
    return {
      nodes: graph.nodes,
      edges: graph.edges.map((edge) => ({
        ...edge,
        column_lineage: columns.get(`${edge.upstream_id}>${edge.downstream_id}`) ?? [],
      })),
    };
  }

  // For OpenLineage ingestion, in the caller's transaction.

  /**
   * The lineage recorded among these products, each edge and column edge
   * keyed `upstream>downstream` (column edges `upstream.column>downstream.column`)
   * with the job that last recorded it: what recordJobLineage would change.
   */
  async recordedAmong(
    em: EntityManager,
    productIds: string[],
  ): Promise<Map<string, { namespace: string; name: string } | null>> {
    const known = new Map<string, { namespace: string; name: string } | null>();
    if (!productIds.length) return known;
    for (const edge of await this.queries.edgesWithin(em, productIds)) {
      known.set(`${edge.upstream_id}>${edge.downstream_id}`, edge.job);
    }
    for (const row of await this.queries.columnEdgesWithin(em, productIds)) {
      known.set(
        columnEdgeKey(row.upstream_id, row.upstream_column, row.downstream_id, row.downstream_column),
        row.job_namespace !== null && row.job_name !== null
          ? { namespace: row.job_namespace, name: row.job_name }
          : null,
      );
    }
    return known;
  }

  /**
   * Records the lineage one job run (or job) reports: an edge from each
   * upstream to each downstream product, carrying the job (an existing edge
   * takes the job too), and column lineage. An edge that would close a cycle,
   * a product feeding itself included, is skipped and answered, never thrown:
   * the rest of the run's lineage still counts.
   */
  async recordJobLineage(
    em: EntityManager,
    spaceId: string,
    actorUserId: string | null,
    job: { namespace: string; name: string },
    edges: { upstreamId: string; downstreamId: string }[],
    columns: { upstreamId: string; upstreamColumn: string; downstreamId: string; downstreamColumn: string }[],
  ): Promise<{ skipped: { upstream_id: string; downstream_id: string; reason: 'cycle' }[] }> {
    const skipped: { upstream_id: string; downstream_id: string; reason: 'cycle' }[] = [];
    const wanted = new Map<string, { upstreamId: string; downstreamId: string }>();
    for (const edge of edges) wanted.set(`${edge.upstreamId}>${edge.downstreamId}`, edge);
    if (wanted.size) {
      await this.queries.lockSpace(em, spaceId);
      const repo = em.getRepository(LineageEdge);
      const existing = new Map(
        (
          await repo
            .createQueryBuilder('e')
            .where('e.upstreamId IN (:...ups) AND e.downstreamId IN (:...downs)', {
              ups: [...new Set(edges.map((e) => e.upstreamId))],
              downs: [...new Set(edges.map((e) => e.downstreamId))],
            })
            .getMany()
        ).map((edge) => [`${edge.upstreamId}>${edge.downstreamId}`, edge]),
      );
      for (const [key, { upstreamId, downstreamId }] of wanted) {
        const edge = existing.get(key);
        if (edge) {
          if (edge.jobNamespace !== job.namespace || edge.jobName !== job.name) {
            await repo.update(
              { upstreamId, downstreamId },
              { jobNamespace: job.namespace, jobName: job.name },
            );
          }
          continue;
        }
        if (upstreamId === downstreamId || (await this.queries.reaches(em, downstreamId, upstreamId))) {
          skipped.push({ upstream_id: upstreamId, downstream_id: downstreamId, reason: 'cycle' });
          continue;
        }
        await repo.insert({
          upstreamId,
          downstreamId,
          spaceId,
          createdBy: actorUserId,
          jobNamespace: job.namespace,
          jobName: job.name,
        });
        await this.outbox.append(em, {
          type: 'lineage.changed',
          spaceId,
          actorId: actorUserId,
          data: { space_id: spaceId, action: 'added', upstream_id: upstreamId, downstream_id: downstreamId },
        });
      }
    }
    if (columns.length) {
      await em.getRepository(LineageColumnEdge).upsert(
        columns.map((column) => ({ ...column, spaceId, jobNamespace: job.namespace, jobName: job.name })),
        { conflictPaths: ['downstreamId', 'downstreamColumn', 'upstreamId', 'upstreamColumn'] },
      );
    }
    return { skipped };
  }

  // For other modules (incident correlation, blast radius, notifications).

  /** Direct lineage neighbours of a product, at most `limit` each way (AI explanations). */
  async neighbours(
    productId: string,
    limit: number,
    em: EntityManager,
  ): Promise<{ upstream: { id: string; name: string }[]; downstream: { id: string; name: string }[] }> {
    const rows = await this.queries.neighbours(em, productId, limit);
    const pick = (direction: string) =>
      rows.filter((r) => r.direction === direction).map((r) => ({ id: r.id, name: r.name }));
    return { upstream: pick('upstream'), downstream: pick('downstream') };
  }

  /** Blast radius: every product downstream of `productId`, at any depth (itself excluded). */
  downstreamOf(productId: string, em: EntityManager): Promise<string[]> {
    return this.queries.downstreamIds(em, productId);
  }

  /** The blast radius with names: every product downstream of `productId` (itself excluded), by name. */
  downstreamProducts(productId: string, em: EntityManager): Promise<{ id: string; name: string }[]> {
    return this.queries.downstreamProducts(em, productId);
  }

  /**
   * The product itself and every product linked to it by lineage in either
   * direction (its ancestors and descendants, any depth): what an alert on
   * it correlates with.
   */
  relatedIds(productId: string, em: EntityManager): Promise<string[]> {
    return this.queries.relatedIds(em, productId);
  }

  /** Whether two products are linked by lineage in either direction (any depth), or are the same product. */
  async connected(a: string, b: string, em: EntityManager): Promise<boolean> {
    if (a === b) return true;
    return (await this.queries.reaches(em, a, b)) || (await this.queries.reaches(em, b, a));
  }

  /** The most upstream of these products (see pickMostUpstream); null for none. */
  async mostUpstream(productIds: string[], em: EntityManager): Promise<string | null> {
    const ids = [...new Set(productIds)];
    if (ids.length <= 1) return ids[0] ?? null;
    const pairs = await this.queries.ancestorPairsWithin(em, ids);
    return pickMostUpstream(ids, pairs);
  }
}

/** The key recordedAmong gives a column edge. */
export function columnEdgeKey(
  upstreamId: string,
  upstreamColumn: string,
  downstreamId: string,
  downstreamColumn: string,
) {
  return `${upstreamId}.${upstreamColumn}>${downstreamId}.${downstreamColumn}`;
}
