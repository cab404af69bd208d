import { MigrationInterface, QueryRunner } from 'typeorm';

export class RiskRegister1795577383509 implements MigrationInterface {
  name = 'RiskRegister1795577383509';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "risks" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "title" text NOT NULL, "description" text, "category" text NOT NULL, "likelihood" text NOT NULL, "impact" text NOT NULL, "score" smallint NOT NULL, "tier" text NOT NULL, "status" text NOT NULL DEFAULT 'identified', "mitigation_plan" text, "owner_id" uuid, "review_date" date, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_df437126f5dd05e856b8bf7157f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "risks_owner_idx" ON "risks"  ("owner_id") `);
    await queryRunner.query(
      `CREATE INDEX "risks_space_cell_idx" ON "risks"  ("space_id", "likelihood", "impact", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "risks_space_tier_idx" ON "risks"  ("space_id", "tier", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "risks_space_status_idx" ON "risks"  ("space_id", "status", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "risks_space_category_idx" ON "risks"  ("space_id", "category", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "risks_space_created_idx" ON "risks"  ("space_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "risk_products" ("risk_id" uuid NOT NULL, "product_id" uuid NOT NULL, CONSTRAINT "PK_8e4861d6de2051434a27b537a7c" PRIMARY KEY ("risk_id", "product_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "risk_products_product_idx" ON "risk_products"  ("product_id", "risk_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "risks" ADD CONSTRAINT "risks_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "risks" ADD CONSTRAINT "risks_owner_fk" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "risk_products" ADD CONSTRAINT "risk_products_risk_fk" FOREIGN KEY ("risk_id") REFERENCES "risks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "risk_products" ADD CONSTRAINT "risk_products_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "risk_products" DROP CONSTRAINT "risk_products_product_fk"`);
    await queryRunner.query(`ALTER TABLE "risk_products" DROP CONSTRAINT "risk_products_risk_fk"`);
    await queryRunner.query(`ALTER TABLE "risks" DROP CONSTRAINT "risks_owner_fk"`);
    await queryRunner.query(`ALTER TABLE "risks" DROP CONSTRAINT "risks_space_fk"`);
    await queryRunner.query(`DROP INDEX "public"."risk_products_product_idx"`);
    await queryRunner.query(`DROP TABLE "risk_products"`);
    await queryRunner.query(`DROP INDEX "public"."risks_space_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."risks_space_category_idx"`);
    await queryRunner.query(`DROP INDEX "public"."risks_space_status_idx"`);
    await queryRunner.query(`DROP INDEX "public"."risks_space_tier_idx"`);
    await queryRunner.query(`DROP INDEX "public"."risks_space_cell_idx"`);
    await queryRunner.query(`DROP INDEX "public"."risks_owner_idx"`);
    await queryRunner.query(`DROP TABLE "risks"`);
  }
}
