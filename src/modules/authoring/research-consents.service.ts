import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound } from '../../common/errors/domain-error';
import { TransactionRunner } from '../../database/transaction.runner';
import { GrantScope, ToolGrantsService } from '../tool-providers/tool-grants.service';
import { ConsentAlreadyDecided, ConsentExpired } from './authoring.errors';
import { effectiveConsentStatus, toConsentResponse } from './authoring.mapper';
import type { ConsentResponse } from './dto/authoring.dto';
import { WebSearchConsent } from './entities/web-search-consent.entity';
import { CONSENT_LIFETIME_MS } from './web-research-rules';

/**
 * Consent interactions for the web-research facade: asked without
 * contacting the provider, decided only by the user who asked, and turned
 * into a 24-hour external-research grant on approval (the grant is
 * tool-providers', created through its exported ToolGrantsService).
 */
@Injectable()
export class ResearchConsentsService {
  constructor(
    @InjectRepository(WebSearchConsent) private readonly consents: Repository<WebSearchConsent>,
    private readonly grants: ToolGrantsService,
    private readonly tx: TransactionRunner,
  ) {}

  /**
   * The pending, unexpired consent for exactly this scope, or a new one. The
   * caller holds the task's row lock, so two searches cannot both ask.
   */
  async findOrAsk(em: EntityManager, scope: GrantScope, taskId: string): Promise<ConsentResponse> {
    const now = Date.now();
    const repository = em.getRepository(WebSearchConsent);
    const pending = await repository
      .createQueryBuilder('c')
      .where('c.rootTaskId = :rootTaskId AND c.userId = :userId AND c.bindingId = :bindingId', scope)
      .andWhere('c.providerId = :providerId AND c.spaceId = :spaceId', scope)
      .andWhere('c.definitionId IS NOT DISTINCT FROM CAST(:definitionId AS uuid)', {
        definitionId: scope.definitionId,
      })
      .andWhere("c.status = 'pending' AND c.expiresAt > :now", { now: new Date(now) })
      .orderBy('c.createdAt', 'DESC')
      .getOne();
    if (pending) return toConsentResponse(pending, now);
    const inserted = await repository.insert({
      ...scope,
      taskId,
      status: 'pending',
      expiresAt: new Date(now + CONSENT_LIFETIME_MS),
      decidedAt: null,
    });
    const id = inserted.identifiers[0].id as string;
    return toConsentResponse(await repository.findOneByOrFail({ id }), now);
  }

  async get(actor: Actor, id: string): Promise<ConsentResponse> {
    const consent = await this.consents.findOneBy({ id, userId: actor.userId });
    if (!consent) throw new NotFound('consent', id);
    return toConsentResponse(consent, Date.now());
  }

  /**
   * Approves a pending consent and grants its scope for 24 hours from now.
   * Only the consent's own user may (others 404); a decided one is 409, an
   * expired one is 409 too (ask again by searching).
   */
  async approve(actor: Actor, id: string): Promise<ConsentResponse> {
    return this.decide(actor, id, async (em, consent, now) => {
      consent.status = 'approved';
      consent.expiresAt = new Date(now + CONSENT_LIFETIME_MS);
      await this.grants.grant(
        em,
        {
          userId: consent.userId,
          spaceId: consent.spaceId,
          definitionId: consent.definitionId,
          rootTaskId: consent.rootTaskId,
          bindingId: consent.bindingId,
          providerId: consent.providerId,
        },
        consent.id,
        consent.expiresAt,
      );
    });
  }

  async reject(actor: Actor, id: string): Promise<ConsentResponse> {
    return this.decide(actor, id, async (_em, consent) => {
      consent.status = 'rejected';
    });
  }

  private decide(
    actor: Actor,
    id: string,
    apply: (em: EntityManager, consent: WebSearchConsent, now: number) => Promise<void>,
  ): Promise<ConsentResponse> {
    return this.tx.run(async (em) => {
      const consent = await em.getRepository(WebSearchConsent).findOne({
        where: { id, userId: actor.userId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!consent) throw new NotFound('consent', id);
      const now = Date.now();
      const status = effectiveConsentStatus(consent, now);
      if (status === 'expired') throw new ConsentExpired();
      if (status !== 'pending') throw new ConsentAlreadyDecided(status);
      await apply(em, consent, now);
      consent.decidedAt = new Date(now);
      await em.getRepository(WebSearchConsent).save(consent);
      return toConsentResponse(consent, now);
    });
  }
}
