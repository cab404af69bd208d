import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { PrefetchedSpace, SpaceAccessPort, SpaceAccessRow } from '../../common/permissions/space-access.port';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import { API_KEY_PATTERN, API_KEY_PREFIX } from '../../common/auth/auth-strategies';
import { LruCache } from '../../common/cache/lru-cache';
import { Forbidden, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import type { RateLimitTier } from '../../config/app.config';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { randomToken, tokenHash } from '../../platform/crypto/tokens';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { ApiKeysQueries } from './api-keys.queries';
import { toApiKeyResponse } from './api-keys.mapper';
import { CreateApiKeyDto, ListApiKeysQuery, UpdateApiKeyDto } from './dto/api-key-requests.dto';
import { ApiKeyResponse, CreatedApiKeyResponse } from './dto/api-key-responses.dto';
import { ApiKey } from './entities/api-key.entity';

/** `vk_` and the first 8 random characters: enough to tell keys apart, far too little to guess one. */
const PREFIX_LENGTH = API_KEY_PREFIX.length + 8;
const LAST_USED_RESOLUTION_SECONDS = 60;
const API_KEY_SECRET = new RegExp(`^${API_KEY_PATTERN}$`);
/** How many keys' instances a process remembers (a key never moves to another instance). */
const KEY_INSTANCES_REMEMBERED = 10_000;

interface KeyActorRow {
  id: string;
  user_id: string;
  instance_id: string;
  rate_limit_tier: RateLimitTier;
  last_used_at: Date | null;
  email: string;
  is_superadmin: boolean;
  space?: SpaceAccessRow | null;
}

/** The key's creator, and the `{slug}` space when one was asked for. */
export interface ResolvedApiKey {
  actor: Actor;
  space?: PrefetchedSpace;
}

/** Only a superadmin may give a key more than the standard tier (docs/decisions.md#api-key-tiers). */
function requireTierAllowed(actor: Actor, tier: RateLimitTier, current: RateLimitTier | null): void {
  if (tier === 'standard' || tier === current || actor.isSuperadmin) return;
  throw new Forbidden(
    `Only a superadmin may give a key the ${tier} tier; keys of other users are standard.`,
    'rate_limit_tier_forbidden',
  );
}

@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger(ApiKeysService.name);

  // Instance ids by key hash.
  private readonly keyInstances = new LruCache<string>({ capacity: KEY_INSTANCES_REMEMBERED });

  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditService,
    private readonly outbox: OutboxService,
    private readonly spaces: SpaceAccessPort,
    private readonly prepared: PreparedQueries,
    private readonly queries: ApiKeysQueries,
  ) {}

  async list(actor: Actor, query: ListApiKeysQuery): Promise<Page<ApiKeyResponse>> {
    const qb = this.keys
      .createQueryBuilder('k')
      .where('k.userId = :userId', { userId: actor.userId })
      .orderBy('k.createdAt', 'DESC')
      .addOrderBy('k.id', 'ASC')
      .skip(query.skip)
      .take(query.limit);
    if (!query.include_revoked) qb.andWhere('k.revokedAt IS NULL');
    const [keys, total] = await qb.getManyAndCount();
    return { items: keys.map(toApiKeyResponse), total };
  }

  async create(actor: Actor, dto: CreateApiKeyDto): Promise<CreatedApiKeyResponse> {
    const tier = dto.rate_limit_tier ?? 'standard';
    requireTierAllowed(actor, tier, null);
    if (dto.expires_at && dto.expires_at.getTime() <= Date.now()) {
      throw ValidationFailed.field('expires_at', 'expires_at must be in the future.');
    }
    const secret = randomToken(API_KEY_PREFIX);
    const key = await this.tx.run(async (em) => {
      const saved = await em.getRepository(ApiKey).save({
        userId: actor.userId,
        instanceId: actor.instanceId,
        name: dto.name,
        prefix: secret.slice(0, PREFIX_LENGTH),
        keyHash: tokenHash(secret),
        rateLimitTier: tier,
        lastUsedAt: null,
        expiresAt: dto.expires_at ?? null,
        revokedAt: null,
        revokedReason: null,
      });
      await this.audit.record(em, actor, {
        action: 'api_key.created',
        resourceType: 'api_key',
        resourceId: saved.id,
        details: {
          name: saved.name,
          instance_id: actor.instanceId,
          rate_limit_tier: tier,
          expires_at: saved.expiresAt?.toISOString() ?? null,
        },
      });
      await this.outbox.append(em, {
        type: 'api_key.created',
        actorId: actor.userId,
        data: { api_key_id: saved.id, user_id: actor.userId, name: saved.name, rate_limit_tier: tier },
      });
      return em.getRepository(ApiKey).findOneByOrFail({ id: saved.id });
    });
    return { ...toApiKeyResponse(key), key: secret };
  }

  async update(actor: Actor, keyId: string, dto: UpdateApiKeyDto): Promise<ApiKeyResponse> {
    return this.tx.run(async (em) => {
      const key = await this.requireOwnKey(em, actor, keyId);
      const previousTier = key.rateLimitTier;
      if (dto.rate_limit_tier !== undefined) {
        requireTierAllowed(actor, dto.rate_limit_tier, previousTier);
        key.rateLimitTier = dto.rate_limit_tier;
      }
      if (dto.name !== undefined) key.name = dto.name;
      await em.getRepository(ApiKey).save(key);
      if (key.rateLimitTier !== previousTier) {
        await this.audit.record(em, actor, {
          action: 'api_key.tier_changed',
          resourceType: 'api_key',
          resourceId: key.id,
          details: { from: previousTier, to: key.rateLimitTier },
        });
      }
      return toApiKeyResponse(key);
    });
  }

  /** Revoking a revoked key changes nothing and still answers 204. */
  async revoke(actor: Actor, keyId: string): Promise<void> {
    await this.tx.run(async (em) => {
      const key = await this.requireOwnKey(em, actor, keyId);
      if (key.revokedAt) return;
      await em.getRepository(ApiKey).update(key.id, { revokedAt: () => 'now()', revokedReason: 'revoked' });
      await this.audit.record(em, actor, {
        action: 'api_key.revoked',
        resourceType: 'api_key',
        resourceId: key.id,
      });
      await this.outbox.append(em, {
        type: 'api_key.revoked',
        actorId: actor.userId,
        data: { api_key_id: key.id, user_id: key.userId, reason: 'revoked' },
      });
    });
  }

  /** Revokes every live key of a user in the caller's transaction (account deactivation). */
  async revokeAllOf(em: EntityManager, userId: string, reason: string): Promise<void> {
    const result = await em
      .getRepository(ApiKey)
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'now()', revokedReason: reason })
      .where('user_id = :userId AND revoked_at IS NULL', { userId })
      .returning(['id'])
      .execute();
    for (const { id } of result.raw as Array<{ id: string }>) {
      await this.outbox.append(em, {
        type: 'api_key.revoked',
        actorId: userId,
        data: { api_key_id: id, user_id: userId, reason },
      });
    }
  }

  /**
   * The hot path of every request with an API key: one lookup by the
   * key's hash (a unique index) joined with its user, which must be
   * active. `last_used_at` is written at most once a minute per key.
   */
  async resolveActor(secret: string, spaceKey?: string): Promise<ResolvedApiKey | null> {
    // A `{slug}` route: the space and the creator's role come along in the same round trip.
    const space =
      spaceKey !== undefined
        ? { sql: this.spaces.prefetchSql(spaceKey, '$2', 'k.user_id'), key: spaceKey }
        : undefined;
    const [row] = await this.queries.liveKey<KeyActorRow>(this.prepared, tokenHash(secret), space);
    if (!row) return null;
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_SECONDS * 1000) {
      await this.touch(row.id);
    }
    const actor: Actor = {
      userId: row.user_id,
      email: row.email,
      isSuperadmin: row.is_superadmin,
      sessionId: null,
      apiKeyId: row.id,
      apiKeyTier: row.rate_limit_tier,
      impersonatorId: null,
      instanceId: row.instance_id,
    };
    // The space came from the deployment database: right only for a key of `default`.
    return spaceKey === undefined || row.instance_id !== DEFAULT_INSTANCE_ID
      ? { actor }
      : { actor, space: { key: spaceKey, row: row.space ?? null } };
  }

  /**
   * The instance of a key, null for what is no key of ours; read before
   * authentication (which checks everything else about the key), to know
   * whether the request needs an instance scope (instance-scope.middleware.ts).
   * Remembered per process: a key never moves to another instance.
   */
  async instanceOfKey(secret: string): Promise<string | null> {
    if (!API_KEY_SECRET.test(secret)) return null;
    const hash = tokenHash(secret);
    const known = this.keyInstances.get(hash);
    if (known !== undefined) return known;
    const [row] = await this.queries.instanceOfKey(this.prepared, hash);
    if (!row) return null;
    this.keyInstances.set(hash, row.instance_id);
    return row.instance_id;
  }

  // The condition makes concurrent requests of one key write once; a failure must not fail the request.
  private async touch(keyId: string): Promise<void> {
    try {
      // Outside the request's work: on the DataSource's manager.
      await this.queries.touch(this.dataSource.manager, keyId, LAST_USED_RESOLUTION_SECONDS);
    } catch (error) {
      this.logger.warn(`Could not record the use of API key ${keyId}: ${(error as Error).message}`);
    }
  }

  private async requireOwnKey(em: EntityManager, actor: Actor, keyId: string): Promise<ApiKey> {
    const key = await em.getRepository(ApiKey).findOne({
      where: { id: keyId, userId: actor.userId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!key) throw new NotFound('API key', keyId);
    return key;
  }
}
