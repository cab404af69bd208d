import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import {
  ComplianceSummaryResponse,
  DryRunFinding,
  DryRunPolicyDto,
  DryRunResponse,
  EvaluateAllResponse,
  EvaluateResponse,
  EvaluationResponse,
  ListEvaluationsQuery,
  PolicyCompliance,
  ViolationResponse,
} from './dto/policy.dto';
import { Policy, POLICY_SEVERITIES } from './entities/policy.entity';
import { InvalidRule } from './policies.errors';
import { PolicyQueries } from './policies.queries';
import { PoliciesService } from './policies.service';
import { PolicyEvaluator } from './policy-evaluator.service';
import { policyOutcomeId } from './policy-outcome-id';
import { checkRule } from './policy-rules';

const DRY_RUN_FINDINGS = 1_000;

/** Evaluation runs and what they found: per policy, per product, per space. */
@Injectable()
export class PolicyEvaluationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly policies: PoliciesService,
    private readonly evaluator: PolicyEvaluator,
    private readonly products: ProductDirectoryService,
    private readonly queries: PolicyQueries,
  ) {}

  async evaluate(_actor: Actor, access: SpaceAccess, policyId: string): Promise<EvaluateResponse> {
    return this.tx.run(async (em) => {
      const policy = await this.policies.find(em, access.space.id, policyId, true);
      const run = await this.evaluator.runSpace(em, access.space.id, [policy]);
      const tally = run.byPolicy.get(policy.id)!;
      return {
        policy_id: policy.id,
        total_products_evaluated: run.totalProducts,
        compliant: tally.compliant,
        violations_found: tally.non_compliant,
        errors: tally.errors,
        evaluated_at: run.evaluatedAt.toISOString(),
      };
    });
  }

  async evaluateAll(_actor: Actor, access: SpaceAccess): Promise<EvaluateAllResponse> {
    return this.tx.run(async (em) => {
      const policies = await em
        .getRepository(Policy)
        .createQueryBuilder('p')
        .where('p.spaceId = :spaceId AND p.isEnabled AND NOT p.isArchived', { spaceId: access.space.id })
        .orderBy('p.id')
        .setLock('pessimistic_write')
        .getMany();
      const run = await this.evaluator.runSpace(em, access.space.id, policies);
      let violations = 0;
      let errors = 0;
      for (const tally of run.byPolicy.values()) {
        violations += tally.non_compliant;
        errors += tally.errors;
      }
      return {
        policies_evaluated: policies.length,
        total_products_evaluated: run.totalProducts,
        violations_found: violations,
        errors,
        evaluated_at: run.evaluatedAt.toISOString(),
      };
    });
  }

  async evaluations(
    access: SpaceAccess,
    policyId: string,
    query: ListEvaluationsQuery,
  ): Promise<Page<EvaluationResponse>> {
    const policy = await this.policies.find(this.dataSource.manager, access.space.id, policyId);
    const em = this.dataSource.manager;
    const status = query.status ?? null;
    const rows = await this.queries.evaluationsPage(
      em,
      policy.id,
      status,
      query.skip ?? 0,
      query.limit ?? 50,
    );
    const total = await this.queries.countEvaluations(em, policy.id, status);
    const names = new Map(
      (
        await this.products.namesOf(
          em,
          rows.map((r) => r.product_id),
          access.space.id,
        )
      ).map((p) => [p.id, p.name]),
    );
    return {
      items: rows.map((r) => ({
        id: r.id ?? policyOutcomeId(policy.id, r.product_id),
        policy_id: policy.id,
        product_id: r.product_id,
        product_name: names.get(r.product_id) ?? '',
        status: r.status,
        message: r.message,
        evaluated_at: latest(r.evaluated_at, policy.lastEvaluatedAt).toISOString(),
      })),
      total,
    };
  }

  async complianceSummary(access: SpaceAccess): Promise<ComplianceSummaryResponse> {
    return this.summaryOf(access.space.id);
  }

  /** For reports: the compliance summary of a space. */
  async summaryOf(spaceId: string): Promise<ComplianceSummaryResponse> {
    const policies = await this.queries.complianceByPolicy(this.dataSource.manager, spaceId);
    const products = await this.queries.productCounts(this.dataSource.manager, spaceId);
    const totalProducts = await this.products.count(this.dataSource.manager, spaceId);
    const enabled = policies.filter((p) => p.is_enabled);
    const byPolicy: PolicyCompliance[] = enabled.map((p) => ({
      policy_id: p.id,
      name: p.name,
      severity: p.severity,
      compliant: p.compliant,
      violations: p.violations,
    }));
    const bySeverity = Object.fromEntries(
      POLICY_SEVERITIES.map((severity) => {
        const of = byPolicy.filter((p) => p.severity === severity);
        return [severity, { policies: of.length, violations: of.reduce((n, p) => n + p.violations, 0) }];
      }),
    ) as unknown as ComplianceSummaryResponse['by_severity'];
    const compliant = Math.max(0, totalProducts - products.flagged);
    return {
      total_policies: policies.length,
      enabled_policies: enabled.length,
      total_products: totalProducts,
      compliant_products: compliant,
      non_compliant_products: products.non_compliant,
      compliance_rate: totalProducts ? Math.round((compliant / totalProducts) * 10_000) / 100 : 100,
      by_severity: bySeverity,
      by_policy: byPolicy,
    };
  }

  async productViolations(access: SpaceAccess, productId: string): Promise<ViolationResponse[]> {
    const em = this.dataSource.manager;
    const [product] = await this.products.namesOf(em, [productId], access.space.id);
    if (!product) throw new NotFound('product', productId);
    const rows = await this.queries.productViolations(em, access.space.id, productId);
    return rows.map((r) => ({ ...r, evaluated_at: r.evaluated_at.toISOString() }));
  }

  async dryRun(_actor: Actor, access: SpaceAccess, dto: DryRunPolicyDto): Promise<DryRunResponse> {
    const problem = checkRule(dto.rule_expression);
    if (problem) throw new InvalidRule(problem);
    const result: DryRunResponse = {
      total_products_evaluated: 0,
      compliant: 0,
      violations_found: 0,
      errors: 0,
      findings: [],
      truncated: false,
    };
    for await (const { product, outcome } of this.evaluator.outcomes(
      this.dataSource.manager,
      access.space.id,
      dto.rule_expression,
    )) {
      result.total_products_evaluated++;
      if (outcome.status === 'compliant') {
        result.compliant++;
        continue;
      }
      if (outcome.status === 'non_compliant') result.violations_found++;
      else result.errors++;
      const finding: DryRunFinding = {
        product_id: product.id,
        product_name: product.name,
        status: outcome.status,
        message: outcome.message,
      };
      if (result.findings.length < DRY_RUN_FINDINGS) result.findings.push(finding);
      else result.truncated = true;
    }
    return result;
  }

  /** For reports: the latest violations of the space's enabled, unarchived policies. */
  async violationsInSpace(spaceId: string): Promise<
    {
      policy_name: string;
      severity: string;
      product_id: string;
      product_name: string;
      message: string | null;
      evaluated_at: string;
    }[]
  > {
    const em = this.dataSource.manager;
    const rows = await this.queries.violationsInSpace(em, spaceId);
    const names = new Map(
      (await this.products.namesOf(em, [...new Set(rows.map((r) => r.product_id))], spaceId)).map((p) => [
        p.id,
        p.name,
      ]),
    );
    return rows.map((r) => ({
      ...r,
      product_name: names.get(r.product_id) ?? '',
      evaluated_at: r.evaluated_at.toISOString(),
    }));
  }
}

function latest(a: Date, b: Date | null): Date {
  return b && b > a ? b : a;
}
