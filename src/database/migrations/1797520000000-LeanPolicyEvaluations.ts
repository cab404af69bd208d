import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Policy outcomes cheap to write in bulk (docs/decisions.md, "Policy outcomes
 * written lean"): a whole-space run writes one row per (policy, product), so
 * every index and per-row check on `policy_evaluations` is paid a million
 * times by ten policies over 100,000 products.
 *
 * - The key (policy_id, product_id) becomes the primary key and the only
 *   index. The `id` column stays (the API answers it) with its values, but
 *   nothing looks a row up by it. Reads by product go through the space's
 *   policies on the key; the status index only served a filtered count.
 * - The two foreign keys (one check per written row each) are replaced by
 *   cleanup: deleting products or policies deletes their outcomes in the same
 *   statement (statement triggers). So that no outcome outlives its product
 *   or policy, a writer of outcomes holds the space's outcome lock
 *   (`policy-outcomes:<space id>`, PolicyQueries.lockOutcomes; whole-space
 *   runs exclusively) and a delete takes it exclusively before its first row
 *   goes (row triggers): an evaluation running when a product is deleted
 *   commits before the cleanup runs, and the cleanup sees its rows.
 * - The triggers fire ALWAYS, also where a session replicates: a delete they
 *   miss would leave outcomes of products that no longer exist.
 */
export class LeanPolicyEvaluations1797520000000 implements MigrationInterface {
  name = 'LeanPolicyEvaluations1797520000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" DROP CONSTRAINT "policy_evaluations_policy_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" DROP CONSTRAINT "policy_evaluations_product_fk"`,
    );
    await queryRunner.query(`DROP INDEX "policy_evaluations_policy_status_idx"`);
    await queryRunner.query(`DROP INDEX "policy_evaluations_product_idx"`);
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" DROP CONSTRAINT "PK_0c553be2559ab799bc361394004"`,
    );
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" ADD CONSTRAINT "policy_evaluations_policy_product_key"
         PRIMARY KEY USING INDEX "policy_evaluations_policy_product_key"`,
    );
    await queryRunner.query(
      `CREATE FUNCTION "policy_outcomes_lock"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_advisory_xact_lock(hashtext('policy-outcomes:' || OLD.space_id));
         RETURN OLD;
       END $$`,
    );
    await queryRunner.query(
      `CREATE FUNCTION "policy_outcomes_of_products_cleanup"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         DELETE FROM policy_evaluations e USING old_rows o, policies p
          WHERE p.space_id = o.space_id AND e.policy_id = p.id AND e.product_id = o.id;
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE FUNCTION "policy_outcomes_of_policies_cleanup"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         DELETE FROM policy_evaluations e USING old_rows o WHERE e.policy_id = o.id;
         RETURN NULL;
       END $$`,
    );
    for (const table of ['products', 'policies']) {
      const triggers: [string, string][] = [
        [`${table}_outcomes_lock`, `BEFORE DELETE ON "${table}" FOR EACH ROW`],
        [
          `${table}_outcomes_cleanup`,
          `AFTER DELETE ON "${table}" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT`,
        ],
      ];
      for (const [name, event] of triggers) {
        const fn = name.endsWith('_lock') ? 'policy_outcomes_lock' : `policy_outcomes_of_${table}_cleanup`;
        await queryRunner.query(`CREATE TRIGGER "${name}" ${event} EXECUTE FUNCTION "${fn}"()`);
        await queryRunner.query(`ALTER TABLE "${table}" ENABLE ALWAYS TRIGGER "${name}"`);
      }
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['products', 'policies']) {
      await queryRunner.query(`DROP TRIGGER "${table}_outcomes_cleanup" ON "${table}"`);
      await queryRunner.query(`DROP TRIGGER "${table}_outcomes_lock" ON "${table}"`);
    }
    await queryRunner.query(`DROP FUNCTION "policy_outcomes_of_policies_cleanup"()`);
    await queryRunner.query(`DROP FUNCTION "policy_outcomes_of_products_cleanup"()`);
    await queryRunner.query(`DROP FUNCTION "policy_outcomes_lock"()`);
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" DROP CONSTRAINT "policy_evaluations_policy_product_key"`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "policy_evaluations_policy_product_key" ON "policy_evaluations" ("policy_id", "product_id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" ADD CONSTRAINT "PK_0c553be2559ab799bc361394004" PRIMARY KEY ("id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "policy_evaluations_product_idx" ON "policy_evaluations" ("product_id", "policy_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "policy_evaluations_policy_status_idx" ON "policy_evaluations" ("policy_id", "status")`,
    );
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" ADD CONSTRAINT "policy_evaluations_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" ADD CONSTRAINT "policy_evaluations_policy_fk" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }
}
