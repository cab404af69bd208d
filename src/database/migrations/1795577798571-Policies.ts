import { MigrationInterface, QueryRunner } from 'typeorm';

export class Policies1795577798571 implements MigrationInterface {
  name = 'Policies1795577798571';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "policies" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "name" text NOT NULL, "description" text, "policy_type" text NOT NULL, "rule_expression" text NOT NULL, "severity" text NOT NULL, "is_enabled" boolean NOT NULL DEFAULT true, "is_archived" boolean NOT NULL DEFAULT false, "archived_at" TIMESTAMP WITH TIME ZONE, "last_evaluated_at" TIMESTAMP WITH TIME ZONE, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_603e09f183df0108d8695c57e28" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "policies_space_type_idx" ON "policies"  ("space_id", "policy_type") `,
    );
    await queryRunner.query(
      `CREATE TABLE "policy_evaluations" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "policy_id" uuid NOT NULL, "product_id" uuid NOT NULL, "status" text NOT NULL, "message" text, "evaluated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_0c553be2559ab799bc361394004" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "policy_evaluations_product_idx" ON "policy_evaluations"  ("product_id", "policy_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "policy_evaluations_policy_status_idx" ON "policy_evaluations"  ("policy_id", "status") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "policy_evaluations_policy_product_key" ON "policy_evaluations"  ("policy_id", "product_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "policies" ADD CONSTRAINT "policies_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" ADD CONSTRAINT "policy_evaluations_policy_fk" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" ADD CONSTRAINT "policy_evaluations_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Case-insensitive unique names; also the list order (raw: TypeORM cannot declare an expression index).
    await queryRunner.query(
      `CREATE UNIQUE INDEX "policies_space_name_key" ON "policies" ("space_id", lower("name"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" DROP CONSTRAINT "policy_evaluations_product_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "policy_evaluations" DROP CONSTRAINT "policy_evaluations_policy_fk"`,
    );
    await queryRunner.query(`ALTER TABLE "policies" DROP CONSTRAINT "policies_space_fk"`);
    await queryRunner.query(`DROP INDEX "public"."policy_evaluations_policy_product_key"`);
    await queryRunner.query(`DROP INDEX "public"."policy_evaluations_policy_status_idx"`);
    await queryRunner.query(`DROP INDEX "public"."policy_evaluations_product_idx"`);
    await queryRunner.query(`DROP TABLE "policy_evaluations"`);
    await queryRunner.query(`DROP INDEX "public"."policies_space_name_key"`);
    await queryRunner.query(`DROP INDEX "public"."policies_space_type_idx"`);
    await queryRunner.query(`DROP TABLE "policies"`);
  }
}
