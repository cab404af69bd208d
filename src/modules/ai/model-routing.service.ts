import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { Conflict, ValidationFailed } from '../../common/errors/domain-error';
import type { Page, PageQuery } from '../../common/http/page.dto';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { AiConfigService, EffectiveAiConfig, keyContext } from './ai-config.service';
import { AiConfigCache, AiConfigSnapshot, derive, ProfileRow } from './ai-config.cache';
import { AiDisabled, AiNotConfigured } from './ai.errors';
import {
  CreateModelProfileDto,
  ModelProfileResponse,
  ModelRouteResponse,
  PutModelRouteDto,
} from './dto/model-routing.dto';
import { AiModelProfile } from './entities/ai-model-profile.entity';
import { AiModelRoute } from './entities/ai-model-route.entity';
import type { ProviderTarget } from './providers/wire';

@Injectable()
export class ModelRoutingService {
  constructor(
    @InjectRepository(AiModelProfile) private readonly profiles: Repository<AiModelProfile>,
    @InjectRepository(AiModelRoute) private readonly routes: Repository<AiModelRoute>,
    private readonly configs: AiConfigService,
    private readonly box: SecretBox,
    private readonly cache: AiConfigCache,
  ) {}

  /**
   * The targets of a feature in order: its route's profile then that
   * profile's fallback, or the provider configuration alone. A disabled
   * configuration switches every feature off, routed or not.
   */
  async resolve(feature: string): Promise<ProviderTarget[]> {
    // From memory (AiConfigCache): the instance's routes and profiles, its configuration or the global one.
    const view = await this.cache.view();
    const config = this.configs.effectiveIn(view);
    if (config && !config.isEnabled) throw new AiDisabled();
    const profileId = view.own.routes.get(feature);
    const primary = profileId === undefined ? undefined : view.own.profiles.get(profileId);
    if (!primary) {
      if (!config) throw new AiNotConfigured();
      return [this.configTarget(config)];
    }
    const fallbackId = primary.fallback_profile_id;
    const fallback = fallbackId && fallbackId !== primary.id ? view.own.profiles.get(fallbackId) : undefined;
    return [primary, ...(fallback ? [fallback] : [])].map((row) => this.profileTarget(view.own, row, config));
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

  private profileTarget(
    snapshot: AiConfigSnapshot,
    row: ProfileRow,
    config: EffectiveAiConfig | null,
  ): ProviderTarget {
    const sameProvider = config?.provider === row.provider;
    const sealed = row.api_key_sealed;
    return {
      provider: row.provider,
      model: row.model_name,
      apiKey: sealed
        ? derive(snapshot, `profile-key:${row.id}`, () =>
            this.box.open(sealed, keyContext('ai_model_profiles', row.id)),
          )
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
    await this.cache.write((em) =>
      em.insert(AiModelProfile, {
        id,
        name: dto.name,
        provider: dto.provider,
        modelName: dto.model_name,
        temperature: dto.temperature ?? null,
        maxTokens: dto.max_tokens ?? null,
        fallbackProfileId: dto.fallback_profile_id ?? null,
        apiKeySealed: dto.api_key ? this.box.seal(dto.api_key, keyContext('ai_model_profiles', id)) : null,
        apiBaseUrl: dto.api_base_url?.replace(/\/+$/, '') ?? null,
      }),
    );
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
    await this.cache.write((em) =>
      em.upsert(AiModelRoute, { feature: dto.feature, profileId: dto.profile_id, updatedAt: new Date() }, [
        'feature',
      ]),
    );
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
