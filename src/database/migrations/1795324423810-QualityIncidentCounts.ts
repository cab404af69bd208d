import { MigrationInterface, QueryRunner } from 'typeorm';

export class QualityIncidentCounts1795324423810 implements MigrationInterface {
  name = 'QualityIncidentCounts1795324423810';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."quality_alerts_incident_product_idx"`);
    await queryRunner.query(
      `CREATE TABLE "quality_incident_counts" ("space_id" uuid NOT NULL, "status" text NOT NULL, "shard" smallint NOT NULL, "total" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_d6ba04f35be7028bd7112456241" PRIMARY KEY ("space_id", "status", "shard"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "quality_alerts_product_created_idx" ON "quality_alerts"  ("product_id", "created_at", "incident_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "quality_incident_counts" ADD CONSTRAINT "quality_incident_counts_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "quality_incident_counts" DROP CONSTRAINT "quality_incident_counts_space_fk"`,
    );
    await queryRunner.query(`DROP INDEX "public"."quality_alerts_product_created_idx"`);
    await queryRunner.query(`DROP TABLE "quality_incident_counts"`);
    await queryRunner.query(
      `CREATE INDEX "quality_alerts_incident_product_idx" ON "quality_alerts" USING btree ("product_id", "incident_id") `,
    );
  }
}
