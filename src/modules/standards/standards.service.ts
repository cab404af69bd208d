import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { InvalidTransition, NotFound } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import { roleAtLeast, SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import type { DomainEventType } from '../../platform/outbox/event-map';
import { OutboxService } from '../../platform/outbox/outbox.service';
import {
  CreateStandardPageDto,
  ListStandardPagesQuery,
  StandardPageResponse,
  UpdateStandardPageDto,
} from './dto/standard-page.dto';
import { StandardPage, StandardPageStatus } from './entities/standard-page.entity';
import { standardPageEventData, toStandardPageResponse } from './standards.mapper';

type StandardPageEvent = Extract<DomainEventType, `standard_page.${string}`>;

/** Standards pages of a space: editors write and see drafts; every member reads published pages. */
@Injectable()
export class StandardsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly audit: AuditService,
  ) {}

  async create(actor: Actor, access: SpaceAccess, dto: CreateStandardPageDto): Promise<StandardPageResponse> {
    return this.tx.run(async (em) => {
      const repo = em.getRepository(StandardPage);
      const status = dto.status ?? 'draft';
      const page = await repo.save(
        repo.create({
          spaceId: access.space.id,
          title: dto.title,
          body: dto.body ?? '',
          status,
          publishedAt: status === 'published' ? new Date() : null,
          createdBy: actor.userId,
          updatedBy: actor.userId,
        }),
      );
      await this.publish(em, actor, 'standard_page.created', page);
      return toStandardPageResponse(page, access.space.slug);
    });
  }

  async list(access: SpaceAccess, query: ListStandardPagesQuery): Promise<Page<StandardPageResponse>> {
    const qb = this.dataSource
      .getRepository(StandardPage)
      .createQueryBuilder('p')
      .where('p.spaceId = :spaceId', { spaceId: access.space.id });
    // A viewer asking for drafts sees none rather than an error: drafts do not exist for them.
    if (query.status === 'draft' && !this.canSeeDrafts(access)) return { items: [], total: 0 };
    const status = this.canSeeDrafts(access) ? query.status : 'published';
    if (status) qb.andWhere('p.status = :status', { status });
    const [pages, total] = await qb
      .orderBy('p.updatedAt', 'DESC')
      .addOrderBy('p.id', 'DESC')
      .skip(query.skip ?? 0)
      .take(query.limit ?? 50)
      .getManyAndCount();
    return { items: pages.map((p) => toStandardPageResponse(p, access.space.slug)), total };
  }

  async get(access: SpaceAccess, id: string): Promise<StandardPageResponse> {
    const page = await this.dataSource
      .getRepository(StandardPage)
      .findOneBy({ id, spaceId: access.space.id });
    if (!page || !this.visible(access, page)) throw new NotFound('standards page', id);
    return toStandardPageResponse(page, access.space.slug);
  }

  async update(
    actor: Actor,
    access: SpaceAccess,
    id: string,
    dto: UpdateStandardPageDto,
  ): Promise<StandardPageResponse> {
    return this.tx.run(async (em) => {
      const page = await this.lock(em, access, id);
      const changed: string[] = [];
      if (dto.title !== undefined && dto.title !== page.title) {
        page.title = dto.title;
        changed.push('title');
      }
      if (dto.body !== undefined && dto.body !== page.body) {
        page.body = dto.body;
        changed.push('body');
      }
      const statusMove = dto.status !== undefined && dto.status !== page.status ? dto.status : null;
      if (!changed.length && !statusMove) return toStandardPageResponse(page, access.space.slug);
      if (statusMove) this.setStatus(page, statusMove);
      page.updatedBy = actor.userId;
      page.updatedAt = new Date();
      await em.getRepository(StandardPage).save(page);
      if (changed.length) await this.publish(em, actor, 'standard_page.updated', page, changed);
      if (statusMove) {
        const type = statusMove === 'published' ? 'standard_page.published' : 'standard_page.unpublished';
        await this.publish(em, actor, type, page);
      }
      return toStandardPageResponse(page, access.space.slug);
    });
  }

  async delete(actor: Actor, access: SpaceAccess, id: string): Promise<void> {
    await this.tx.run(async (em) => {
      const page = await this.lock(em, access, id);
      await em.getRepository(StandardPage).delete(page.id);
      await this.publish(em, actor, 'standard_page.deleted', page);
    });
  }

  async publishPage(actor: Actor, access: SpaceAccess, id: string): Promise<StandardPageResponse> {
    return this.move(actor, access, id, 'published');
  }

  async unpublishPage(actor: Actor, access: SpaceAccess, id: string): Promise<StandardPageResponse> {
    return this.move(actor, access, id, 'draft');
  }

  private async move(
    actor: Actor,
    access: SpaceAccess,
    id: string,
    target: StandardPageStatus,
  ): Promise<StandardPageResponse> {
    return this.tx.run(async (em) => {
      const page = await this.lock(em, access, id);
      if (page.status === target) {
        throw new InvalidTransition(
          target === 'published'
            ? 'The standards page is already published.'
            : 'The standards page is a draft already: only a published page can be unpublished.',
        );
      }
      this.setStatus(page, target);
      page.updatedBy = actor.userId;
      page.updatedAt = new Date();
      await em.getRepository(StandardPage).save(page);
      await this.publish(
        em,
        actor,
        target === 'published' ? 'standard_page.published' : 'standard_page.unpublished',
        page,
      );
      return toStandardPageResponse(page, access.space.slug);
    });
  }

  private setStatus(page: StandardPage, status: StandardPageStatus): void {
    page.status = status;
    page.publishedAt = status === 'published' ? new Date() : null;
  }

  private canSeeDrafts(access: SpaceAccess): boolean {
    return roleAtLeast(access.effectiveRole, 'editor');
  }

  private visible(access: SpaceAccess, page: StandardPage): boolean {
    return page.status === 'published' || this.canSeeDrafts(access);
  }

  private async lock(em: EntityManager, access: SpaceAccess, id: string): Promise<StandardPage> {
    const page = await em
      .getRepository(StandardPage)
      .findOne({ where: { id, spaceId: access.space.id }, lock: { mode: 'pessimistic_write' } });
    if (!page) throw new NotFound('standards page', id);
    return page;
  }

  private async publish(
    em: EntityManager,
    actor: Actor,
    type: StandardPageEvent,
    page: StandardPage,
    changed: string[] = [],
  ): Promise<void> {
    const data = standardPageEventData(page);
    const event = { spaceId: page.spaceId, actorId: actor.userId };
    if (type === 'standard_page.updated') {
      await this.outbox.append(em, { ...event, type, data: { ...data, changed } });
    } else {
      await this.outbox.append(em, { ...event, type, data });
    }
    await this.audit.record(em, actor, {
      action: type,
      resourceType: 'standard_page',
      resourceId: page.id,
      spaceId: page.spaceId,
      details: type === 'standard_page.updated' ? { title: page.title, changed } : { title: page.title },
    });
  }
}
