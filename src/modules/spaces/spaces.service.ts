import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict, ValidationFailed } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import type { SpaceAccess, SpaceRoleName } from '../../common/permissions/space-access.port';
import { jsonValue } from '../../database/json-column';
import { RequestTransactions } from '../../database/request-transaction';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import {
  CreateSpaceDto,
  ListSpacesQuery,
  UpdateSpaceDto,
  UpdateSpaceFeaturesDto,
} from './dto/space-requests.dto';
import { SpaceResponse } from './dto/space-responses.dto';
import { SpaceMembership } from './entities/space-membership.entity';
import { Space } from './entities/space.entity';
import { firstFreeSlug, isUuid, slugify } from './slug';
import { featuresWithDefaults, SPACE_FEATURES } from './space-features';
import { SpaceNotFound } from './spaces.errors';
import { toSpaceResponse } from './spaces.mapper';
import { SpacesQueries } from './spaces.queries';

/** The derived slug itself, then up to three searches for a free suffix. */
const DERIVE_ATTEMPTS = 4;

@Injectable()
export class SpacesService {
  constructor(
    @InjectRepository(Space) private readonly spaces: Repository<Space>,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly audit: AuditService,
    private readonly queries: SpacesQueries,
  ) {}

  async create(actor: Actor, dto: CreateSpaceDto): Promise<SpaceResponse> {
    if (dto.slug && isUuid(dto.slug)) {
      throw ValidationFailed.field('slug', 'slug must not be shaped like a UUID.');
    }
    const em = this.spaces.manager;
    // A derived slug is tried as it is first (the insert says whether it is free), then with the first
    // free suffix, which can lose a race too; then the next one.
    for (let attempt = 1; ; attempt++) {
      const slug =
        dto.slug ?? (attempt === 1 ? slugify(dto.name) : await this.freeSlug(em, slugify(dto.name)));
      const space = await this.insert(em, actor, dto, slug);
      if (space) return space;
      if (dto.slug) throw new Conflict(`The slug "${slug}" is taken.`, 'slug_taken');
      if (attempt >= DERIVE_ATTEMPTS)
        throw new Conflict(`No free slug was found for "${dto.name}".`, 'slug_taken');
    }
  }

  /** One statement: the space, the creator as its first admin, and space.created. Null when the slug is taken. */
  private async insert(
    em: EntityManager,
    actor: Actor,
    dto: CreateSpaceDto,
    slug: string,
  ): Promise<SpaceResponse | null> {
    const id = randomUUID();
    // A pending Idempotency-Key claim goes into the same statement (no commit of its own); the first attempt takes it.
    const claim = RequestTransactions.inline(actor, 7);
    const { row, claimed } = await this.queries.insertSpace(
      { id, name: dto.name, slug, description: dto.description ?? null, createdBy: actor.userId },
      this.outbox.row({
        type: 'space.created',
        spaceId: id,
        actorId: actor.userId,
        data: { space_id: id, name: dto.name, slug },
      }),
      claim,
    );
    await claim?.settle(claimed);
    if (!row) return null;
    this.outbox.written(em);
    return toSpaceResponse(
      {
        id: row.id,
        name: row.name,
        slug: row.slug,
        description: row.description,
        features: row.features,
        createdBy: row.created_by,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      },
      'admin',
    );
  }

  // Long bases are shortened to fit a suffix, so candidates are looked up by a shorter prefix.
  private async freeSlug(em: EntityManager, base: string): Promise<string> {
    const slugs = await this.queries.slugsLike(
      em,
      base,
      `${base.slice(0, 50).replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    );
    return firstFreeSlug(base, new Set(slugs));
  }

  async list(actor: Actor, query: ListSpacesQuery): Promise<Page<SpaceResponse>> {
    const qb = this.spaces
      .createQueryBuilder('s')
      .leftJoin(SpaceMembership, 'm', 'm.space_id = s.id AND m.user_id = :userId', { userId: actor.userId })
      .addSelect('m.role', 'member_role');
    // Superadmins see every space; others the spaces they belong to.
    if (!actor.isSuperadmin) qb.where('m.user_id IS NOT NULL');
    const total = await qb.getCount();
    const { entities, raw } = await qb
      .orderBy('s.name', 'ASC')
      .addOrderBy('s.id', 'ASC')
      .offset(query.skip ?? 0)
      .limit(query.limit ?? 50)
      .getRawAndEntities<{ member_role: SpaceRoleName | null }>();
    return {
      items: entities.map((space, i) => toSpaceResponse(space, raw[i]?.member_role ?? null)),
      total,
    };
  }

  async get(_actor: Actor, access: SpaceAccess): Promise<SpaceResponse> {
    const space = await this.spaces.findOneBy({ id: access.space.id });
    if (!space) throw new SpaceNotFound(access.space.slug);
    return toSpaceResponse(space, access.role);
  }

  async update(actor: Actor, access: SpaceAccess, dto: UpdateSpaceDto): Promise<SpaceResponse> {
    return this.tx.run(async (em) => {
      const space = await this.lock(em, access);
      const changed: string[] = [];
      if (dto.name !== undefined && dto.name !== space.name) {
        space.name = dto.name;
        changed.push('name');
      }
      if (dto.description !== undefined && dto.description !== space.description) {
        space.description = dto.description;
        changed.push('description');
      }
      if (changed.length) {
        await em.save(space);
        await this.outbox.append(em, {
          type: 'space.updated',
          spaceId: space.id,
          actorId: actor.userId,
          data: { space_id: space.id, changed },
        });
      }
      return toSpaceResponse(space, access.role);
    });
  }

  async updateFeatures(
    actor: Actor,
    access: SpaceAccess,
    dto: UpdateSpaceFeaturesDto,
  ): Promise<SpaceResponse> {
    return this.tx.run(async (em) => {
      const space = await this.lock(em, access);
      const before = featuresWithDefaults(space.features);
      const stored = { ...(space.features ?? {}) };
      for (const name of Object.keys(SPACE_FEATURES) as (keyof UpdateSpaceFeaturesDto)[]) {
        if (typeof dto[name] === 'boolean') stored[name] = dto[name];
      }
      const after = featuresWithDefaults(stored);
      const changed = Object.keys(after).filter((name) => after[name] !== before[name]);
      if (changed.length) {
        await em.getRepository(Space).update(space.id, { features: jsonValue(stored) });
        space.features = stored;
        space.updatedAt = new Date();
        await this.outbox.append(em, {
          type: 'space.features_changed',
          spaceId: space.id,
          actorId: actor.userId,
          data: { space_id: space.id, features: after, changed },
        });
      }
      return toSpaceResponse(space, access.role);
    });
  }

  /** Spaces by slug or id (every space when neither is given), for provisioning and the permissions export. */
  async summaries(
    em: EntityManager,
    where: { slugs?: string[]; ids?: string[] } = {},
  ): Promise<{ id: string; slug: string; name: string; features: Record<string, boolean> }[]> {
    const qb = em.getRepository(Space).createQueryBuilder('s').orderBy('s.slug', 'ASC');
    if (where.slugs) qb.andWhere('s.slug = ANY(:slugs)', { slugs: where.slugs });
    if (where.ids) qb.andWhere('s.id = ANY(:ids)', { ids: where.ids });
    const spaces = await qb.getMany();
    return spaces.map((s) => ({
      id: s.id,
      slug: s.slug,
      name: s.name,
      features: featuresWithDefaults(s.features),
    }));
  }

  /** DELETE /spaces/{slug} (superadmin): everything in the space goes with it. */
  async delete(actor: Actor, slug: string): Promise<void> {
    await this.tx.run(async (em) => {
      const space = await em
        .getRepository(Space)
        .findOne({ where: { slug }, lock: { mode: 'pessimistic_write' } });
      if (!space) throw new SpaceNotFound(slug);
      await em.getRepository(Space).delete(space.id);
      await this.outbox.append(em, {
        type: 'space.deleted',
        spaceId: space.id,
        actorId: actor.userId,
        data: { space_id: space.id, name: space.name, slug: space.slug },
      });
      await this.audit.record(em, actor, {
        action: 'space.deleted',
        resourceType: 'space',
        resourceId: space.id,
        spaceId: space.id,
        details: { name: space.name, slug: space.slug },
      });
    });
  }

  private async lock(em: EntityManager, access: SpaceAccess): Promise<Space> {
    const space = await em
      .getRepository(Space)
      .findOne({ where: { id: access.space.id }, lock: { mode: 'pessimistic_write' } });
    if (!space) throw new SpaceNotFound(access.space.slug);
    return space;
  }
}
