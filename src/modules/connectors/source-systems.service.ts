import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict, NotFound } from '../../common/errors/domain-error';
import type { Page, PageQuery } from '../../common/http/page.dto';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { CreateSourceSystemDto, SourceSystemResponse } from './dto/connector.dto';
import { Connector } from './entities/connector.entity';
import { SourceSystem } from './entities/source-system.entity';
import { ConnectorsQueries } from './connectors.queries';

function toResponse(system: SourceSystem, connectorCount: number): SourceSystemResponse {
  return {
    id: system.id,
    space_id: system.spaceId,
    name: system.name,
    system_type: system.systemType,
    description: system.description,
    connector_count: connectorCount,
    created_at: system.createdAt.toISOString(),
  };
}

@Injectable()
export class SourceSystemsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly queries: ConnectorsQueries,
  ) {}

  async create(actor: Actor, access: SpaceAccess, dto: CreateSourceSystemDto): Promise<SourceSystemResponse> {
    const spaceId = access.space.id;
    return this.tx.run(async (em) => {
      const taken = await em
        .getRepository(SourceSystem)
        .createQueryBuilder('s')
        .where('s.spaceId = :spaceId AND lower(s.name) = lower(:name)', { spaceId, name: dto.name })
        .getExists();
      if (taken) {
        throw new Conflict(
          `A source system named "${dto.name}" already exists in this space.`,
          'source_system_name_taken',
        );
      }
      const repo = em.getRepository(SourceSystem);
      const system = await repo.save(
        repo.create({
          spaceId,
          name: dto.name,
          systemType: dto.system_type,
          description: dto.description ?? null,
          createdBy: actor.userId,
        }),
      );
      return toResponse(system, 0);
    });
  }

  async list(access: SpaceAccess, page: PageQuery): Promise<Page<SourceSystemResponse>> {
    const [systems, total] = await this.dataSource
      .getRepository(SourceSystem)
      .createQueryBuilder('s')
      .where('s.spaceId = :spaceId', { spaceId: access.space.id })
      .orderBy('lower(s.name)')
      .addOrderBy('s.id')
      .skip(page.skip)
      .take(page.limit)
      .getManyAndCount();
    if (!systems.length) return { items: [], total };
    const counts = await this.queries.connectorCounts(
      this.dataSource.manager,
      systems.map((s) => s.id),
    );
    const byId = new Map(counts.map((c) => [c.id, c.n]));
    return { items: systems.map((s) => toResponse(s, byId.get(s.id) ?? 0)), total };
  }

  /** Unlinks the system's connectors, then deletes it, in one transaction. Answers how many were unlinked. */
  async delete(_actor: Actor, access: SpaceAccess, id: string): Promise<number> {
    return this.tx.run(async (em) => {
      const system = await em
        .getRepository(SourceSystem)
        .findOne({ where: { id, spaceId: access.space.id }, lock: { mode: 'pessimistic_write' } });
      if (!system) throw new NotFound('source system', id);
      const unlinked = await em
        .getRepository(Connector)
        .update({ sourceSystemId: id }, { sourceSystemId: null });
      await em.getRepository(SourceSystem).delete(id);
      return unlinked.affected ?? 0;
    });
  }
}
