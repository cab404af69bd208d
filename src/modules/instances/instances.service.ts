import { sentFields } from '../../common/validation/sent-fields';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import { isUuid } from '../../common/validation/field.decorators';
import { InstanceDatabases, InstanceUnavailable } from '../../database/instance-databases.registry';
import { DEFAULT_INSTANCE_ID, DEFAULT_INSTANCE_SLUG } from '../../database/instance-ids';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { UserDirectoryService } from '../users/user-directory.service';
import {
  AvailableInstanceResponse,
  CreateInstanceDto,
  InstanceMemberResponse,
  InstanceResponse,
  UpdateInstanceDto,
} from './dto/instance.dto';
import { InstancesQueries } from './instances.queries';
import { InstanceMembership } from './entities/instance-membership.entity';
import { InstanceUserCopies } from '../../platform/instance-scope/instance-user-copies.service';
import { Instance } from './entities/instance.entity';
import {
  DefaultInstanceImmutable,
  InstanceHoldsSpaces,
  InstanceMembershipRequired,
  SlugTaken,
} from './instances.errors';
import { toAvailableInstanceResponse, toInstanceResponse } from './instances.mapper';

const urlContext = (instanceId: string) => `instance:${instanceId}:database_url`;

/** Who is signing in or switching: enough to decide which instances they reach. */
export interface InstanceCaller {
  userId: string;
  isSuperadmin: boolean;
}

/** The instance registry and its memberships (control plane, docs/decisions.md#instances). */
@Injectable()
export class InstancesService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger(InstancesService.name);

  constructor(
    @InjectRepository(Instance) private readonly instances: Repository<Instance>,
    @InjectRepository(InstanceMembership) private readonly memberships: Repository<InstanceMembership>,
    private readonly tx: TransactionRunner,
    private readonly databases: InstanceDatabases,
    private readonly box: SecretBox,
    private readonly audit: AuditService,
    private readonly users: UserDirectoryService,
    private readonly copies: InstanceUserCopies,
    private readonly queries: InstancesQueries,
  ) {}

  onModuleInit(): void {
    this.databases.setRegistry({
      databaseUrl: (id) => this.databaseUrlOf(id),
    });
  }

  /**
   * Every instance's pool is opened at start, which brings its database to
   * the current schema (background work then runs there too). An unreachable
   * one is logged and answers 503; its first successful open later (a
   * request or background work) migrates it. It does not stop the start.
   */
  async onApplicationBootstrap(): Promise<void> {
    const others = await this.instances
      .createQueryBuilder('i')
      .where('i.id <> :defaultId', { defaultId: DEFAULT_INSTANCE_ID })
      .getMany();
    for (const instance of others) await this.databases.warm(instance.id);
  }

  async list(skip: number, limit: number): Promise<Page<InstanceResponse>> {
    const [items, total] = await this.withUrl(this.instances.createQueryBuilder('i'))
      .orderBy('i.createdAt', 'ASC')
      .addOrderBy('i.id', 'ASC')
      .skip(skip)
      .take(limit)
      .getManyAndCount();
    return { items: items.map((i) => this.toResponse(i)), total };
  }

  async get(id: string): Promise<InstanceResponse> {
    return this.toResponse(await this.require(this.instances.manager, id));
  }

  async create(actor: Actor, dto: CreateInstanceDto): Promise<InstanceResponse> {
    refuseUuidSlug(dto.slug);
    await this.refuseTakenSlug(this.instances.manager, dto.slug, null);
    // Migrated before anything is stored: an instance never exists without its schema.
    await this.migrateOrRefuse(dto.database_url);
    const saved = await this.tx.run(async (em) => {
      await this.refuseTakenSlug(em, dto.slug, null);
      const created = em.getRepository(Instance).create({ slug: dto.slug, name: dto.name });
      const { id } = await em.getRepository(Instance).save({ ...created, databaseUrlSealed: null });
      await em
        .getRepository(Instance)
        .update(id, { databaseUrlSealed: this.box.seal(dto.database_url, urlContext(id)) });
      await this.audit.record(em, actor, {
        action: 'instance.created',
        resourceType: 'instance',
        resourceId: id,
        details: { slug: dto.slug, name: dto.name },
      });
      return this.require(em, id);
    });
    // Open now, so background work (schedules, outbox) reaches it before any request does.
    await this.databases.warm(saved.id);
    return this.toResponse(saved);
  }

  async update(actor: Actor, id: string, dto: UpdateInstanceDto): Promise<InstanceResponse> {
    const isDefault = id === DEFAULT_INSTANCE_ID;
    if (isDefault && dto.slug !== undefined && dto.slug !== DEFAULT_INSTANCE_SLUG) {
      throw new DefaultInstanceImmutable('The slug of the default instance cannot change.');
    }
    if (isDefault && dto.database_url !== undefined) {
      throw new DefaultInstanceImmutable('The default instance always uses the deployment database.');
    }
    if (dto.slug !== undefined) refuseUuidSlug(dto.slug);
    await this.require(this.instances.manager, id);
    if (dto.database_url !== undefined) await this.migrateOrRefuse(dto.database_url);
    const updated = await this.tx.run(async (em) => {
      const instance = await this.require(em, id, true);
      if (dto.slug !== undefined && dto.slug !== instance.slug) {
        await this.refuseTakenSlug(em, dto.slug, id);
        instance.slug = dto.slug;
      }
      if (dto.name !== undefined) instance.name = dto.name;
      if (dto.database_url !== undefined) {
        instance.databaseUrlSealed = this.box.seal(dto.database_url, urlContext(id));
      }
      await em.getRepository(Instance).save(instance);
      await this.audit.record(em, actor, {
        action: 'instance.updated',
        resourceType: 'instance',
        resourceId: id,
        // Which fields changed, never the URL itself.
        details: { fields: sentFields(dto) },
      });
      return instance;
    });
    if (dto.database_url !== undefined) {
      await this.databases.forget(id);
      await this.databases.warm(id);
    }
    return this.toResponse(updated);
  }

  /**
   * Refused while the instance database holds spaces unless `force`; the
   * database itself is left untouched. Its memberships, sessions and API keys
   * go with it.
   */
  async delete(actor: Actor, id: string, force: boolean): Promise<void> {
    if (id === DEFAULT_INSTANCE_ID) {
      throw new DefaultInstanceImmutable('The default instance cannot be deleted.');
    }
    await this.require(this.instances.manager, id);
    if (!force) {
      const spaces = await this.countSpaces(id);
      if (spaces > 0) throw new InstanceHoldsSpaces(spaces);
    }
    await this.tx.run(async (em) => {
      await this.require(em, id, true);
      await em.getRepository(Instance).delete(id);
      await this.audit.record(em, actor, {
        action: 'instance.deleted',
        resourceType: 'instance',
        resourceId: id,
        details: { force },
      });
    });
    await this.databases.forget(id);
  }

  async putMember(actor: Actor, id: string, userId: string): Promise<InstanceMemberResponse> {
    const member = await this.tx.run(async (em) => {
      await this.require(em, id);
      const user = await this.users.findById(em, userId);
      if (!user) throw new NotFound('user', userId);
      // Every user belongs to `default`: nothing to store.
      if (id === DEFAULT_INSTANCE_ID) {
        return { instance_id: id, user_id: userId, created_at: user.createdAt.toISOString() };
      }
      await em
        .getRepository(InstanceMembership)
        .createQueryBuilder()
        .insert()
        .values({ instanceId: id, userId })
        .orIgnore()
        .execute();
      const membership = await em
        .getRepository(InstanceMembership)
        .findOneByOrFail({ instanceId: id, userId });
      await this.audit.record(em, actor, {
        action: 'instance.member_added',
        resourceType: 'instance',
        resourceId: id,
        details: { user_id: userId },
      });
      return { instance_id: id, user_id: userId, created_at: membership.createdAt.toISOString() };
    });
    if (id !== DEFAULT_INSTANCE_ID) {
      // So that space admins there can add them at once; failing that, their first sign-in copies them.
      await this.copies.copy(id, userId).catch(() => undefined);
    }
    return member;
  }

  /** Removing a non-member changes nothing and still answers 204. */
  async deleteMember(actor: Actor, id: string, userId: string): Promise<void> {
    if (id === DEFAULT_INSTANCE_ID) {
      throw new DefaultInstanceImmutable('Every user belongs to the default instance.');
    }
    await this.tx.run(async (em) => {
      await this.require(em, id);
      const result = await em.getRepository(InstanceMembership).delete({ instanceId: id, userId });
      if (!result.affected) return;
      await this.audit.record(em, actor, {
        action: 'instance.member_removed',
        resourceType: 'instance',
        resourceId: id,
        details: { user_id: userId },
      });
    });
  }

  /**
   * The instance a sign-in or a switch asks for, by slug or id (`default`
   * when none): 404 when it does not exist, 403 when the caller is not a
   * member (superadmins reach every instance).
   */
  async resolveFor(caller: InstanceCaller, ref: string | undefined): Promise<Instance> {
    const key = ref?.trim() || DEFAULT_INSTANCE_SLUG;
    const instance = await this.instances.findOneBy(isUuid(key) ? { id: key.toLowerCase() } : { slug: key });
    if (!instance) throw new NotFound('instance', key);
    if (!(await this.canReach(caller, instance.id, this.memberships.manager)))
      throw new InstanceMembershipRequired(instance.slug);
    // The instance database gets (or refreshes) its copy of the account; 503 when it is down.
    if (instance.id !== DEFAULT_INSTANCE_ID) {
      await this.copies.copy(instance.id, caller.userId).catch((error: unknown) => {
        throw this.databases.unavailable(instance.id, error) ?? error;
      });
    }
    return instance;
  }

  async canReach(caller: InstanceCaller, instanceId: string, em: EntityManager): Promise<boolean> {
    if (instanceId === DEFAULT_INSTANCE_ID || caller.isSuperadmin) return true;
    return em.getRepository(InstanceMembership).existsBy({
      instanceId,
      userId: caller.userId,
    });
  }

  /** The instances the caller reaches, oldest first (`default` first of all). */
  async listFor(
    actor: Actor,
    currentId: string,
    skip: number,
    limit: number,
  ): Promise<Page<AvailableInstanceResponse>> {
    const qb = this.instances.createQueryBuilder('i');
    if (!actor.isSuperadmin) {
      qb.where(
        `i.id = :defaultId OR EXISTS (SELECT 1 FROM instance_memberships m WHERE m.instance_id = i.id AND m.user_id = :userId)`,
        { defaultId: DEFAULT_INSTANCE_ID, userId: actor.userId },
      );
    }
    const [items, total] = await qb
      .orderBy(`i.id = '${DEFAULT_INSTANCE_ID}'`, 'DESC')
      .addOrderBy('i.createdAt', 'ASC')
      .addOrderBy('i.id', 'ASC')
      .skip(skip)
      .take(limit)
      .getManyAndCount();
    return {
      items: items.map((i) => toAvailableInstanceResponse(i, this.databases.health(i.id), currentId)),
      total,
    };
  }

  private async countSpaces(id: string): Promise<number> {
    const dataSource = await this.databases.dataSource(id);
    try {
      return await this.queries.countSpaces(dataSource.manager);
    } catch (error) {
      throw this.databases.unavailable(id, error) ?? error;
    }
  }

  private async migrateOrRefuse(url: string): Promise<void> {
    try {
      await this.databases.migrate(url);
    } catch {
      // The URL (and any password in it) stays out of the answer and the logs.
      throw new InstanceUnavailable('being configured');
    }
  }

  private async databaseUrlOf(id: string): Promise<string | null> {
    const instance = await this.withUrl(this.instances.createQueryBuilder('i'))
      .where('i.id = :id', { id })
      .getOne();
    if (!instance?.databaseUrlSealed) return null;
    try {
      return this.box.open(instance.databaseUrlSealed, urlContext(id));
    } catch {
      // Sealed with another ENCRYPTION_KEY: the instance answers 503 until its URL is set again.
      this.logger.error(
        `Instance ${instance.slug}: its database URL cannot be unsealed with this ENCRYPTION_KEY`,
      );
      return null;
    }
  }

  private withUrl(qb: ReturnType<Repository<Instance>['createQueryBuilder']>) {
    return qb.addSelect('i.databaseUrlSealed');
  }

  private async require(em: EntityManager, id: string, lock = false): Promise<Instance> {
    const qb = this.withUrl(em.getRepository(Instance).createQueryBuilder('i')).where('i.id = :id', { id });
    if (lock) qb.setLock('pessimistic_write');
    const instance = await qb.getOne();
    if (!instance) throw new NotFound('instance', id);
    return instance;
  }

  private async refuseTakenSlug(em: EntityManager, slug: string, exceptId: string | null): Promise<void> {
    const other = await em.getRepository(Instance).findOneBy({ slug });
    if (other && other.id !== exceptId) throw new SlugTaken(slug);
  }

  private toResponse(instance: Instance): InstanceResponse {
    return toInstanceResponse(instance, this.databases.health(instance.id));
  }
}

function refuseUuidSlug(slug: string): void {
  if (isUuid(slug)) {
    throw ValidationFailed.field(
      'slug',
      'slug must not be shaped like a UUID (instances are named by slug or id)',
    );
  }
}
