import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import type { Page, PageQuery } from '../../common/http/page.dto';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { TransactionRunner } from '../../database/transaction.runner';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { ProductsService } from '../catalog/products.service';
import { OutboundPolicy, OutboundTargetRefused } from '../../platform/outbound-http/outbound-policy.service';
import { isRefusal } from '../../platform/outbound-http/outbound-url-policy';
import { parseConnectionString, PostgresTarget } from './connection-string';
import {
  ConnectorResponse,
  ConnectorSyncResponse,
  ConnectorTestResponse,
  CreateConnectorDto,
} from './dto/connector.dto';
import { Connector, ConnectorType } from './entities/connector.entity';
import { SourceSystem } from './entities/source-system.entity';
import { datasetInput, harvestTables, serverVersion } from './source-harvest';
import { CONNECTOR_POOL_TOPIC, SourceConnectionPool } from './source-connection.pool';
import { Wakeup } from '../../platform/jobs/wakeup.service';
import { ReadOnlySession, SessionOptions, UserDatabase, UserDatabaseError } from './user-database.client';
import { OutboxService } from '../../platform/outbox/outbox.service';

export const connectorSecretContext = (connectorId: string) => `connector:${connectorId}`;

export function toConnectorResponse(connector: Connector): ConnectorResponse {
  return {
    id: connector.id,
    space_id: connector.spaceId,
    name: connector.name,
    connector_type: connector.connectorType,
    source_system_id: connector.sourceSystemId,
    config: {
      connection_string_set: true,
      host: connector.host,
      port: connector.port,
      database: connector.databaseName,
    },
    last_tested_at: connector.lastTestedAt?.toISOString() ?? null,
    last_test_status: connector.lastTestStatus,
    last_synced_at: connector.lastSyncedAt?.toISOString() ?? null,
    last_sync_status: connector.lastSyncStatus,
    last_error: connector.lastError,
    created_at: connector.createdAt.toISOString(),
    updated_at: connector.updatedAt.toISOString(),
  };
}

/**
 * Connectors to users' PostgreSQL databases. The connection string is
 * sealed with the connector's id as associated data, read back only to
 * connect, and never returned or logged. No database transaction of ours is
 * held while a user's database is being talked to.
 */
@Injectable()
export class ConnectorsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly secrets: SecretBox,
    private readonly userDb: UserDatabase,
    private readonly outbound: OutboundPolicy,
    private readonly products: ProductsService,
    private readonly outbox: OutboxService,
    private readonly sources: SourceConnectionPool,
    private readonly wakeup: Wakeup,
  ) {}

  async create(actor: Actor, access: SpaceAccess, dto: CreateConnectorDto): Promise<ConnectorResponse> {
    const spaceId = access.space.id;
    const parsed = parseConnectionString(dto.config.connection_string, {
      allowPrivate: this.config.allowPrivateNetworkTargets,
    });
    if ('error' in parsed) {
      throw new ValidationFailed([
        { field: 'config.connection_string', message: parsed.error, reason: parsed.reason },
      ]);
    }
    const host = await this.outbound.hostVerdict(parsed.target.host, 'database');
    if (isRefusal(host)) throw new OutboundTargetRefused('config.connection_string', host);
    return this.tx.run(async (em) => {
      if (dto.source_system_id) {
        const system = await em.getRepository(SourceSystem).findOneBy({ id: dto.source_system_id, spaceId });
        if (!system) {
          throw ValidationFailed.field(
            'source_system_id',
            'source_system_id must name a source system of the space.',
          );
        }
      }
      const id = randomUUID();
      const repo = em.getRepository(Connector);
      await repo.insert({
        id,
        spaceId,
        name: dto.name,
        connectorType: dto.connector_type as ConnectorType,
        sourceSystemId: dto.source_system_id ?? null,
        configSealed: this.secrets.seal(dto.config.connection_string, connectorSecretContext(id)),
        host: parsed.target.host,
        port: parsed.target.port,
        databaseName: parsed.target.database,
        createdBy: actor.userId,
      });
      return toConnectorResponse(await repo.findOneByOrFail({ id }));
    });
  }

  async list(access: SpaceAccess, page: PageQuery): Promise<Page<ConnectorResponse>> {
    const [connectors, total] = await this.dataSource.getRepository(Connector).findAndCount({
      where: { spaceId: access.space.id },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: page.skip,
      take: page.limit,
    });
    return { items: connectors.map(toConnectorResponse), total };
  }

  async get(access: SpaceAccess, connectorId: string): Promise<ConnectorResponse> {
    return toConnectorResponse(await this.find(this.dataSource.manager, access.space.id, connectorId));
  }

  async delete(_actor: Actor, access: SpaceAccess, connectorId: string): Promise<void> {
    await this.tx.run(async (em) => {
      const result = await em.getRepository(Connector).delete({ id: connectorId, spaceId: access.space.id });
      if (!result.affected) throw new NotFound('connector', connectorId);
      // Every process closes its warm connections to the source once the delete commits.
      this.wakeup.signal(em, `${CONNECTOR_POOL_TOPIC}:${connectorId}`);
    });
    await this.sources.drop(connectorId);
  }

  async test(access: SpaceAccess, connectorId: string): Promise<ConnectorTestResponse> {
    await this.find(this.dataSource.manager, access.space.id, connectorId);
    const started = Date.now();
    let result: ConnectorTestResponse;
    try {
      const target = await this.target(access.space.id, connectorId);
      const version = await this.userDb.withSession(target, serverVersion);
      result = { success: true, error: null, latency_ms: Date.now() - started, server_version: version };
    } catch (error) {
      result = {
        success: false,
        error: safeMessage(error),
        latency_ms: Date.now() - started,
        server_version: null,
      };
    }
    await this.dataSource.getRepository(Connector).update(connectorId, {
      lastTestedAt: new Date(),
      lastTestStatus: result.success ? 'succeeded' : 'failed',
      lastError: result.error,
    });
    return result;
  }

  async sync(actor: Actor, access: SpaceAccess, connectorId: string): Promise<ConnectorSyncResponse> {
    const spaceId = access.space.id;
    const connector = await this.find(this.dataSource.manager, spaceId, connectorId);
    let tables;
    try {
      // Read the source first, with no transaction of ours open.
      const target = await this.target(spaceId, connectorId);
      tables = await this.userDb.withSession(target, harvestTables);
    } catch (error) {
      const message = safeMessage(error);
      await this.tx.run(async (em) => {
        await em
          .getRepository(Connector)
          .update(connectorId, { lastSyncedAt: new Date(), lastSyncStatus: 'failed', lastError: message });
        // Only the first failure after a success (or none): a connector failing daily is news once.
        if (connector.lastSyncStatus !== 'failed') {
          await this.outbox.append(em, {
            type: 'connector.failing',
            spaceId,
            actorId: actor.userId,
            data: {
              connector_id: connectorId,
              space_id: spaceId,
              name: connector.name,
              operation: 'sync',
              error: message,
            },
          });
        }
      });
      return { status: 'failed', products_created: 0, products_updated: 0, tables_found: 0, error: message };
    }
    const syncedAt = new Date();
    return this.tx.run(async (em) => {
      let created = 0;
      let updated = 0;
      for (const table of tables) {
        const result = await this.products.upsertDataset(
          em,
          actor,
          spaceId,
          datasetInput(table, connector, syncedAt),
        );
        if (result.created) created++;
        else updated++;
      }
      await em
        .getRepository(Connector)
        .update(connectorId, { lastSyncedAt: syncedAt, lastSyncStatus: 'succeeded', lastError: null });
      return {
        status: 'succeeded',
        products_created: created,
        products_updated: updated,
        tables_found: tables.length,
        error: null,
      };
    });
  }

  // For other modules (quality checks).

  /** Whether the connector exists in the space. */
  async existsInSpace(spaceId: string, connectorId: string, em: EntityManager): Promise<boolean> {
    return em.getRepository(Connector).existsBy({ id: connectorId, spaceId });
  }

  /**
   * Runs `work` in a read-only session on the connector's database (see
   * UserDatabase). Call it with no database transaction open.
   */
  async withReadOnlySession<T>(
    spaceId: string,
    connectorId: string,
    work: (session: ReadOnlySession) => Promise<T>,
    options: SessionOptions = {},
  ): Promise<T> {
    return this.sources.withSession(connectorId, await this.target(spaceId, connectorId), work, options);
  }

  // Internals.

  private async find(em: EntityManager, spaceId: string, connectorId: string): Promise<Connector> {
    const connector = await em.getRepository(Connector).findOneBy({ id: connectorId, spaceId });
    if (!connector) throw new NotFound('connector', connectorId);
    return connector;
  }

  private async target(spaceId: string, connectorId: string): Promise<PostgresTarget> {
    const row = await this.dataSource
      .getRepository(Connector)
      .createQueryBuilder('c')
      .addSelect('c.configSealed')
      .where('c.id = :connectorId AND c.spaceId = :spaceId', { connectorId, spaceId })
      .getOne();
    if (!row) throw new NotFound('connector', connectorId);
    const raw = this.secrets.open(row.configSealed, connectorSecretContext(row.id));
    const parsed = parseConnectionString(raw, { allowPrivate: this.config.allowPrivateNetworkTargets });
    if ('error' in parsed) throw new UserDatabaseError(parsed.error);
    return parsed.target;
  }
}

function safeMessage(error: unknown): string {
  if (error instanceof UserDatabaseError) return error.message;
  return 'The source database could not be read.';
}
