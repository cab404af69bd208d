import { sentFields } from '../../common/validation/sent-fields';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import { OutboundTargetRefused } from '../../platform/outbound-http/outbound-policy.service';
import { APP_CONFIG, AppConfig, EMBEDDING_DEFAULTS } from '../../config/app.config';
import { deploymentDataSource } from '../../database/routing-data-source';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import {
  CreateEmbeddingConfigDto,
  EmbeddingConfigResponse,
  TestEmbeddingResponse,
  UpdateEmbeddingConfigDto,
} from './dto/embedding-config.dto';
import {
  currentScope,
  EffectiveEmbeddingConfig,
  fingerprintOf,
  GLOBAL_SCOPE,
  instanceIdOf,
} from './embedding-config.types';
import { EmbeddingConfigRow, EmbeddingQueries } from './embeddings.queries';
import { EmbeddingConfig, EmbeddingProvider } from './entities/embedding-config.entity';
import { EmbedderService, EmbeddingFailure } from './providers/embedder.service';
import { isBuiltinModel, LocalModelRefused, LocalModelsService } from './providers/local-models.service';
import { VectorStore } from './vector.store';

function keyContext(id: string): string {
  return `embedding_configs:${id}:api_key`;
}

/**
 * The embedding configuration (superadmin): one per scope. The global one
 * lives in the control plane (the deployment database); an instance's
 * override lives in that instance's database, next to the vectors it
 * produces, and is what a token of that instance reads and changes. Without
 * an override an instance uses the global configuration, then the
 * environment's. The scope defaults to that of the request's instance.
 */
@Injectable()
export class EmbeddingConfigService implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    private readonly box: SecretBox,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditService,
    private readonly embedder: EmbedderService,
    private readonly store: VectorStore,
    private readonly localModels: LocalModelsService,
    private readonly queries: EmbeddingQueries,
  ) {}

  /** A configured local model directory starts loading with the server, not at the first search. */
  async onApplicationBootstrap(): Promise<void> {
    this.embedder.warm(await this.effective());
  }

  /** The stored configuration of the scope, else (for an instance) the global one, else the environment's. */
  async effective(scope = currentScope()): Promise<EffectiveEmbeddingConfig> {
    return this.effectiveIn(this.dataSource.manager, scope);
  }

  /** As `effective`, read through `em` (the caller's transaction). */
  private async effectiveIn(em: EntityManager, scope: string): Promise<EffectiveEmbeddingConfig> {
    const row = await this.queries.config(em, scope);
    if (row) return this.fromRow(row);
    return scope === GLOBAL_SCOPE ? this.fromEnvironment() : this.globalOrEnvironment();
  }

  async get(scope = currentScope()): Promise<EmbeddingConfigResponse> {
    return this.toResponse(await this.effective(scope));
  }

  async create(
    actor: Actor,
    dto: CreateEmbeddingConfigDto,
    scope = currentScope(),
  ): Promise<EmbeddingConfigResponse> {
    const defaults = EMBEDDING_DEFAULTS[dto.provider];
    const baseUrl = await this.checkedBaseUrl(dto.provider, dto.api_base_url ?? null);
    const modelName = dto.model_name ?? defaults.model;
    const dimensions =
      dto.provider === 'local'
        ? await this.localDimensions(modelName, dto.dimensions ?? null, defaults.dimensions)
        : (dto.dimensions ?? defaults.dimensions);
    const id = randomUUID();
    const config = await this.tx.run(async (em) => {
      if (await this.queries.configExists(em, scope)) {
        throw new Conflict(
          'An embedding configuration already exists: change it with PATCH or delete it first.',
          'embedding_config_exists',
        );
      }
      const previous = await this.effectiveIn(em, scope);
      const row: Partial<EmbeddingConfig> = {
        id,
        scope,
        instanceId: instanceIdOf(scope),
        provider: dto.provider,
        modelName,
        dimensions,
        apiKeySealed: dto.api_key ? this.box.seal(dto.api_key, keyContext(id)) : null,
        apiBaseUrl: baseUrl,
        isEnabled: dto.is_enabled ?? true,
        indexVersion: dto.index_version ?? 'v1',
        updatedBy: actor.userId,
      };
      const rebuild = fingerprintOf(previous) !== fingerprintOf(row as EffectiveEmbeddingConfig);
      row.status = rebuild ? 'pending_reindex' : 'active';
      // 23505 on a concurrent second POST maps to 409 in the problem filter.
      await em.getRepository(EmbeddingConfig).insert(row);
      if (rebuild) await this.store.clear(em);
      await this.audit.record(em, actor, {
        action: 'embedding_config.created',
        resourceType: 'embedding_config',
        resourceId: id,
        details: {
          provider: row.provider,
          model_name: row.modelName,
          dimensions: row.dimensions,
          api_key_set: row.apiKeySealed !== null,
        },
      });
      return this.effectiveIn(em, scope);
    });
    await this.store.ensureIndex(config.dimensions);
    this.embedder.warm(config, { retry: true });
    return this.toResponse(config);
  }

  async update(
    actor: Actor,
    dto: UpdateEmbeddingConfigDto,
    scope = currentScope(),
  ): Promise<EmbeddingConfigResponse> {
    const config = await this.tx.run(async (em) => {
      const current = await this.stored(em, scope);
      const provider = dto.provider ?? current.provider;
      const baseUrl = await this.checkedBaseUrl(
        provider,
        dto.api_base_url === undefined ? current.apiBaseUrl : dto.api_base_url,
      );
      const changes: Partial<EmbeddingConfig> = { provider, apiBaseUrl: baseUrl, updatedBy: actor.userId };
      if (dto.model_name !== undefined) changes.modelName = dto.model_name;
      if (dto.dimensions !== undefined) changes.dimensions = dto.dimensions;
      const embedsDifferently =
        dto.provider !== undefined || dto.model_name !== undefined || dto.dimensions !== undefined;
      if (provider === 'local' && embedsDifferently) {
        const modelName = changes.modelName ?? current.modelName;
        // A model directory's own size replaces the current one unless the request names a size.
        const keep = isBuiltinModel(modelName) ? current.dimensions : null;
        changes.dimensions = await this.localDimensions(modelName, dto.dimensions ?? null, keep);
      }
      if (dto.is_enabled !== undefined) changes.isEnabled = dto.is_enabled;
      if (dto.index_version !== undefined) changes.indexVersion = dto.index_version;
      if (dto.api_key !== undefined) {
        changes.apiKeySealed = dto.api_key ? this.box.seal(dto.api_key, keyContext(current.id!)) : null;
      }
      const next = {
        provider,
        modelName: changes.modelName ?? current.modelName,
        dimensions: changes.dimensions ?? current.dimensions,
      };
      // Vectors of another provider, model or size are not comparable: drop them, and a reindex rebuilds.
      const rebuild = fingerprintOf(next) !== fingerprintOf(current);
      if (rebuild) changes.status = 'pending_reindex';
      await em.getRepository(EmbeddingConfig).update({ scope }, changes);
      if (rebuild) await this.store.clear(em);
      await this.audit.record(em, actor, {
        action: 'embedding_config.updated',
        resourceType: 'embedding_config',
        resourceId: current.id,
        // Which fields changed, never the key itself.
        details: {
          fields: sentFields(dto),
          status: rebuild ? 'pending_reindex' : current.status,
        },
      });
      return this.effectiveIn(em, scope);
    });
    await this.store.ensureIndex(config.dimensions);
    this.embedder.warm(config, { retry: true });
    return this.toResponse(config);
  }

  async delete(actor: Actor, scope = currentScope()): Promise<void> {
    const config = await this.tx.run(async (em) => {
      const current = await this.stored(em, scope);
      await em.getRepository(EmbeddingConfig).delete({ scope });
      // An instance falls back to the global configuration, the control plane to the environment.
      const fallback = scope === GLOBAL_SCOPE ? this.fromEnvironment() : await this.globalOrEnvironment();
      if (fingerprintOf(fallback) !== fingerprintOf(current)) await this.store.clear(em);
      await this.audit.record(em, actor, {
        action: 'embedding_config.deleted',
        resourceType: 'embedding_config',
        resourceId: current.id,
      });
      return fallback;
    });
    await this.store.ensureIndex(config.dimensions);
    this.embedder.warm(config);
  }

  /**
   * Embeds a fixed sentence with the effective configuration (even a
   * disabled one); a failure is an answer, not an error. A local model that
   * failed to load is loaded again first (its files may have been fixed).
   */
  async testEmbedding(scope = currentScope()): Promise<TestEmbeddingResponse> {
    const config = await this.effective(scope);
    this.embedder.warm(config, { retry: true });
    try {
      const [vector] = await this.embedder.embed(
        config,
        ['Verity embedding test: customer orders by region.'],
        'query',
      );
      return { success: true, error: null, dimensions: vector.length };
    } catch (error) {
      if (!(error instanceof EmbeddingFailure)) throw error;
      return { success: false, error: error.message, dimensions: null };
    }
  }

  /** Records the outcome of a reindex made with `fingerprint`, unless the configuration changed since. */
  async markReindexed(
    em: EntityManager,
    scope: string,
    fingerprint: string,
    status: 'active' | 'failed',
  ): Promise<void> {
    const current = await this.effectiveIn(em, scope);
    if (current.source !== 'database' || fingerprintOf(current) !== fingerprint) return;
    await em.getRepository(EmbeddingConfig).update({ scope }, { status });
  }

  toResponse(config: EffectiveEmbeddingConfig): EmbeddingConfigResponse {
    const local = config.provider === 'local';
    const runtime = local ? this.embedder.runtime(config) : null;
    return {
      id: config.id,
      instance_id: config.instanceId,
      provider: config.provider,
      model_name: config.modelName,
      dimensions: config.dimensions,
      api_key_set: config.apiKey !== null,
      api_base_url: config.apiBaseUrl,
      is_enabled: config.isEnabled,
      index_version: config.indexVersion,
      status: config.status,
      runtime_status: runtime?.status ?? 'not_applicable',
      runtime_error: runtime?.error ?? null,
      vector_store: this.store.mode,
      source: config.source,
      updated_by: config.updatedBy,
      created_at: config.createdAt?.toISOString() ?? null,
      updated_at: config.updatedAt?.toISOString() ?? null,
    };
  }

  private async stored(em: EntityManager, scope: string): Promise<EffectiveEmbeddingConfig> {
    const row = await this.queries.configForUpdate(em, scope);
    if (!row) throw new NotFound('embedding configuration stored in the database');
    return this.fromRow(row);
  }

  /**
   * The dimensions of a local configuration: any size (the requested one, else
   * `fallback`) for the built-in hashing model; a model directory's own size,
   * which a requested size must equal (422 otherwise, as for a name that is
   * not a model directory under EMBEDDING_LOCAL_MODELS_DIR).
   */
  private async localDimensions(
    modelName: string,
    requested: number | null,
    fallback: number | null,
  ): Promise<number> {
    if (isBuiltinModel(modelName)) return requested ?? fallback ?? EMBEDDING_DEFAULTS.local.dimensions;
    let dimensions: number;
    try {
      ({ dimensions } = await this.localModels.inspect(modelName));
    } catch (error) {
      if (error instanceof LocalModelRefused) throw ValidationFailed.field('model_name', error.message);
      throw error;
    }
    if (dimensions < 8 || dimensions > 2000) {
      throw ValidationFailed.field(
        'model_name',
        `The model "${modelName}" makes vectors of ${dimensions} dimensions; 8 to 2000 are supported.`,
      );
    }
    if (requested !== null && requested !== dimensions) {
      throw ValidationFailed.field(
        'dimensions',
        `The model "${modelName}" makes vectors of ${dimensions} dimensions, not ${requested}: leave dimensions out or set ${dimensions}.`,
      );
    }
    return dimensions;
  }

  /** 422 unless the base URL suits the provider: required for azure_openai; public HTTPS or a trusted host. */
  private async checkedBaseUrl(provider: EmbeddingProvider, baseUrl: string | null): Promise<string | null> {
    if (!baseUrl) {
      if (provider === 'azure_openai') {
        throw ValidationFailed.field(
          'api_base_url',
          'api_base_url is required for the azure_openai provider.',
        );
      }
      return null;
    }
    const refused = await this.embedder.baseUrlRefusal(baseUrl);
    if (refused) throw new OutboundTargetRefused('api_base_url', refused);
    return baseUrl.replace(/\/+$/, '');
  }

  private fromRow(row: EmbeddingConfigRow): EffectiveEmbeddingConfig {
    return {
      id: row.id,
      instanceId: row.instance_id,
      source: 'database',
      provider: row.provider,
      modelName: row.model_name,
      dimensions: row.dimensions,
      apiKey: row.api_key_sealed ? this.box.open(row.api_key_sealed, keyContext(row.id)) : null,
      apiBaseUrl: row.api_base_url,
      isEnabled: row.is_enabled,
      indexVersion: row.index_version,
      status: row.status,
      updatedBy: row.updated_by,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    };
  }

  /** The control plane's configuration, read from the deployment database whatever the request's instance. */
  private async globalOrEnvironment(): Promise<EffectiveEmbeddingConfig> {
    const row = await this.queries.config(deploymentDataSource(this.dataSource).manager, GLOBAL_SCOPE);
    return row ? this.fromRow(row) : this.fromEnvironment();
  }

  private fromEnvironment(): EffectiveEmbeddingConfig {
    const env = this.app.embeddings;
    return {
      id: null,
      instanceId: null,
      source: 'environment',
      provider: env.provider,
      modelName: env.model,
      dimensions: this.localModels.dimensionsOfEnvironment(EMBEDDING_DEFAULTS[env.provider].dimensions),
      apiKey: env.apiKey,
      apiBaseUrl: env.apiBaseUrl,
      isEnabled: env.enabled,
      indexVersion: env.indexVersion,
      status: 'active',
      updatedBy: null,
      createdAt: null,
      updatedAt: null,
    };
  }
}
