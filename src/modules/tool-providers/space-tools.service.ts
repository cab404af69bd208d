import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound } from '../../common/errors/domain-error';
import type { SpaceRef } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { PutEnablementDto, SpaceToolProviderResponse } from './dto/space-tools.dto';
import { ProviderTool } from './entities/provider-tool.entity';
import { SpaceToolEnablement } from './entities/space-tool-enablement.entity';
import { ToolProvider } from './entities/tool-provider.entity';
import { AVAILABLE } from './tool-providers.contract';
import { InvalidToolConfig } from './tool-providers.errors';
import { namespacedName, toSpaceToolProviderResponse } from './tool-providers.mapper';

/** A tool the space's AI may use now. */
export interface AvailableTool {
  providerToolId: string;
  providerId: string;
  toolName: string;
  namespacedName: string;
  capabilityId: string | null;
  capabilityCompatible: boolean | null;
}

const MAX_ALLOWLIST = 500;

/** Per-space enablement of providers and the space tool availability rule (AVAILABLE, in the contract). */
@Injectable()
export class SpaceToolsService {
  constructor(
    @InjectRepository(ToolProvider) private readonly providers: Repository<ToolProvider>,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditService,
  ) {}

  /** Every provider with this space's enablement (disabled when never set) and what is available. */
  async list(spaceId: string): Promise<SpaceToolProviderResponse[]> {
    const em = this.providers.manager;
    const [providers, enablements, available] = await Promise.all([
      em.getRepository(ToolProvider).find({ order: { slug: 'ASC' } }),
      em.getRepository(SpaceToolEnablement).findBy({ spaceId }),
      this.availableTools(spaceId, em),
    ]);
    const bySpace = new Map(enablements.map((e) => [e.providerId, e]));
    return providers.map((p) =>
      toSpaceToolProviderResponse(
        p,
        bySpace.get(p.id),
        available.filter((t) => t.providerId === p.id).map((t) => t.namespacedName),
      ),
    );
  }

  async putEnablement(
    actor: Actor,
    space: SpaceRef,
    providerId: string,
    dto: PutEnablementDto,
  ): Promise<SpaceToolProviderResponse> {
    if (dto.max_risk_level !== undefined && dto.max_risk_level !== 'read') {
      throw InvalidToolConfig.field(
        'max_risk_level',
        'max_risk_level must be read, the only level in this version.',
      );
    }
    const requested = dto.allowed_tool_names ?? null;
    if (
      requested !== null &&
      (!Array.isArray(requested) ||
        requested.length > MAX_ALLOWLIST ||
        !requested.every((name) => typeof name === 'string' && name.length > 0 && name.length <= 300))
    ) {
      throw InvalidToolConfig.field(
        'allowed_tool_names',
        `allowed_tool_names must be null or a list of at most ${MAX_ALLOWLIST} tool names.`,
      );
    }
    return this.tx.run(async (em) => {
      const provider = await em.getRepository(ToolProvider).findOneBy({ id: providerId });
      if (!provider) throw new NotFound('tool provider', providerId);
      const allowed = requested === null ? null : await this.rawNames(em, provider, requested as string[]);
      await em.getRepository(SpaceToolEnablement).upsert(
        {
          spaceId: space.id,
          providerId,
          enabled: dto.enabled,
          maxRiskLevel: 'read',
          allowedToolNames: allowed,
          updatedBy: actor.userId,
          updatedAt: new Date(),
        },
        ['spaceId', 'providerId'],
      );
      await this.audit.record(em, actor, {
        action: 'space.tool_provider_enablement_changed',
        resourceType: 'tool_provider',
        resourceId: providerId,
        spaceId: space.id,
        details: { enabled: dto.enabled, allowed_tool_names: allowed },
      });
      const enablement = await em
        .getRepository(SpaceToolEnablement)
        .findOneByOrFail({ spaceId: space.id, providerId });
      const available = (await this.availableTools(space.id, em)).filter((t) => t.providerId === providerId);
      return toSpaceToolProviderResponse(
        provider,
        enablement,
        available.map((t) => t.namespacedName),
      );
    });
  }

  /**
   * The space tool availability rule: the provider is active and enabled for
   * the space, the tool is enabled, its risk level is `read`, and it is in
   * the space's allowlist when one is set. Sorted by namespaced name.
   */
  async availableTools(
    spaceId: string,
    em: EntityManager = this.providers.manager,
  ): Promise<AvailableTool[]> {
    const rows = await this.availability(em, spaceId)
      .select(['t.id AS id', 't.providerId AS provider_id', 't.toolName AS tool_name', 'p.slug AS slug'])
      .addSelect(['t.capabilityId AS capability_id', 't.capabilityCompatible AS capability_compatible'])
      .getRawMany<{
        id: string;
        provider_id: string;
        tool_name: string;
        slug: string;
        capability_id: string | null;
        capability_compatible: boolean | null;
      }>();
    return rows
      .map((r) => ({
        providerToolId: r.id,
        providerId: r.provider_id,
        toolName: r.tool_name,
        namespacedName: namespacedName(r.slug, r.tool_name),
        capabilityId: r.capability_id,
        capabilityCompatible: r.capability_compatible,
      }))
      .sort((a, b) =>
        a.namespacedName < b.namespacedName ? -1 : a.namespacedName > b.namespacedName ? 1 : 0,
      );
  }

  /** Whether one tool is available in the space under the availability rule. */
  async isAvailable(spaceId: string, providerToolId: string, em: EntityManager): Promise<boolean> {
    return this.availability(em, spaceId).andWhere('t.id = :providerToolId', { providerToolId }).getExists();
  }

  private availability(em: EntityManager, spaceId: string) {
    return em
      .getRepository(ProviderTool)
      .createQueryBuilder('t')
      .innerJoin(ToolProvider, 'p', 'p.id = t.providerId')
      .innerJoin(SpaceToolEnablement, 'e', 'e.providerId = t.providerId AND e.spaceId = :spaceId', {
        spaceId,
      })
      .where(AVAILABLE);
  }

  /** Raw names for an allowlist given raw or namespaced; 400 naming the first the provider does not list. */
  private async rawNames(em: EntityManager, provider: ToolProvider, names: string[]): Promise<string[]> {
    const known = new Set(
      (
        await em
          .getRepository(ProviderTool)
          .find({ select: { toolName: true }, where: { providerId: provider.id } })
      ).map((t) => t.toolName),
    );
    const prefix = `${provider.slug}.`;
    const raw: string[] = [];
    for (const name of names) {
      const candidate = known.has(name) ? name : name.startsWith(prefix) ? name.slice(prefix.length) : name;
      if (!known.has(candidate)) {
        throw InvalidToolConfig.field(
          'allowed_tool_names',
          `allowed_tool_names names a tool the provider does not list: ${name}.`,
        );
      }
      if (!raw.includes(candidate)) raw.push(candidate);
    }
    return raw;
  }
}
