import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound } from '../../common/errors/domain-error';
import type { SpaceRef } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { WebSearchBindingResponse } from './dto/web-search-binding.dto';
import { CapabilityBinding } from './entities/capability-binding.entity';
import { ProviderTool } from './entities/provider-tool.entity';
import { WEB_SEARCH } from './provider-config';
import { SpaceToolsService } from './space-tools.service';
import { ToolGrantsService } from './tool-grants.service';
import { InvalidToolConfig } from './tool-providers.errors';
import { namespacedName } from './tool-providers.mapper';
import { Readiness, WebSearchReadinessService } from './web-search-readiness.service';

/**
 * The space's one web_search binding (which provider tool serves the
 * capability): read with its live readiness, bound, replaced and removed,
 * the grants of a replaced or removed binding revoked with it.
 */
@Injectable()
export class WebSearchBindingService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly audit: AuditService,
    private readonly spaceTools: SpaceToolsService,
    private readonly grants: ToolGrantsService,
    private readonly readiness: WebSearchReadinessService,
  ) {}

  /** The binding and every reason it fails closed, with a live health probe. */
  async get(spaceId: string): Promise<WebSearchBindingResponse> {
    return this.response(await this.readiness.checkLive(spaceId));
  }

  async put(actor: Actor, space: SpaceRef, providerToolId: string): Promise<WebSearchBindingResponse> {
    await this.tx.run(async (em) => {
      const tool = await em.getRepository(ProviderTool).findOneBy({ id: providerToolId });
      if (!tool) throw new NotFound('provider tool', providerToolId);
      if (tool.capabilityId !== WEB_SEARCH) {
        throw InvalidToolConfig.field(
          'provider_tool_id',
          "provider_tool_id names a tool without capability_id web_search (set it in the provider's tool_overrides).",
        );
      }
      if (tool.capabilityCompatible !== true) {
        throw InvalidToolConfig.field(
          'provider_tool_id',
          `provider_tool_id names a tool that is not web_search compatible: ${tool.capabilityValidationError}.`,
        );
      }
      if (!(await this.spaceTools.isAvailable(space.id, tool.id, em))) {
        throw InvalidToolConfig.field(
          'provider_tool_id',
          'provider_tool_id names a tool that is not available in this space: its provider must be active and enabled for the space, and the tool enabled, read-only and allowlisted.',
        );
      }
      const current = await this.find(em, space.id, true);
      if (current?.providerToolId === tool.id) return;
      if (current) await this.remove(em, current);
      const binding = await em.getRepository(CapabilityBinding).save(
        em.getRepository(CapabilityBinding).create({
          spaceId: space.id,
          capabilityId: WEB_SEARCH,
          providerToolId: tool.id,
          providerId: tool.providerId,
          createdBy: actor.userId,
        }),
      );
      await this.audit.record(em, actor, {
        action: 'space.web_search_bound',
        resourceType: 'capability_binding',
        resourceId: binding.id,
        spaceId: space.id,
        details: { provider_tool_id: tool.id, replaced_binding_id: current?.id ?? null },
      });
    });
    return this.get(space.id);
  }

  async delete(actor: Actor, space: SpaceRef): Promise<void> {
    await this.tx.run(async (em) => {
      const current = await this.find(em, space.id, true);
      if (!current) throw new NotFound('web_search binding');
      const revoked = await this.remove(em, current);
      await this.audit.record(em, actor, {
        action: 'space.web_search_unbound',
        resourceType: 'capability_binding',
        resourceId: current.id,
        spaceId: space.id,
        details: { grants_revoked: revoked },
      });
    });
  }

  private find(em: EntityManager, spaceId: string, lock = false): Promise<CapabilityBinding | null> {
    return em.getRepository(CapabilityBinding).findOne({
      where: { spaceId, capabilityId: WEB_SEARCH },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** Deletes a binding and revokes its grants; answers how many were revoked. */
  private async remove(em: EntityManager, binding: CapabilityBinding): Promise<number> {
    const revoked = await this.grants.revokeForBinding(em, binding.id);
    await em.getRepository(CapabilityBinding).delete(binding.id);
    return revoked;
  }

  private response(readiness: Readiness): WebSearchBindingResponse {
    const { bound, errors, checkedAt } = readiness;
    return {
      capability_id: WEB_SEARCH,
      binding_id: bound?.bindingId ?? null,
      provider_tool_id: bound?.tool.id ?? null,
      provider_id: bound?.provider.id ?? null,
      namespaced_name: bound ? namespacedName(bound.provider.slug, bound.tool.toolName) : null,
      healthy: errors.length === 0,
      readiness_errors: errors,
      checked_at: checkedAt,
      created_at: bound?.createdAt ?? null,
    };
  }
}
