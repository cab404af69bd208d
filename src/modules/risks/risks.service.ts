import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import { SpaceAccess, SpaceAccessPort } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import type { DomainEventType } from '../../platform/outbox/event-map';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import {
  CreateRiskDto,
  HEAT_MAP_IDS_DEFAULT,
  HeatMapQuery,
  LinkProductsDto,
  ListRisksQuery,
  RiskResponse,
  RiskTemplateResponse,
  UpdateRiskDto,
} from './dto/risk.dto';
import { RiskProduct } from './entities/risk-product.entity';
import { Risk } from './entities/risk.entity';
import {
  Impact,
  Likelihood,
  RISK_TEMPLATES,
  RiskCategory,
  RiskStatus,
  riskScore,
  riskTier,
} from './risk-scoring';
import { HEAT_MAP_CELLS, riskEventData, toRiskResponse } from './risks.mapper';
import { RiskQueries } from './risks.queries';

/** The risk register of a space: scored risks, their links to products, the heat map. */
@Injectable()
export class RisksService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly access: SpaceAccessPort,
    private readonly products: ProductDirectoryService,
    private readonly outbox: OutboxService,
    private readonly audit: AuditService,
    private readonly queries: RiskQueries,
  ) {}

  async create(actor: Actor, access: SpaceAccess, dto: CreateRiskDto): Promise<RiskResponse> {
    const spaceId = access.space.id;
    return this.tx.run(async (em) => {
      const repo = em.getRepository(Risk);
      const likelihood = dto.likelihood as Likelihood;
      const impact = dto.impact as Impact;
      const score = riskScore(likelihood, impact);
      const risk = await repo.save(
        repo.create({
          spaceId,
          title: dto.title,
          description: dto.description ?? null,
          category: dto.category as RiskCategory,
          likelihood,
          impact,
          score,
          tier: riskTier(score),
          status: 'identified',
          mitigationPlan: dto.mitigation_plan ?? null,
          ownerId: null,
          reviewDate: null,
          createdBy: actor.userId,
        }),
      );
      const response = toRiskResponse(risk, []);
      await this.publish(em, actor, 'risk.created', response);
      return response;
    });
  }

  async list(access: SpaceAccess, query: ListRisksQuery): Promise<Page<RiskResponse>> {
    const qb = this.dataSource
      .getRepository(Risk)
      .createQueryBuilder('r')
      .where('r.spaceId = :spaceId', { spaceId: access.space.id });
    if (query.category) qb.andWhere('r.category = :category', { category: query.category });
    if (query.status) qb.andWhere('r.status = :status', { status: query.status });
    if (query.tier) qb.andWhere('r.tier = :tier', { tier: query.tier });
    if (query.product_id) {
      qb.andWhere(
        'EXISTS (SELECT 1 FROM risk_products rp WHERE rp.risk_id = r.id AND rp.product_id = :productId)',
        {
          productId: query.product_id,
        },
      );
    }
    const [risks, total] = await qb
      .orderBy('r.createdAt', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .skip(query.offset ?? 0)
      .take(query.limit ?? 50)
      .getManyAndCount();
    const links = await this.productIdsOf(
      this.dataSource.manager,
      risks.map((r) => r.id),
    );
    return { items: risks.map((r) => toRiskResponse(r, links.get(r.id) ?? [])), total };
  }

  async get(access: SpaceAccess, riskId: string): Promise<RiskResponse> {
    return this.load(this.dataSource.manager, access.space.id, riskId);
  }

  async update(actor: Actor, access: SpaceAccess, riskId: string, dto: UpdateRiskDto): Promise<RiskResponse> {
    const spaceId = access.space.id;
    return this.tx.run(async (em) => {
      const risk = await this.lock(em, spaceId, riskId);
      if (dto.owner_id) {
        const members = await this.access.membersAmong(em, spaceId, [dto.owner_id]);
        if (!members.has(dto.owner_id)) {
          throw ValidationFailed.field('owner_id', 'owner_id must name a member of the space.');
        }
      }
      const changed: string[] = [];
      const assign = <K extends keyof Risk>(key: K, value: Risk[K] | undefined, field: string) => {
        if (value === undefined || risk[key] === value) return;
        risk[key] = value;
        changed.push(field);
      };
      assign('title', dto.title, 'title');
      assign('description', dto.description, 'description');
      assign('category', dto.category as RiskCategory | undefined, 'category');
      assign('likelihood', dto.likelihood as Likelihood | undefined, 'likelihood');
      assign('impact', dto.impact as Impact | undefined, 'impact');
      assign('mitigationPlan', dto.mitigation_plan, 'mitigation_plan');
      assign('status', dto.status as RiskStatus | undefined, 'status');
      assign('ownerId', dto.owner_id, 'owner_id');
      assign('reviewDate', dto.review_date, 'review_date');
      if (!changed.length) return this.load(em, spaceId, riskId);
      risk.score = riskScore(risk.likelihood, risk.impact);
      risk.tier = riskTier(risk.score);
      risk.updatedAt = new Date();
      await em.getRepository(Risk).save(risk);
      const response = await this.load(em, spaceId, riskId);
      await this.publish(em, actor, 'risk.updated', response, changed);
      return response;
    });
  }

  async delete(actor: Actor, access: SpaceAccess, riskId: string): Promise<void> {
    const spaceId = access.space.id;
    await this.tx.run(async (em) => {
      await this.lock(em, spaceId, riskId);
      const response = await this.load(em, spaceId, riskId);
      await em.getRepository(Risk).delete(riskId);
      await this.publish(em, actor, 'risk.deleted', response);
    });
  }

  async linkProducts(
    actor: Actor,
    access: SpaceAccess,
    riskId: string,
    dto: LinkProductsDto,
  ): Promise<RiskResponse> {
    const spaceId = access.space.id;
    return this.tx.run(async (em) => {
      await this.lock(em, spaceId, riskId);
      const wanted = [...new Set(dto.product_ids)];
      const found = new Set((await this.products.namesOf(em, wanted, spaceId)).map((p) => p.id));
      const missing = wanted.filter((id) => !found.has(id));
      if (missing.length) {
        throw ValidationFailed.field(
          'product_ids',
          `product_ids must name products of this space; not found: ${missing.join(', ')}.`,
        );
      }
      const added = await this.queries.linkProducts(em, riskId, wanted);
      const response = await this.load(em, spaceId, riskId);
      if (added.length) await this.publish(em, actor, 'risk.updated', response, ['product_ids']);
      return response;
    });
  }

  async unlinkProduct(actor: Actor, access: SpaceAccess, riskId: string, productId: string): Promise<void> {
    const spaceId = access.space.id;
    await this.tx.run(async (em) => {
      await this.lock(em, spaceId, riskId);
      const result = await em.getRepository(RiskProduct).delete({ riskId, productId });
      if (!result.affected) throw new NotFound('product linked to this risk', productId);
      await this.publish(em, actor, 'risk.updated', await this.load(em, spaceId, riskId), ['product_ids']);
    });
  }

  /**
   * The heat map as JSON text (the shape of HeatMapResponse), encoded by the
   * database: all 25 cells, or the one cell of `likelihood` and `impact`.
   */
  async heatMapDocument(access: SpaceAccess, query: HeatMapQuery): Promise<string> {
    if ((query.likelihood === undefined) !== (query.impact === undefined)) {
      const missing = query.likelihood === undefined ? 'likelihood' : 'impact';
      throw ValidationFailed.field(
        missing,
        `${missing} is required with ${missing === 'impact' ? 'likelihood' : 'impact'}.`,
      );
    }
    const cells =
      query.likelihood !== undefined && query.impact !== undefined
        ? [{ likelihood: query.likelihood, impact: query.impact }]
        : HEAT_MAP_CELLS;
    return this.queries.heatMapJson(access.space.id, cells, {
      offset: query.offset ?? 0,
      limit: query.limit ?? HEAT_MAP_IDS_DEFAULT,
    });
  }

  templates(): RiskTemplateResponse[] {
    return RISK_TEMPLATES;
  }

  // For reports.

  /** Every risk of the space, highest score first. */
  async allInSpace(spaceId: string): Promise<RiskResponse[]> {
    const risks = await this.dataSource
      .getRepository(Risk)
      .createQueryBuilder('r')
      .where('r.spaceId = :spaceId', { spaceId })
      .orderBy('r.score', 'DESC')
      .addOrderBy('r.createdAt', 'ASC')
      .getMany();
    const links = await this.productIdsOf(
      this.dataSource.manager,
      risks.map((r) => r.id),
    );
    return risks.map((r) => toRiskResponse(r, links.get(r.id) ?? []));
  }

  private async lock(em: EntityManager, spaceId: string, riskId: string): Promise<Risk> {
    const risk = await em
      .getRepository(Risk)
      .findOne({ where: { id: riskId, spaceId }, lock: { mode: 'pessimistic_write' } });
    if (!risk) throw new NotFound('risk', riskId);
    return risk;
  }

  private async load(em: EntityManager, spaceId: string, riskId: string): Promise<RiskResponse> {
    const risk = await em.getRepository(Risk).findOneBy({ id: riskId, spaceId });
    if (!risk) throw new NotFound('risk', riskId);
    const links = await this.productIdsOf(em, [risk.id]);
    return toRiskResponse(risk, links.get(risk.id) ?? []);
  }

  private async productIdsOf(em: EntityManager, riskIds: string[]): Promise<Map<string, string[]>> {
    const byRisk = new Map<string, string[]>();
    if (!riskIds.length) return byRisk;
    const rows = await this.queries.productLinks(em, riskIds);
    for (const row of rows) byRisk.set(row.risk_id, [...(byRisk.get(row.risk_id) ?? []), row.product_id]);
    return byRisk;
  }

  private async publish(
    em: EntityManager,
    actor: Actor,
    type: Extract<DomainEventType, `risk.${string}`>,
    risk: RiskResponse,
    changed: string[] = [],
  ): Promise<void> {
    const data = riskEventData(risk);
    if (type === 'risk.updated') {
      await this.outbox.append(em, {
        type,
        spaceId: risk.space_id,
        actorId: actor.userId,
        data: { ...data, changed },
      });
    } else {
      await this.outbox.append(em, { type, spaceId: risk.space_id, actorId: actor.userId, data });
    }
    await this.audit.record(em, actor, {
      action: type,
      resourceType: 'risk',
      resourceId: risk.id,
      spaceId: risk.space_id,
      details:
        type === 'risk.updated' ? { title: risk.title, changed } : { title: risk.title, tier: risk.tier },
    });
  }
}
