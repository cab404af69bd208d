import { sentFields } from '../../common/validation/sent-fields';
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound } from '../../common/errors/domain-error';
import { Page } from '../../common/http/page.dto';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { CreateCredentialDto, CredentialResponse, UpdateCredentialDto } from './dto/credential.dto';
import { Credential } from './entities/credential.entity';
import { ToolProvider } from './entities/tool-provider.entity';
import { McpSessionPool } from './mcp-session.pool';
import { toCredentialResponse } from './tool-providers.mapper';

export interface OpenedCredential {
  isActive: boolean;
  /** Plaintext; null when none is stored. */
  secret: string | null;
}

/** The sealed secret is bound to its credential row. */
const secretContext = (id: string) => `credentials.secret:${id}`;

/** The credentials store (docs/decisions.md#tool-credentials): secrets sealed at rest, write-only over the API. */
@Injectable()
export class CredentialsService {
  constructor(
    @InjectRepository(Credential) private readonly credentials: Repository<Credential>,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditService,
    private readonly box: SecretBox,
    private readonly sessions: McpSessionPool,
  ) {}

  async list(skip: number, limit: number): Promise<Page<CredentialResponse>> {
    const [items, total] = await this.credentials.findAndCount({
      order: { createdAt: 'ASC', id: 'ASC' },
      skip,
      take: limit,
    });
    return { items: items.map(toCredentialResponse), total };
  }

  async create(actor: Actor, dto: CreateCredentialDto): Promise<CredentialResponse> {
    const id = randomUUID();
    return this.tx.run(async (em) => {
      await em.getRepository(Credential).insert({
        id,
        name: dto.name,
        kind: dto.kind,
        secretSealed: dto.secret === undefined ? null : this.box.seal(dto.secret, secretContext(id)),
        secretSet: dto.secret !== undefined,
        isActive: dto.is_active ?? true,
        createdBy: actor.userId,
      });
      await this.audit.record(em, actor, {
        action: 'credential.created',
        resourceType: 'credential',
        resourceId: id,
        details: { name: dto.name, kind: dto.kind, secret_set: dto.secret !== undefined },
      });
      return toCredentialResponse(await this.require(em, id));
    });
  }

  async update(actor: Actor, id: string, dto: UpdateCredentialDto): Promise<CredentialResponse> {
    const result = await this.tx.run(async (em) => {
      const credential = await this.require(em, id, true);
      if (dto.name !== undefined) credential.name = dto.name;
      if (dto.kind !== undefined) credential.kind = dto.kind;
      if (dto.is_active !== undefined) credential.isActive = dto.is_active;
      let sealed: { secretSealed: string | null; secretSet: boolean } | object = {};
      if (dto.secret === null) sealed = { secretSealed: null, secretSet: false };
      else if (dto.secret !== undefined) {
        sealed = { secretSealed: this.box.seal(dto.secret, secretContext(id)), secretSet: true };
      }
      await em.getRepository(Credential).update(id, {
        name: credential.name,
        kind: credential.kind,
        isActive: credential.isActive,
        updatedAt: new Date(),
        ...sealed,
      });
      await this.audit.record(em, actor, {
        action: 'credential.updated',
        resourceType: 'credential',
        resourceId: id,
        // Field names only: the secret never reaches the audit log.
        details: { fields: sentFields(dto) },
      });
      return toCredentialResponse(await this.require(em, id));
    });
    const users = await this.providersUsing(this.credentials.manager, id);
    await Promise.all(users.map((providerId) => this.sessions.stop(providerId)));
    return result;
  }

  async delete(actor: Actor, id: string): Promise<void> {
    const users = await this.tx.run(async (em) => {
      const credential = await this.require(em, id, true);
      const providerIds = await this.providersUsing(em, id);
      await em.getRepository(Credential).delete(id);
      await this.audit.record(em, actor, {
        action: 'credential.deleted',
        resourceType: 'credential',
        resourceId: id,
        details: { name: credential.name },
      });
      return providerIds;
    });
    await Promise.all(users.map((providerId) => this.sessions.stop(providerId)));
  }

  /** A credential's state and plaintext secret, for a provider's process only; null when it does not exist. */
  async open(id: string, em: EntityManager = this.credentials.manager): Promise<OpenedCredential | null> {
    const row = await em
      .getRepository(Credential)
      .createQueryBuilder('c')
      .addSelect('c.secretSealed')
      .where('c.id = :id', { id })
      .getOne();
    return row ? this.unseal(row) : null;
  }

  /** The same for a row loaded with its sealed secret (`addSelect('c.secretSealed')`). */
  unseal(row: Pick<Credential, 'id' | 'isActive' | 'secretSealed'>): OpenedCredential {
    return {
      isActive: row.isActive,
      secret: row.secretSealed ? this.box.open(row.secretSealed, secretContext(row.id)) : null,
    };
  }

  async require(em: EntityManager, id: string, lock = false): Promise<Credential> {
    const credential = await em
      .getRepository(Credential)
      .findOne({ where: { id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!credential) throw new NotFound('credential', id);
    return credential;
  }

  // A changed or removed secret must not stay in a running process: their sessions are stopped.
  private async providersUsing(em: EntityManager, credentialId: string): Promise<string[]> {
    const providers = await em
      .getRepository(ToolProvider)
      .find({ select: { id: true }, where: { credentialId } });
    return providers.map((provider) => provider.id);
  }
}
