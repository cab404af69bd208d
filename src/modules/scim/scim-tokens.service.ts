import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, IsNull, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { randomToken, tokenHash } from '../../platform/crypto/tokens';
import {
  CreatedScimTokenResponse,
  CreateScimTokenDto,
  ListScimTokensQuery,
  ScimTokenResponse,
} from './dto/scim-token.dto';
import { ScimToken } from './entities/scim-token.entity';
import { ScimTokensQueries } from './scim-tokens.queries';

export const SCIM_TOKEN_PREFIX = 'vscim_';
const LAST_USED_RESOLUTION_SECONDS = 60;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function toResponse(token: ScimToken): ScimTokenResponse {
  return {
    id: token.id,
    name: token.name,
    created_at: token.createdAt.toISOString(),
    expires_at: iso(token.expiresAt),
    last_used_at: iso(token.lastUsedAt),
    created_by: token.createdBy,
  };
}

/** SCIM bearer tokens: created by superadmins, stored as their SHA-256, shown once. */
@Injectable()
export class ScimTokensService {
  private readonly logger = new Logger('ScimTokens');

  constructor(
    @InjectRepository(ScimToken) private readonly tokens: Repository<ScimToken>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditService,
    private readonly prepared: PreparedQueries,
    private readonly queries: ScimTokensQueries,
  ) {}

  async create(actor: Actor, dto: CreateScimTokenDto): Promise<CreatedScimTokenResponse> {
    if (dto.expires_at && dto.expires_at.getTime() <= Date.now()) {
      throw ValidationFailed.field('expires_at', 'expires_at must be in the future.');
    }
    const secret = randomToken(SCIM_TOKEN_PREFIX);
    const token = await this.tx.run(async (em) => {
      const saved = await em.getRepository(ScimToken).save(
        em.getRepository(ScimToken).create({
          name: dto.name,
          tokenHash: tokenHash(secret),
          createdBy: actor.userId,
          expiresAt: dto.expires_at ?? null,
          lastUsedAt: null,
          revokedAt: null,
        }),
      );
      await this.audit.record(em, actor, {
        action: 'scim_token.created',
        resourceType: 'scim_token',
        resourceId: saved.id,
        details: { name: saved.name, expires_at: iso(saved.expiresAt) },
      });
      return saved;
    });
    return {
      id: token.id,
      name: token.name,
      token: secret,
      created_at: token.createdAt.toISOString(),
      expires_at: iso(token.expiresAt),
    };
  }

  /** Live (not revoked) tokens, newest first; expired ones are listed with their expiry. */
  async list(_actor: Actor, query: ListScimTokensQuery): Promise<Page<ScimTokenResponse>> {
    const [items, total] = await this.tokens.findAndCount({
      where: { revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: query.skip ?? 0,
      take: query.limit ?? 50,
    });
    return { items: items.map(toResponse), total };
  }

  async revoke(actor: Actor, tokenId: string): Promise<void> {
    await this.tx.run(async (em) => {
      const token = await em
        .getRepository(ScimToken)
        .findOne({ where: { id: tokenId, revokedAt: IsNull() }, lock: { mode: 'pessimistic_write' } });
      if (!token) throw new NotFound('SCIM token', tokenId);
      await em.getRepository(ScimToken).update(token.id, { revokedAt: new Date() });
      await this.audit.record(em, actor, {
        action: 'scim_token.revoked',
        resourceType: 'scim_token',
        resourceId: token.id,
        details: { name: token.name },
      });
    });
  }

  /** The id of a live token, or null; `last_used_at` is written at most once a minute. */
  async authenticate(secret: string): Promise<string | null> {
    if (!secret.startsWith(SCIM_TOKEN_PREFIX)) return null;
    // On every SCIM request: a prepared statement over the unique hash index.
    const [row] = await this.queries.liveToken(this.prepared, tokenHash(secret));
    if (!row) return null;
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_SECONDS * 1000) {
      try {
        await this.queries.touch(this.dataSource.manager, row.id);
      } catch (error) {
        this.logger.warn(`Could not record the use of SCIM token ${row.id}: ${(error as Error).message}`);
      }
    }
    return row.id;
  }
}
