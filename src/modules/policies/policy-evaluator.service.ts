import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { DomainEvent } from '../../platform/outbox/event-map';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { GovernedProduct, ProductDirectoryService } from '../catalog/product-directory.service';
import { QualityReadService } from '../quality/quality-read.service';
import type { EvaluationStatus } from './entities/policy-evaluation.entity';
import type { Policy } from './entities/policy.entity';
import { PolicyQueries } from './policies.queries';
import { CelProduct, CompiledRule, compileRule, RuleOutcome, toCelProduct } from './policy-rules';
import { compileRuleToSql } from './policy-sql';

const BATCH = 2_000;
/** evaluateCompiled binds $1-$4 itself. */
const SQL_FIRST_PARAM = 5;

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
  violationMessage: string;
}

interface Previous {
  status: EvaluationStatus;
  message: string | null;
}

/** How `policy.violated` is emitted by a run. */
type Emit = 'changes' | 'transitions';

/**
 * Evaluates policies over products. Whole-space runs compile each rule that
 * has an exact SQL equivalent (policy-sql.ts) into one statement that decides
 * every product of the space and writes only changed outcomes; the products
 * it cannot decide, and every other rule, go through the batched evaluator:
 * products read a batch at a time (keyset pages of 2,000 with their people and
 * open incident counts, three queries per batch), every policy run on the
 * batch in memory, and only outcomes that differ from the stored ones written,
 * in one multi-row statement per batch. Re-evaluating a few changed products
 * stays batched (a handful of rows; one statement per policy would cost
 * more). Runs inside the caller's transaction.
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
   * Every product of the space against `policies`, which the caller has
   * locked (FOR UPDATE) first: a policy's delete locks its row before the
   * space's outcome lock, so taking them in the other order could deadlock.
   * Holds the space's outcome lock exclusively until commit. A product that becomes
   * non-compliant after a recorded compliant or error outcome emits `policy.violated`
   * (first evaluations of a new policy do not: they would flood every owner).
   */
  async runSpace(em: EntityManager, spaceId: string, policies: Policy[]): Promise<RunResult> {
    await this.queries.lockOutcomesForSpaceRun(em, spaceId);
    const evaluatedAt = new Date();
    const byPolicy = new Map(policies.map((p) => [p.id, { compliant: 0, non_compliant: 0, errors: 0 }]));
    const batched: Compiled[] = [];
    let totalProducts: number | null = null;
    for (const policy of policies) {
      const c = compile(policy);
      const sql = compileRuleToSql(policy.ruleExpression, SQL_FIRST_PARAM);
      if (!sql) {
        batched.push(c);
        continue;
      }
      const run = await this.queries.evaluateCompiled(
        em,
        spaceId,
        policy.id,
        sql,
        c.violationMessage,
        evaluatedAt,
      );
      totalProducts = run.total;
      const tally = byPolicy.get(policy.id)!;
      tally.compliant += run.compliant;
      tally.non_compliant += run.non_compliant;
      await this.outbox.appendMany(
        em,
        run.violated.map((v) =>
          violatedEvent(c, spaceId, { id: v.id, name: v.name }, v.before, c.violationMessage, evaluatedAt),
        ),
      );
      for (let i = 0; i < run.undecided.length; i += BATCH) {
        const products = await this.products.inSpace(em, spaceId, run.undecided.slice(i, i + BATCH));
        await this.evaluateBatch(em, spaceId, [c], products, evaluatedAt, byPolicy, 'transitions', false);
      }
    }
    if (batched.length || totalProducts === null) {
      totalProducts = 0;
      let afterId: string | null = null;
      for (;;) {
        const products = await this.products.pageById(em, spaceId, afterId, BATCH);
        if (!products.length) break;
        afterId = products[products.length - 1].id;
        totalProducts += products.length;
        if (batched.length) {
          await this.evaluateBatch(
            em,
            spaceId,
            batched,
            products,
            evaluatedAt,
            byPolicy,
            'transitions',
            true,
          );
        }
        if (products.length < BATCH) break;
      }
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
    await this.queries.lockOutcomes(em, spaceId);
    const products = await this.products.inSpace(em, spaceId, productIds);
    if (!products.length) return;
    const byPolicy = new Map(policies.map((p) => [p.id, { compliant: 0, non_compliant: 0, errors: 0 }]));
    await this.evaluateBatch(
      em,
      spaceId,
      policies.map(compile),
      products,
      new Date(),
      byPolicy,
      'changes',
      false,
    );
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
    idOrdered: boolean,
  ): Promise<void> {
    const cel = await this.celProducts(em, products);
    const previous = await this.previousOutcomes(
      em,
      compiled.map((c) => c.policy.id),
      products.map((p) => p.id),
      idOrdered,
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
    await this.outbox.appendMany(
      em,
      violated.map((v) =>
        violatedEvent(
          v.compiled,
          spaceId,
          v.product,
          (v.before?.status as 'compliant' | 'error' | undefined) ?? null,
          v.message,
          evaluatedAt,
        ),
      ),
    );
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
   * (policy_id, product_id) key; otherwise each (policy, product) is probed on that key.
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
  const violationMessage = `Violates "${policy.name}": ${policy.ruleExpression}`;
  return { policy, rule: compileRule(policy.ruleExpression, violationMessage), violationMessage };
}

function violatedEvent(
  c: Compiled,
  spaceId: string,
  product: { id: string; name: string },
  previousStatus: 'compliant' | 'error' | null,
  message: string,
  evaluatedAt: Date,
): DomainEvent<'policy.violated'> {
  return {
    type: 'policy.violated',
    spaceId,
    data: {
      policy_id: c.policy.id,
      policy_name: c.policy.name,
      severity: c.policy.severity,
      space_id: spaceId,
      product_id: product.id,
      product_name: product.name,
      previous_status: previousStatus,
      message,
      evaluated_at: evaluatedAt.toISOString(),
    },
  };
}
