import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import {
  CreatePolicyDto,
  ListPoliciesQuery,
  PolicyResponse,
  PolicyTemplateResponse,
  UpdatePolicyDto,
} from './dto/policy.dto';
import { PolicyEvaluation } from './entities/policy-evaluation.entity';
import { Policy, PolicySeverity, PolicyType } from './entities/policy.entity';
import { InvalidRule, PolicyNameTaken } from './policies.errors';
import { toPolicyResponse } from './policies.mapper';
import { PolicyEvaluator } from './policy-evaluator.service';
import { checkRule } from './policy-rules';
import { POLICY_TEMPLATES } from './policy-templates';

export const EVALUATE_POLICY_JOB = 'policies.evaluate';

/** Policies of a space: their rules, switches and archive state. */
@Injectable()
export class PoliciesService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobRunner,
    private readonly evaluator: PolicyEvaluator,
    private readonly audit: AuditService,
  ) {}

  onModuleInit(): void {
    // A new, changed, re-enabled or unarchived policy is evaluated in the background at once.
    this.jobs.register(
      EVALUATE_POLICY_JOB,
      (payload) =>
        this.tx.run(async (em) => {
          const policy = await em
            .getRepository(Policy)
            .findOne({ where: { id: payload.policy_id }, lock: { mode: 'pessimistic_write' } });
          if (policy && policy.isEnabled && !policy.isArchived) {
            await this.evaluator.runSpace(em, policy.spaceId, [policy]);
          }
        }),
      { maxAttempts: 5 },
    );
  }

  async create(actor: Actor, access: SpaceAccess, dto: CreatePolicyDto): Promise<PolicyResponse> {
    assertRule(dto.rule_expression);
    const spaceId = access.space.id;
    return this.tx.run(async (em) => {
      await this.assertNameFree(em, spaceId, dto.name);
      const repo = em.getRepository(Policy);
      const policy = await repo.save(
        repo.create({
          spaceId,
          name: dto.name,
          description: dto.description ?? null,
          policyType: dto.policy_type as PolicyType,
          ruleExpression: dto.rule_expression,
          severity: dto.severity as PolicySeverity,
          isEnabled: dto.is_enabled ?? true,
          isArchived: false,
          archivedAt: null,
          lastEvaluatedAt: null,
          createdBy: actor.userId,
        }),
      );
      if (policy.isEnabled) await this.scheduleEvaluation(em, policy);
      await this.record(em, actor, 'policy.created', policy);
      return toPolicyResponse(policy);
    });
  }

  async list(access: SpaceAccess, query: ListPoliciesQuery): Promise<Page<PolicyResponse>> {
    const qb = this.dataSource
      .getRepository(Policy)
      .createQueryBuilder('p')
      .where('p.spaceId = :spaceId', { spaceId: access.space.id });
    if (!query.include_archived) qb.andWhere('p.isArchived = false');
    if (query.policy_type) qb.andWhere('p.policyType = :type', { type: query.policy_type });
    if (query.is_enabled !== undefined) qb.andWhere('p.isEnabled = :enabled', { enabled: query.is_enabled });
    const [policies, total] = await qb
      .orderBy('lower(p.name)', 'ASC')
      .skip(query.skip ?? 0)
      .take(query.limit ?? 50)
      .getManyAndCount();
    return { items: policies.map(toPolicyResponse), total };
  }

  async get(access: SpaceAccess, policyId: string): Promise<PolicyResponse> {
    return toPolicyResponse(await this.find(this.dataSource.manager, access.space.id, policyId));
  }

  async update(
    actor: Actor,
    access: SpaceAccess,
    policyId: string,
    dto: UpdatePolicyDto,
  ): Promise<PolicyResponse> {
    if (dto.rule_expression !== undefined) assertRule(dto.rule_expression);
    const spaceId = access.space.id;
    return this.tx.run(async (em) => {
      const policy = await this.find(em, spaceId, policyId, true);
      if (dto.name !== undefined && dto.name.toLowerCase() !== policy.name.toLowerCase()) {
        await this.assertNameFree(em, spaceId, dto.name);
      }
      const ruleChanged = dto.rule_expression !== undefined && dto.rule_expression !== policy.ruleExpression;
      const enabled = dto.is_enabled === true && !policy.isEnabled;
      policy.name = dto.name ?? policy.name;
      if (dto.description !== undefined) policy.description = dto.description;
      policy.policyType = (dto.policy_type as PolicyType | undefined) ?? policy.policyType;
      policy.ruleExpression = dto.rule_expression ?? policy.ruleExpression;
      policy.severity = (dto.severity as PolicySeverity | undefined) ?? policy.severity;
      policy.isEnabled = dto.is_enabled ?? policy.isEnabled;
      if (ruleChanged) {
        // Outcomes of the old rule say nothing about the new one.
        await em.getRepository(PolicyEvaluation).delete({ policyId: policy.id });
        policy.lastEvaluatedAt = null;
      }
      policy.updatedAt = new Date();
      await em.getRepository(Policy).save(policy);
      if ((ruleChanged || enabled) && policy.isEnabled && !policy.isArchived) {
        await this.scheduleEvaluation(em, policy);
      }
      await this.record(em, actor, 'policy.updated', policy);
      return toPolicyResponse(policy);
    });
  }

  async delete(actor: Actor, access: SpaceAccess, policyId: string): Promise<void> {
    await this.tx.run(async (em) => {
      const policy = await this.find(em, access.space.id, policyId, true);
      await em.getRepository(Policy).delete(policy.id);
      await this.record(em, actor, 'policy.deleted', policy);
    });
  }

  async setArchived(
    actor: Actor,
    access: SpaceAccess,
    policyId: string,
    archived: boolean,
  ): Promise<PolicyResponse> {
    return this.tx.run(async (em) => {
      const policy = await this.find(em, access.space.id, policyId, true);
      if (policy.isArchived !== archived) {
        policy.isArchived = archived;
        policy.archivedAt = archived ? new Date() : null;
        policy.updatedAt = new Date();
        await em.getRepository(Policy).save(policy);
        if (!archived && policy.isEnabled) await this.scheduleEvaluation(em, policy);
        await this.record(em, actor, archived ? 'policy.archived' : 'policy.unarchived', policy);
      }
      return toPolicyResponse(policy);
    });
  }

  templates(): PolicyTemplateResponse[] {
    return POLICY_TEMPLATES;
  }

  /** The policy of the space, or 404. */
  async find(em: EntityManager, spaceId: string, policyId: string, lock = false): Promise<Policy> {
    const policy = await em.getRepository(Policy).findOne({
      where: { id: policyId, spaceId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!policy) throw new NotFound('policy', policyId);
    return policy;
  }

  // One job per version of the policy: a change made while an older version is being evaluated still gets its run.
  private async scheduleEvaluation(em: EntityManager, policy: Policy): Promise<void> {
    await this.jobs.enqueue(
      em,
      EVALUATE_POLICY_JOB,
      { policy_id: policy.id },
      { singletonKey: `policy-evaluate:${policy.id}:${policy.updatedAt.getTime()}` },
    );
  }

  private async assertNameFree(em: EntityManager, spaceId: string, name: string): Promise<void> {
    const taken = await em
      .getRepository(Policy)
      .createQueryBuilder('p')
      .where('p.spaceId = :spaceId AND lower(p.name) = lower(:name)', { spaceId, name })
      .getExists();
    if (taken) throw new PolicyNameTaken(name);
  }

  private async record(em: EntityManager, actor: Actor, action: string, policy: Policy): Promise<void> {
    await this.audit.record(em, actor, {
      action,
      resourceType: 'policy',
      resourceId: policy.id,
      spaceId: policy.spaceId,
      details: { name: policy.name, rule_expression: policy.ruleExpression },
    });
  }
}

function assertRule(expression: string): void {
  const problem = checkRule(expression);
  if (problem) throw new InvalidRule(problem);
}
