import { sentFields } from '../../common/validation/sent-fields';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Conflict, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import { OutboundTargetRefused } from '../../platform/outbound-http/outbound-policy.service';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { configScopeOf, InstanceContext } from '../../database/instance-context';
import { AuditService } from '../../platform/audit/audit.service';
import type { Actor } from '../../common/auth/actor';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { AiConfigResponse, CreateAiConfigDto, UpdateAiConfigDto } from './dto/ai-config.dto';
import { AiConfig, AiProvider } from './entities/ai-config.entity';
import { ProviderClient } from './providers/provider.client';
import { AiConfigCache, AiConfigView, ConfigRow, derive } from './ai-config.cache';

/**
 * The global configuration lives in the control plane (the deployment
 * database); an instance's override, `instance:<id>`, in that instance's
 * database. Calls on an instance use its override, else the global one,
 * else the environment's.
 */
export function currentScope(): string {
  return configScopeOf(InstanceContext.instanceId());
}

const NEEDS_BASE_URL: AiProvider[] = ['azure_openai', 'openai_compatible'];

/** The provider configuration in force: the database's, else the environment's. */
export interface EffectiveAiConfig {
  id: string | null;
  source: 'database' | 'environment';
  provider: AiProvider;
  modelName: string;
  apiKey: string | null;
  apiBaseUrl: string | null;
  temperature: number | null;
  maxTokens: number | null;
  isEnabled: boolean;
  createdAt: Date | null;
  updatedAt: Date | null;
}

/** Seals and opens provider keys bound to their row, so a sealed key cannot be moved to another row. */
export function keyContext(table: string, id: string): string {
  return `${table}:${id}:api_key`;
}

@Injectable()
export class AiConfigService {
  constructor(
    @InjectRepository(AiConfig) private readonly configs: Repository<AiConfig>,
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    private readonly box: SecretBox,
    private readonly providers: ProviderClient,
    private readonly cache: AiConfigCache,
    private readonly audit: AuditService,
  ) {}

  /** The configuration in force on the current instance, from memory (AiConfigCache). */
  async effective(): Promise<EffectiveAiConfig | null> {
    return this.effectiveIn(await this.cache.view());
  }

  /**
   * The effective configuration of a view: the instance's own row, else the
   * global configuration (the deployment database's), else the environment's;
   * its key opened once per snapshot.
   */
  effectiveIn(view: AiConfigView): EffectiveAiConfig | null {
    const { own, global } = view;
    if (own.config) return derive(own, 'effective', () => this.fromRow(own.config));
    return derive(global, 'effective', () => this.fromRow(global.config));
  }

  /** The effective configuration from a stored row (timestamps as Dates or JSON strings), else the environment's. */
  private fromRow(row: ConfigRow | null): EffectiveAiConfig | null {
    if (row) {
      return {
        id: row.id,
        source: 'database',
        provider: row.provider,
        modelName: row.model_name,
        apiKey: row.api_key_sealed
          ? this.box.open(row.api_key_sealed, keyContext('ai_configs', row.id))
          : null,
        apiBaseUrl: row.api_base_url,
        temperature: row.temperature,
        maxTokens: row.max_tokens,
        isEnabled: row.is_enabled,
        createdAt: new Date(row.created_at),
        updatedAt: new Date(row.updated_at),
      };
    }
    const env = this.app.ai;
    if (!env.provider || !env.model) return null;
    return {
      id: null,
      source: 'environment',
      provider: env.provider,
      modelName: env.model,
      apiKey: env.apiKey,
      apiBaseUrl: env.apiBaseUrl,
      temperature: null,
      maxTokens: null,
      isEnabled: true,
      createdAt: null,
      updatedAt: null,
    };
  }

  /** The effective configuration; without one, the environment's incomplete one, disabled, so an admin form can render. */
  async get(): Promise<AiConfigResponse> {
    const config = await this.effective();
    if (config) return toResponse(config);
    const env = this.app.ai;
    return {
      id: null,
      source: 'environment',
      provider: env.provider,
      model_name: env.model,
      api_key_set: env.apiKey !== null,
      api_base_url: env.apiBaseUrl,
      temperature: null,
      max_tokens: null,
      is_enabled: false,
      created_at: null,
      updated_at: null,
    };
  }

  async create(actor: Actor, dto: CreateAiConfigDto): Promise<AiConfigResponse> {
    const scope = currentScope();
    // The body first: an unusable base URL answers 422 whether or not a configuration exists.
    await this.checkBaseUrl(dto.provider, dto.api_base_url ?? null);
    if (await this.configs.existsBy({ scope })) {
      throw new Conflict(
        'An AI provider configuration already exists: change it with PATCH or delete it first.',
        'ai_config_exists',
      );
    }
    const id = randomUUID();
    const row = this.configs.create({
      id,
      scope,
      provider: dto.provider,
      modelName: dto.model_name,
      apiKeySealed: dto.api_key ? this.box.seal(dto.api_key, keyContext('ai_configs', id)) : null,
      apiBaseUrl: dto.api_base_url?.replace(/\/+$/, '') ?? null,
      temperature: dto.temperature ?? null,
      maxTokens: dto.max_tokens ?? null,
      isEnabled: dto.is_enabled ?? true,
    });
    await this.cache.write(async (em) => {
      // 23505 on a concurrent second POST maps to 409 in the problem filter.
      await em.insert(AiConfig, row);
      await this.audit.record(em, actor, {
        action: 'ai_config.created',
        resourceType: 'ai_config',
        resourceId: id,
        details: {
          provider: row.provider,
          model_name: row.modelName,
          api_key_set: row.apiKeySealed !== null,
        },
      });
    });
    return this.get();
  }

  async update(actor: Actor, dto: UpdateAiConfigDto): Promise<AiConfigResponse> {
    const row = await this.configs.findOneBy({ scope: currentScope() });
    if (!row) throw new NotFound('AI provider configuration stored in the database');
    const provider = dto.provider ?? row.provider;
    const baseUrl = dto.api_base_url === undefined ? row.apiBaseUrl : dto.api_base_url;
    await this.checkBaseUrl(provider, baseUrl);
    const changes: Partial<AiConfig> = { provider, apiBaseUrl: baseUrl?.replace(/\/+$/, '') ?? null };
    if (dto.model_name !== undefined) changes.modelName = dto.model_name;
    if (dto.temperature !== undefined) changes.temperature = dto.temperature;
    if (dto.max_tokens !== undefined) changes.maxTokens = dto.max_tokens;
    if (dto.is_enabled !== undefined) changes.isEnabled = dto.is_enabled;
    if (dto.api_key !== undefined) {
      changes.apiKeySealed = dto.api_key
        ? this.box.seal(dto.api_key, keyContext('ai_configs', row.id))
        : null;
    }
    await this.cache.write(async (em) => {
      await em.update(AiConfig, { id: row.id }, changes);
      await this.audit.record(em, actor, {
        action: 'ai_config.updated',
        resourceType: 'ai_config',
        resourceId: row.id,
        // Which fields changed, never the key itself.
        details: {
          fields: sentFields(dto),
        },
      });
    });
    return this.get();
  }

  async delete(actor: Actor): Promise<void> {
    await this.cache.write(async (em) => {
      const row = await em.findOneBy(AiConfig, { scope: currentScope() });
      if (!row) throw new NotFound('AI provider configuration stored in the database');
      await em.delete(AiConfig, { id: row.id });
      await this.audit.record(em, actor, {
        action: 'ai_config.deleted',
        resourceType: 'ai_config',
        resourceId: row.id,
      });
    });
  }

  /** 422 unless the base URL suits the provider: required where there is no public endpoint, public HTTPS or trusted. */
  async checkBaseUrl(provider: AiProvider, baseUrl: string | null, field = 'api_base_url'): Promise<void> {
    if (!baseUrl) {
      if (NEEDS_BASE_URL.includes(provider)) {
        throw ValidationFailed.field(field, `${field} is required for the ${provider} provider.`);
      }
      return;
    }
    const refused = await this.providers.baseUrlRefusal(baseUrl);
    if (refused) throw new OutboundTargetRefused(field, refused);
  }
}

function toResponse(config: EffectiveAiConfig): AiConfigResponse {
  return {
    id: config.id,
    source: config.source,
    provider: config.provider,
    model_name: config.modelName,
    api_key_set: config.apiKey !== null,
    api_base_url: config.apiBaseUrl,
    temperature: config.temperature,
    max_tokens: config.maxTokens,
    is_enabled: config.isEnabled,
    created_at: config.createdAt?.toISOString() ?? null,
    updated_at: config.updatedAt?.toISOString() ?? null,
  };
}
