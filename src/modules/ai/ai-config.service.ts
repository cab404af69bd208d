import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Conflict, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { PreparedQueries } from '../../database/prepared-queries';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { AiConfigResponse, CreateAiConfigDto, UpdateAiConfigDto } from './dto/ai-config.dto';
import { AiConfig, AiProvider } from './entities/ai-config.entity';
import { ProviderClient } from './providers/provider-client';

const SCOPE = 'global';
const CONFIG_SQL = `SELECT id, provider, model_name, api_key_sealed, api_base_url, temperature, max_tokens, is_enabled,
  created_at, updated_at FROM ai_configs WHERE scope = $1`;

interface ConfigRow {
  id: string;
  provider: AiProvider;
  model_name: string;
  api_key_sealed: string | null;
  api_base_url: string | null;
  temperature: number | null;
  max_tokens: number | null;
  is_enabled: boolean;
  created_at: Date;
  updated_at: Date;
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
    private readonly prepared: PreparedQueries,
  ) {}

  async effective(): Promise<EffectiveAiConfig | null> {
    // On every gateway call: a prepared statement, no entity mapping.
    const [row] = await this.prepared.query<ConfigRow>(CONFIG_SQL, [SCOPE]);
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
        createdAt: row.created_at,
        updatedAt: row.updated_at,
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

  async get(): Promise<AiConfigResponse> {
    const config = await this.effective();
    if (!config) throw new NotFound('AI provider configuration');
    return toResponse(config);
  }

  async create(dto: CreateAiConfigDto): Promise<AiConfigResponse> {
    if (await this.configs.existsBy({ scope: SCOPE })) {
      throw new Conflict(
        'An AI provider configuration already exists: change it with PATCH or delete it first.',
        'ai_config_exists',
      );
    }
    this.checkBaseUrl(dto.provider, dto.api_base_url ?? null);
    const id = randomUUID();
    const row = this.configs.create({
      id,
      scope: SCOPE,
      provider: dto.provider,
      modelName: dto.model_name,
      apiKeySealed: dto.api_key ? this.box.seal(dto.api_key, keyContext('ai_configs', id)) : null,
      apiBaseUrl: dto.api_base_url?.replace(/\/+$/, '') ?? null,
      temperature: dto.temperature ?? null,
      maxTokens: dto.max_tokens ?? null,
      isEnabled: dto.is_enabled ?? true,
    });
    // 23505 on a concurrent second POST maps to 409 in the problem filter.
    await this.configs.insert(row);
    return this.get();
  }

  async update(dto: UpdateAiConfigDto): Promise<AiConfigResponse> {
    const row = await this.configs.findOneBy({ scope: SCOPE });
    if (!row) throw new NotFound('AI provider configuration stored in the database');
    const provider = dto.provider ?? row.provider;
    const baseUrl = dto.api_base_url === undefined ? row.apiBaseUrl : dto.api_base_url;
    this.checkBaseUrl(provider, baseUrl);
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
    await this.configs.update({ id: row.id }, changes);
    return this.get();
  }

  async delete(): Promise<void> {
    const result = await this.configs.delete({ scope: SCOPE });
    if (!result.affected) throw new NotFound('AI provider configuration stored in the database');
  }

  /** 422 unless the base URL suits the provider: required where there is no public endpoint, public HTTPS or trusted. */
  checkBaseUrl(provider: AiProvider, baseUrl: string | null, field = 'api_base_url'): void {
    if (!baseUrl) {
      if (NEEDS_BASE_URL.includes(provider)) {
        throw ValidationFailed.field(field, `${field} is required for the ${provider} provider.`);
      }
      return;
    }
    const refused = this.providers.baseUrlRefusal(baseUrl);
    if (refused) {
      throw ValidationFailed.field(
        field,
        `${field} must be a public HTTPS URL (or a host listed in TRUSTED_AI_HOSTS): ${refused}.`,
      );
    }
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
