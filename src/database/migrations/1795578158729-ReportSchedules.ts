import { MigrationInterface, QueryRunner } from 'typeorm';

export class ReportSchedules1795578158729 implements MigrationInterface {
  name = 'ReportSchedules1795578158729';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "report_schedules" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "name" text NOT NULL, "report_type" text NOT NULL, "frequency" text NOT NULL, "timezone" text NOT NULL DEFAULT 'UTC', "recipients" text array NOT NULL, "is_enabled" boolean NOT NULL DEFAULT true, "last_sent_at" TIMESTAMP WITH TIME ZONE, "next_run_at" TIMESTAMP WITH TIME ZONE, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_603f9cdaaf4c1193d7399c1e79c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "report_schedules_due_idx" ON "report_schedules"  ("next_run_at") WHERE is_enabled`,
    );
    await queryRunner.query(
      `CREATE INDEX "report_schedules_space_created_idx" ON "report_schedules"  ("space_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "report_schedules" ADD CONSTRAINT "report_schedules_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "report_schedules" DROP CONSTRAINT "report_schedules_space_fk"`);
    await queryRunner.query(`DROP INDEX "public"."report_schedules_space_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."report_schedules_due_idx"`);
    await queryRunner.query(`DROP TABLE "report_schedules"`);
  }
}
