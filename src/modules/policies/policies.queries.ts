import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { GOVERNED_PRODUCT_JOINS, GOVERNED_PRODUCT_TABLE } from '../catalog/catalog.contract';
import type { EvaluationStatus } from './entities/policy-evaluation.entity';
import type { RuleSql } from './policy-sql';

export interface EvaluationRow {
  /** NULL on rows written since migration PolicyOutcomeIdsOnRead (policyOutcomeId derives it). */
  id: string | null;
  product_id: string;
  status: string;
  message: string | null;
  evaluated_at: Date;
}

export interface PolicyComplianceRow {
  id: string;
  name: string;
  severity: string;
  is_enabled: boolean;
  compliant: number;
  violations: number;
}

export interface ViolationRow {
  policy_id: string;
  policy_name: string;
  severity: string;
  message: string | null;
  evaluated_at: Date;
}

export interface SpaceViolationRow {
  policy_name: string;
  severity: string;
  product_id: string;
  message: string | null;
  evaluated_at: Date;
}

export interface StoredOutcomeRow {
  policy_id: string;
  product_id: string;
  status: EvaluationStatus;
  message: string | null;
}

/** Outcomes to store, one entry per (policy, product), as parallel arrays. */
export interface OutcomeChanges {
  policyIds: string[];
  productIds: string[];
  statuses: string[];
  messages: (string | null)[];
}

/** What one compiled policy's statement did. */
export interface CompiledRunRow {
  total: number;
  compliant: number;
  non_compliant: number;
  /** Products SQL could not decide (CEL errors, precision edges): the batched evaluator's. */
  undecided: string[];
  /** Products that turned non-compliant after a recorded compliant or error outcome. */
  violated: { id: string; name: string; before: 'compliant' | 'error' }[];
}

/**
 * The policies' raw SQL. Evaluation runs write thousands of outcomes per
 * batch (one multi-row upsert from unnest arrays) and read the stored ones by
 * key range; compliance reads aggregate with FILTER and order by severity
 * rank. None of it is one statement through the repository API. Indexes:
 * policy_evaluations' primary key (policy_id, product_id), its only index, for
 * the upserts, id-range reads, per-policy aggregates and the evaluation list,
 * and for reads by product through the space's policies (policies_space_type_idx
 * (space_id, …) finds them); the policies primary key for last_evaluated_at.
 * A compiled policy's statement scans the space's products on
 * products (space_id, id) with the read model's joins (catalog.contract.ts)
 * and joins the stored outcomes on the primary key.
 */
@Injectable()
export class PolicyQueries {
  /**
   * Holds the space's outcome lock shared until commit: deleting a product or
   * a policy of the space takes it exclusively before its cleanup deletes the
   * outcomes (migration LeanPolicyEvaluations), so no outcome this transaction
   * writes outlives its product or policy. Call it before reading products.
   */
  async lockOutcomes(em: EntityManager, spaceId: string): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock_shared(hashtext($1))`, [`policy-outcomes:${spaceId}`]);
  }

  /**
   * The space's outcome lock for a whole-space run, held exclusively until
   * commit: no other transaction writes the space's outcomes meanwhile, so the
   * run inserts its new outcomes plainly (evaluateCompiled). Re-evaluations of
   * single products wait for the run, as they waited for its policies' row
   * locks when foreign keys checked them. It also sets two things for the rest
   * of the transaction: no JIT compilation (the compiled statements cost
   * enough to be JIT-compiled and inlined, which took longer than running
   * them: about 1 s of 2 s for `size(product.owners) > 0` over 100,000
   * products), and 64 MB of work memory, so that hashing a policy's 100,000
   * stored outcomes and materializing the products stay in memory (one
   * statement at a time per run; with 4 MB both spilled to disk, 20% slower).
   */
  async lockOutcomesForSpaceRun(em: EntityManager, spaceId: string): Promise<void> {
    await em.query(
      `SELECT pg_advisory_xact_lock(hashtext($1)), set_config('jit', 'off', true),
              set_config('work_mem', '64MB', true)`,
      [`policy-outcomes:${spaceId}`],
    );
  }

  /** A page of the policy's evaluations (of the status, when given), worst first, newest first. */
  async evaluationsPage(
    em: EntityManager,
    policyId: string,
    status: string | null,
    skip: number,
    limit: number,
  ): Promise<EvaluationRow[]> {
    return (await em.query(
      `SELECT id, product_id, status, message, evaluated_at FROM policy_evaluations
        WHERE policy_id = $1 AND ($2::text IS NULL OR status = $2)
        ORDER BY array_position(ARRAY['non_compliant', 'error', 'compliant'], status), evaluated_at DESC, product_id
        OFFSET $3 LIMIT $4`,
      [policyId, status, skip, limit],
    )) as EvaluationRow[];
  }

  /** How many evaluations of the policy (of the status, when given) there are. */
  async countEvaluations(em: EntityManager, policyId: string, status: string | null): Promise<number> {
    const [{ total }] = (await em.query(
      `SELECT count(*)::int AS total FROM policy_evaluations WHERE policy_id = $1 AND ($2::text IS NULL OR status = $2)`,
      [policyId, status],
    )) as { total: number }[];
    return total;
  }

  /** The space's unarchived policies in name order, with their compliant and violating counts. */
  async complianceByPolicy(em: EntityManager, spaceId: string): Promise<PolicyComplianceRow[]> {
    return (await em.query(
      `SELECT p.id, p.name, p.severity, p.is_enabled,
              count(*) FILTER (WHERE e.status = 'compliant')::int AS compliant,
              count(*) FILTER (WHERE e.status = 'non_compliant')::int AS violations
         FROM policies p LEFT JOIN policy_evaluations e ON e.policy_id = p.id AND p.is_enabled
        WHERE p.space_id = $1 AND NOT p.is_archived
        GROUP BY p.id ORDER BY lower(p.name)`,
      [spaceId],
    )) as PolicyComplianceRow[];
  }

  /** How many products the space's enabled policies find non-compliant, and flag (non-compliant or error). */
  async productCounts(
    em: EntityManager,
    spaceId: string,
  ): Promise<{ non_compliant: number; flagged: number }> {
    const [products] = (await em.query(
      `SELECT count(DISTINCT e.product_id) FILTER (WHERE e.status = 'non_compliant')::int AS non_compliant,
              count(DISTINCT e.product_id) FILTER (WHERE e.status IN ('non_compliant', 'error'))::int AS flagged
         FROM policy_evaluations e JOIN policies p ON p.id = e.policy_id
        WHERE p.space_id = $1 AND p.is_enabled AND NOT p.is_archived`,
      [spaceId],
    )) as { non_compliant: number; flagged: number }[];
    return products;
  }

  /** The product's violations of the space's enabled, unarchived policies, most severe first. */
  async productViolations(em: EntityManager, spaceId: string, productId: string): Promise<ViolationRow[]> {
    return (await em.query(
      `SELECT p.id AS policy_id, p.name AS policy_name, p.severity, e.message,
              greatest(e.evaluated_at, p.last_evaluated_at) AS evaluated_at
         FROM policies p JOIN policy_evaluations e ON e.policy_id = p.id AND e.product_id = $1
        WHERE p.space_id = $2 AND p.is_enabled AND NOT p.is_archived AND e.status = 'non_compliant'
        ORDER BY array_position(ARRAY['critical', 'high', 'medium', 'low'], p.severity), lower(p.name)`,
      [productId, spaceId],
    )) as ViolationRow[];
  }

  /** The latest violations of the space's enabled, unarchived policies (at most 10,000). */
  async violationsInSpace(em: EntityManager, spaceId: string): Promise<SpaceViolationRow[]> {
    return (await em.query(
      `SELECT p.name AS policy_name, p.severity, e.product_id, e.message,
              greatest(e.evaluated_at, p.last_evaluated_at) AS evaluated_at
         FROM policy_evaluations e JOIN policies p ON p.id = e.policy_id
        WHERE p.space_id = $1 AND p.is_enabled AND NOT p.is_archived AND e.status = 'non_compliant'
        ORDER BY array_position(ARRAY['critical', 'high', 'medium', 'low'], p.severity), lower(p.name), e.product_id
        LIMIT 10000`,
      [spaceId],
    )) as SpaceViolationRow[];
  }

  /** Records when the policies were last evaluated. */
  async markEvaluated(em: EntityManager, policyIds: string[], evaluatedAt: Date): Promise<void> {
    await em.query(`UPDATE policies SET last_evaluated_at = $2 WHERE id = ANY($1::uuid[])`, [
      policyIds,
      evaluatedAt,
    ]);
  }

  /** Stores the outcomes, replacing the stored ones of the same (policy, product). */
  async upsertOutcomes(em: EntityManager, changes: OutcomeChanges, evaluatedAt: Date): Promise<void> {
    await em.query(
      `INSERT INTO policy_evaluations (policy_id, product_id, status, message, evaluated_at)
         SELECT t.policy_id, t.product_id, t.status, t.message, $5
           FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) AS t(policy_id, product_id, status, message)
         ON CONFLICT (policy_id, product_id) DO UPDATE
           SET status = EXCLUDED.status, message = EXCLUDED.message, evaluated_at = EXCLUDED.evaluated_at`,
      [changes.policyIds, changes.productIds, changes.statuses, changes.messages, evaluatedAt],
    );
  }

  /**
   * The stored outcomes of the policies for the products: by id range per
   * policy when the products are an id-ordered page (rows outside the page
   * may come back), else probed product by product.
   */
  async storedOutcomes(
    em: EntityManager,
    policyIds: string[],
    productIds: string[],
    idOrdered: boolean,
  ): Promise<StoredOutcomeRow[]> {
    return (
      idOrdered
        ? await em.query(
            `SELECT policy_id, product_id, status, message FROM policy_evaluations
              WHERE policy_id = ANY($1::uuid[]) AND product_id BETWEEN $2 AND $3`,
            [policyIds, productIds[0], productIds[productIds.length - 1]],
          )
        : await em.query(
            `SELECT e.policy_id, e.product_id, e.status, e.message
               FROM unnest($2::uuid[]) AS ids(product_id)
               JOIN policy_evaluations e ON e.product_id = ids.product_id
              WHERE e.policy_id = ANY($1::uuid[])`,
            [policyIds, productIds],
          )
    ) as StoredOutcomeRow[];
  }

  /**
   * Evaluates a compiled rule over every product of the space in one
   * statement: decided outcomes that differ from the stored ones are written
   * (inserted plainly where none is stored, which costs a fifth less than an
   * upsert: the caller holds the space's outcome lock exclusively, so no other
   * transaction inserts one meanwhile; updated where one is),
   * and the counts, the undecided products and the products that turned
   * non-compliant come back. `rule`'s parameters are numbered from $5.
   */
  async evaluateCompiled(
    em: EntityManager,
    spaceId: string,
    policyId: string,
    rule: RuleSql,
    violationMessage: string,
    evaluatedAt: Date,
  ): Promise<CompiledRunRow> {
    const joins = rule.joins.map((j) => GOVERNED_PRODUCT_JOINS[j]).join('\n');
    const [row] = (await em.query(
      `WITH src AS MATERIALIZED (
         SELECT p.id, p.name, ${rule.expression} AS ok
           FROM ${GOVERNED_PRODUCT_TABLE} ${joins}
          WHERE p.space_id = $1
       ), diff AS MATERIALIZED (
         SELECT s.id, s.name, o.status AS next, CASE WHEN s.ok THEN NULL ELSE $3::text END AS message,
                e.status AS before
           FROM src s
          CROSS JOIN LATERAL (SELECT CASE WHEN s.ok THEN 'compliant' ELSE 'non_compliant' END AS status) o
           LEFT JOIN policy_evaluations e ON e.policy_id = $2 AND e.product_id = s.id
          WHERE s.ok IS NOT NULL
            AND (e.status IS NULL OR e.status <> o.status
                 OR e.message IS DISTINCT FROM CASE WHEN s.ok THEN NULL ELSE $3::text END)
       ), inserted AS (
         INSERT INTO policy_evaluations (policy_id, product_id, status, message, evaluated_at)
         SELECT $2, d.id, d.next, d.message, $4 FROM diff d WHERE d.before IS NULL ORDER BY d.id
       ), updated AS (
         UPDATE policy_evaluations e SET status = d.next, message = d.message, evaluated_at = $4
           FROM diff d WHERE d.before IS NOT NULL AND e.policy_id = $2 AND e.product_id = d.id
       )
       SELECT count(*)::int AS total,
              count(*) FILTER (WHERE ok)::int AS compliant,
              count(*) FILTER (WHERE NOT ok)::int AS non_compliant,
              COALESCE(array_agg(id) FILTER (WHERE ok IS NULL), '{}') AS undecided,
              (SELECT COALESCE(json_agg(json_build_object('id', d.id, 'name', d.name, 'before', d.before)), '[]')
                 FROM diff d WHERE d.next = 'non_compliant' AND d.before IN ('compliant', 'error')) AS violated
         FROM src`,
      [spaceId, policyId, violationMessage, evaluatedAt, ...rule.params],
    )) as CompiledRunRow[];
    return row;
  }
}
