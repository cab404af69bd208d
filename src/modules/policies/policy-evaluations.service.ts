import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction-runner';
import { ProductReadModel } from '../catalog/product-read-model.service';
import { ProductsService } from '../catalog/products.service';
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
import { PoliciesService } from './policies.service';
import { PolicyEvaluator } from './policy-evaluator.service';
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
    private readonly products: ProductsService,
    private readonly productReads: ProductReadModel,
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
    const params: unknown[] = [policy.id, query.status ?? null];
    const rows = (await this.dataSource.query(
      `SELECT id, product_id, status, message, evaluated_at FROM policy_evaluations
        WHERE policy_id = $1 AND ($2::text IS NULL OR status = $2)
        ORDER BY array_position(ARRAY['non_compliant', 'error', 'compliant'], status), evaluated_at DESC, id
        OFFSET $3 LIMIT $4`,
      [...params, query.skip ?? 0, query.limit ?? 50],
    )) as { id: string; product_id: string; status: string; message: string | null; evaluated_at: Date }[];
    const [{ total }] = (await this.dataSource.query(
      `SELECT count(*)::int AS total FROM policy_evaluations WHERE policy_id = $1 AND ($2::text IS NULL OR status = $2)`,
      params,
    )) as { total: number }[];
    const names = new Map(
      (
        await this.products.namesOf(
          rows.map((r) => r.product_id),
          this.dataSource.manager,
          access.space.id,
        )
      ).map((p) => [p.id, p.name]),
    );
    return {
      items: rows.map((r) => ({
        id: r.id,
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
    const policies = (await this.dataSource.query(
      `SELECT p.id, p.name, p.severity, p.is_enabled,
              count(e.id) FILTER (WHERE e.status = 'compliant')::int AS compliant,
              count(e.id) FILTER (WHERE e.status = 'non_compliant')::int AS violations
         FROM policies p LEFT JOIN policy_evaluations e ON e.policy_id = p.id AND p.is_enabled
        WHERE p.space_id = $1 AND NOT p.is_archived
        GROUP BY p.id ORDER BY lower(p.name)`,
      [spaceId],
    )) as {
      id: string;
      name: string;
      severity: string;
      is_enabled: boolean;
      compliant: number;
      violations: number;
    }[];
    const [products] = (await this.dataSource.query(
      `SELECT count(DISTINCT e.product_id) FILTER (WHERE e.status = 'non_compliant')::int AS non_compliant,
              count(DISTINCT e.product_id) FILTER (WHERE e.status IN ('non_compliant', 'error'))::int AS flagged
         FROM policy_evaluations e JOIN policies p ON p.id = e.policy_id
        WHERE p.space_id = $1 AND p.is_enabled AND NOT p.is_archived`,
      [spaceId],
    )) as { non_compliant: number; flagged: number }[];
    const totalProducts = await this.productReads.count(spaceId, this.dataSource.manager);
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
    const [product] = await this.products.namesOf([productId], this.dataSource.manager, access.space.id);
    if (!product) throw new NotFound('product', productId);
    const rows = (await this.dataSource.query(
      `SELECT p.id AS policy_id, p.name AS policy_name, p.severity, e.message,
              greatest(e.evaluated_at, p.last_evaluated_at) AS evaluated_at
         FROM policy_evaluations e JOIN policies p ON p.id = e.policy_id
        WHERE e.product_id = $1 AND e.status = 'non_compliant' AND p.space_id = $2 AND p.is_enabled AND NOT p.is_archived
        ORDER BY array_position(ARRAY['critical', 'high', 'medium', 'low'], p.severity), lower(p.name)`,
      [productId, access.space.id],
    )) as (Omit<ViolationResponse, 'evaluated_at'> & { evaluated_at: Date })[];
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
    for await (const { product, outcome } of this.evaluator.outcomes(access.space.id, dto.rule_expression)) {
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
    const rows = (await this.dataSource.query(
      `SELECT p.name AS policy_name, p.severity, e.product_id, e.message,
              greatest(e.evaluated_at, p.last_evaluated_at) AS evaluated_at
         FROM policy_evaluations e JOIN policies p ON p.id = e.policy_id
        WHERE p.space_id = $1 AND p.is_enabled AND NOT p.is_archived AND e.status = 'non_compliant'
        ORDER BY array_position(ARRAY['critical', 'high', 'medium', 'low'], p.severity), lower(p.name), e.product_id
        LIMIT 10000`,
      [spaceId],
    )) as {
      policy_name: string;
      severity: string;
      product_id: string;
      message: string | null;
      evaluated_at: Date;
    }[];
    const names = new Map(
      (
        await this.products.namesOf(
          [...new Set(rows.map((r) => r.product_id))],
          this.dataSource.manager,
          spaceId,
        )
      ).map((p) => [p.id, p.name]),
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
