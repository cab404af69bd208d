import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { Conflict, ValidationFailed } from '../../common/errors/domain-error';
import type { Page, PageQuery } from '../../common/http/page.dto';
import { PreparedQueries } from '../../database/prepared-queries';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import {
  AiConfigService,
  CONFIG_COLUMNS,
  ConfigRow,
  currentScope,
  EffectiveAiConfig,
  keyContext,
} from './ai-config.service';
import { AiDisabled, AiNotConfigured } from './ai.errors';
import {
  CreateModelProfileDto,
  ModelProfileResponse,
  ModelRouteResponse,
  PutModelRouteDto,
} from './dto/model-routing.dto';
import type { AiProvider } from './entities/ai-config.entity';
import { AiModelProfile } from './entities/ai-model-profile.entity';
import { AiModelRoute } from './entities/ai-model-route.entity';
import type { ProviderTarget } from './providers/wire';

interface ProfileRow {
  id: string;
  provider: AiProvider;
  model_name: string;
  temperature: number | null;
  max_tokens: number | null;
  api_key_sealed: string | null;
  api_base_url: string | null;
  fallback_profile_id: string | null;
}

// One round trip: the provider configuration of the scope and the feature's profile with its fallback.
const ROUTE_SQL = `SELECT
  (SELECT row_to_json(c) FROM (SELECT ${CONFIG_COLUMNS} FROM ai_configs WHERE scope = $2) c) AS config,
  (SELECT coalesce(json_agg(x), '[]'::json) FROM (
    SELECT p.id, p.provider, p.model_name, p.temperature, p.max_tokens, p.api_key_sealed, p.api_base_url,
      p.fallback_profile_id, (r.profile_id = p.id) AS is_primary
    FROM ai_model_routes r JOIN ai_model_profiles p ON p.id = r.profile_id OR p.id = (
      SELECT fallback_profile_id FROM ai_model_profiles WHERE id = r.profile_id)
    WHERE r.feature = $1) x) AS profiles`;

@Injectable()
export class ModelRoutingService {
  constructor(
    @InjectRepository(AiModelProfile) private readonly profiles: Repository<AiModelProfile>,
    @InjectRepository(AiModelRoute) private readonly routes: Repository<AiModelRoute>,
    private readonly configs: AiConfigService,
    private readonly box: SecretBox,
    private readonly prepared: PreparedQueries,
  ) {}

  /**
   * The targets of a feature in order: its route's profile then that
   * profile's fallback, or the provider configuration alone. A disabled
   * configuration switches every feature off, routed or not.
   */
  async resolve(feature: string): Promise<ProviderTarget[]> {
    // The instance's database holds its own override only; without one, the global configuration is read
    // from the deployment database (a second round trip, on instances other than `default` only).
    const scope = currentScope();
    const [row] = await this.prepared.queryOutsideTransaction<{
      config: ConfigRow | null;
      profiles: Array<ProfileRow & { is_primary: boolean }>;
    }>(ROUTE_SQL, [feature, scope]);
    const config = await this.configs.inScope(scope, row.config);
    const rows = row.profiles;
    if (config && !config.isEnabled) throw new AiDisabled();
    const primary = rows.find((row) => row.is_primary);
    if (!primary) {
      if (!config) throw new AiNotConfigured();
      return [this.configTarget(config)];
    }
    const fallback = rows.find((row) => !row.is_primary && row.id === primary.fallback_profile_id);
    return [primary, ...(fallback ? [fallback] : [])].map((row) => this.profileTarget(row, config));
  }

  configTarget(config: EffectiveAiConfig): ProviderTarget {
    return {
      provider: config.provider,
      model: config.modelName,
      apiKey: config.apiKey,
      baseUrl: config.apiBaseUrl,
      temperature: config.temperature,
      maxTokens: config.maxTokens,
      profileId: null,
    };
  }

  private profileTarget(row: ProfileRow, config: EffectiveAiConfig | null): ProviderTarget {
    const sameProvider = config?.provider === row.provider;
    return {
      provider: row.provider,
      model: row.model_name,
      apiKey: row.api_key_sealed
        ? this.box.open(row.api_key_sealed, keyContext('ai_model_profiles', row.id))
        : sameProvider
          ? config.apiKey
          : null,
      baseUrl: row.api_base_url ?? (sameProvider ? config.apiBaseUrl : null),
      temperature: row.temperature,
      maxTokens: row.max_tokens,
      profileId: row.id,
    };
  }

  async listProfiles(page: PageQuery): Promise<Page<ModelProfileResponse>> {
    const [rows, total] = await this.profiles
      .createQueryBuilder('p')
      .addSelect('p.apiKeySealed')
      .orderBy('p.name', 'ASC')
      .skip(page.skip ?? 0)
      .take(page.limit ?? 50)
      .getManyAndCount();
    return { items: rows.map(toProfileResponse), total };
  }

  async createProfile(dto: CreateModelProfileDto): Promise<ModelProfileResponse> {
    if (await this.profiles.existsBy({ name: dto.name })) {
      throw new Conflict(`A model profile named "${dto.name}" already exists.`, 'ai_profile_exists');
    }
    if (dto.fallback_profile_id && !(await this.profiles.existsBy({ id: dto.fallback_profile_id }))) {
      throw ValidationFailed.field('fallback_profile_id', 'fallback_profile_id names no model profile.');
    }
    if (dto.api_base_url) await this.configs.checkBaseUrl(dto.provider, dto.api_base_url);
    const id = randomUUID();
    await this.profiles.insert({
      id,
      name: dto.name,
      provider: dto.provider,
      modelName: dto.model_name,
      temperature: dto.temperature ?? null,
      maxTokens: dto.max_tokens ?? null,
      fallbackProfileId: dto.fallback_profile_id ?? null,
      apiKeySealed: dto.api_key ? this.box.seal(dto.api_key, keyContext('ai_model_profiles', id)) : null,
      apiBaseUrl: dto.api_base_url?.replace(/\/+$/, '') ?? null,
    });
    const row = await this.profiles
      .createQueryBuilder('p')
      .addSelect('p.apiKeySealed')
      .where('p.id = :id', { id })
      .getOneOrFail();
    return toProfileResponse(row);
  }

  async listRoutes(page: PageQuery): Promise<Page<ModelRouteResponse>> {
    const [rows, total] = await this.routes.findAndCount({
      relations: { profile: true },
      order: { feature: 'ASC' },
      skip: page.skip ?? 0,
      take: page.limit ?? 50,
    });
    return { items: rows.map(toRouteResponse), total };
  }

  async putRoute(dto: PutModelRouteDto): Promise<ModelRouteResponse> {
    if (!(await this.profiles.existsBy({ id: dto.profile_id }))) {
      throw ValidationFailed.field('profile_id', 'profile_id names no model profile.');
    }
    await this.routes.upsert({ feature: dto.feature, profileId: dto.profile_id, updatedAt: new Date() }, [
      'feature',
    ]);
    const row = await this.routes.findOneOrFail({
      where: { feature: dto.feature },
      relations: { profile: true },
    });
    return toRouteResponse(row);
  }
}

function toProfileResponse(row: AiModelProfile): ModelProfileResponse {
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    model_name: row.modelName,
    temperature: row.temperature,
    max_tokens: row.maxTokens,
    fallback_profile_id: row.fallbackProfileId,
    api_key_set: row.apiKeySealed !== null && row.apiKeySealed !== undefined,
    api_base_url: row.apiBaseUrl,
    created_at: row.createdAt.toISOString(),
  };
}

function toRouteResponse(row: AiModelRoute): ModelRouteResponse {
  return {
    feature: row.feature,
    profile_id: row.profileId,
    profile_name: row.profile?.name ?? '',
    updated_at: row.updatedAt.toISOString(),
  };
}
