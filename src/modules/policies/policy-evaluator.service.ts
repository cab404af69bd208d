import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { GovernedProduct, ProductDirectoryService } from '../catalog/product-directory.service';
import { QualityReadService } from '../quality/quality-read.service';
import type { EvaluationStatus } from './entities/policy-evaluation.entity';
import type { Policy } from './entities/policy.entity';
import { PolicyQueries } from './policies.queries';
import { CelProduct, CompiledRule, compileRule, RuleOutcome, toCelProduct } from './policy-rules';

const BATCH = 2_000;

export interface PolicyTally {
  compliant: number;
  non_compliant: number;
  errors: number;
}

export interface RunResult {
  totalProducts: number;
  evaluatedAt: Date;
  byPolicy: Map<string, PolicyTally>;
}

interface Compiled {
  policy: Policy;
  rule: CompiledRule;
}

interface Previous {
  status: EvaluationStatus;
  message: string | null;
}

/** How `policy.violated` is emitted by a run. */
type Emit = 'changes' | 'transitions';

/**
 * Evaluates policies over products in memory: products are read a batch at a
 * time (keyset pages of 2,000 with their people and open incident counts, three
 * queries per batch), every policy runs on the batch, and only outcomes that
 * differ from the stored ones are written, in one multi-row statement per batch.
 * Runs inside the caller's transaction.
 */
@Injectable()
export class PolicyEvaluator {
  constructor(
    private readonly products: ProductDirectoryService,
    private readonly quality: QualityReadService,
    private readonly outbox: OutboxService,
    private readonly queries: PolicyQueries,
  ) {}

  /**
   * Every product of the space against `policies`. A product that becomes
   * non-compliant after a recorded compliant or error outcome emits `policy.violated`
   * (first evaluations of a new policy do not: they would flood every owner).
   */
  async runSpace(em: EntityManager, spaceId: string, policies: Policy[]): Promise<RunResult> {
    const evaluatedAt = new Date();
    const compiled = policies.map(compile);
    const byPolicy = new Map(policies.map((p) => [p.id, { compliant: 0, non_compliant: 0, errors: 0 }]));
    let totalProducts = 0;
    let afterId: string | null = null;
    for (;;) {
      const products = await this.products.pageById(em, spaceId, afterId, BATCH);
      if (!products.length) break;
      afterId = products[products.length - 1].id;
      totalProducts += products.length;
      if (compiled.length) {
        await this.evaluateBatch(em, spaceId, compiled, products, evaluatedAt, byPolicy, 'transitions');
      }
      if (products.length < BATCH) break;
    }
    if (policies.length) {
      await this.queries.markEvaluated(
        em,
        policies.map((p) => p.id),
        evaluatedAt,
      );
    }
    return { totalProducts, evaluatedAt, byPolicy };
  }

  /**
   * Re-evaluates some products of the space (they changed) against its enabled,
   * unarchived policies; each that turns non-compliant emits `policy.violated`.
   */
  async runProducts(
    em: EntityManager,
    spaceId: string,
    productIds: string[],
    policies: Policy[],
  ): Promise<void> {
    if (!policies.length || !productIds.length) return;
    const products = await this.products.inSpace(em, spaceId, productIds);
    if (!products.length) return;
    const byPolicy = new Map(policies.map((p) => [p.id, { compliant: 0, non_compliant: 0, errors: 0 }]));
    await this.evaluateBatch(em, spaceId, policies.map(compile), products, new Date(), byPolicy, 'changes');
  }

  /** Evaluates without storing anything (dry runs). */
  async *outcomes(
    em: EntityManager,
    spaceId: string,
    ruleExpression: string,
  ): AsyncGenerator<{ product: GovernedProduct; outcome: RuleOutcome }> {
    const rule = compileRule(ruleExpression, 'The product does not satisfy the rule.');
    let cursor: string | null = null;
    do {
      const page = await this.products.page(em, spaceId, cursor, BATCH);
      cursor = page.cursor;
      const cel = await this.celProducts(em, page.items);
      for (let i = 0; i < page.items.length; i++)
        yield { product: page.items[i], outcome: rule.evaluate(cel[i]) };
    } while (cursor);
  }

  private async evaluateBatch(
    em: EntityManager,
    spaceId: string,
    compiled: Compiled[],
    products: GovernedProduct[],
    evaluatedAt: Date,
    byPolicy: Map<string, PolicyTally>,
    emit: Emit,
  ): Promise<void> {
    const cel = await this.celProducts(em, products);
    // Whole-space runs hand over id-ordered pages (see runSpace).
    const previous = await this.previousOutcomes(
      em,
      compiled.map((c) => c.policy.id),
      products.map((p) => p.id),
      emit === 'transitions',
    );
    const changes = {
      policyIds: [] as string[],
      productIds: [] as string[],
      statuses: [] as string[],
      messages: [] as (string | null)[],
    };
    const violated: {
      compiled: Compiled;
      product: GovernedProduct;
      before: Previous | undefined;
      message: string;
    }[] = [];
    for (let i = 0; i < products.length; i++) {
      const product = products[i];
      for (const c of compiled) {
        const outcome = c.rule.evaluate(cel[i]);
        const tally = byPolicy.get(c.policy.id)!;
        if (outcome.status === 'compliant') tally.compliant++;
        else if (outcome.status === 'non_compliant') tally.non_compliant++;
        else tally.errors++;
        const before = previous.get(`${c.policy.id}/${product.id}`);
        const changed = !before || before.status !== outcome.status || before.message !== outcome.message;
        if (changed || emit === 'changes') {
          changes.policyIds.push(c.policy.id);
          changes.productIds.push(product.id);
          changes.statuses.push(outcome.status);
          changes.messages.push(outcome.message);
        }
        const turnedNonCompliant = outcome.status === 'non_compliant' && before?.status !== 'non_compliant';
        if (turnedNonCompliant && (emit === 'changes' || before)) {
          violated.push({ compiled: c, product, before, message: outcome.message });
        }
      }
    }
    if (changes.policyIds.length) {
      await this.queries.upsertOutcomes(em, changes, evaluatedAt);
    }
    for (const v of violated) {
      await this.outbox.append(em, {
        type: 'policy.violated',
        spaceId,
        data: {
          policy_id: v.compiled.policy.id,
          policy_name: v.compiled.policy.name,
          severity: v.compiled.policy.severity,
          space_id: spaceId,
          product_id: v.product.id,
          product_name: v.product.name,
          previous_status: (v.before?.status as 'compliant' | 'error' | undefined) ?? null,
          message: v.message,
          evaluated_at: evaluatedAt.toISOString(),
        },
      });
    }
  }

  private async celProducts(em: EntityManager, products: GovernedProduct[]): Promise<CelProduct[]> {
    const open = await this.quality.openIncidentCounts(
      products.map((p) => p.id),
      em,
    );
    return products.map((p) => toCelProduct(p, open.get(p.id) ?? 0));
  }

  /**
   * The stored outcomes of these policies for the products. The products are an id-ordered
   * page in whole-space runs, so the rows are read as one id range per policy on the
   * (policy_id, product_id) key; otherwise each product is probed on (product_id, policy_id).
   */
  private async previousOutcomes(
    em: EntityManager,
    policyIds: string[],
    productIds: string[],
    idOrdered: boolean,
  ): Promise<Map<string, Previous>> {
    const wanted = new Set(productIds);
    const rows = await this.queries.storedOutcomes(em, policyIds, productIds, idOrdered);
    const previous = new Map<string, Previous>();
    for (const r of rows) {
      if (wanted.has(r.product_id))
        previous.set(`${r.policy_id}/${r.product_id}`, { status: r.status, message: r.message });
    }
    return previous;
  }
}

function compile(policy: Policy): Compiled {
  return {
    policy,
    rule: compileRule(policy.ruleExpression, `Violates "${policy.name}": ${policy.ruleExpression}`),
  };
}
