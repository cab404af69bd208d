import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An outcome's id is no longer drawn when the row is written: gen_random_uuid()
 * was a fifth of a first evaluation's insert time (100,000 rows a policy).
 * Rows written from now on keep a NULL id, and answers derive it from the
 * row's key (policy-outcome-id.ts); rows written before keep the id they have.
 */
export class PolicyOutcomeIdsOnRead1797540000000 implements MigrationInterface {
  name = 'PolicyOutcomeIdsOnRead1797540000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" ALTER COLUMN "id" DROP DEFAULT, ALTER COLUMN "id" DROP NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE "policy_evaluations" SET "id" = gen_random_uuid() WHERE "id" IS NULL`);
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" ALTER COLUMN "id" SET DEFAULT gen_random_uuid(), ALTER COLUMN "id" SET NOT NULL`,
    );
  }
}
