import { MigrationInterface, QueryRunner } from 'typeorm';

export class AiEvals1796300000001 implements MigrationInterface {
  name = 'AiEvals1796300000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "ai_eval_runs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "status" text NOT NULL DEFAULT 'queued', "features" text array NOT NULL DEFAULT '{}', "case_ids" text array NOT NULL DEFAULT '{}', "total" integer NOT NULL, "done" integer NOT NULL DEFAULT '0', "passed" integer NOT NULL DEFAULT '0', "failed" integer NOT NULL DEFAULT '0', "workflow_run_id" uuid, "error" text, "started_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "started_at" TIMESTAMP WITH TIME ZONE, "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_e584d82465df3bba478f0efd275" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ai_eval_runs_started_by_idx" ON "ai_eval_runs"  ("started_by") `);
    await queryRunner.query(
      `CREATE INDEX "ai_eval_runs_created_idx" ON "ai_eval_runs"  ("created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_eval_results" ("run_id" uuid NOT NULL, "case_id" text NOT NULL, "position" integer NOT NULL, "feature" text NOT NULL, "passed" boolean NOT NULL, "failures" jsonb NOT NULL DEFAULT '[]', "log_id" uuid, "latency_ms" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1d8f0c13d9574bd89532234a56a" PRIMARY KEY ("run_id", "case_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "ai_eval_runs" ADD CONSTRAINT "ai_eval_runs_started_by_fk" FOREIGN KEY ("started_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "ai_eval_results" ADD CONSTRAINT "ai_eval_results_run_fk" FOREIGN KEY ("run_id") REFERENCES "ai_eval_runs"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ai_eval_results" DROP CONSTRAINT "ai_eval_results_run_fk"`);
    await queryRunner.query(`ALTER TABLE "ai_eval_runs" DROP CONSTRAINT "ai_eval_runs_started_by_fk"`);
    await queryRunner.query(`DROP TABLE "ai_eval_results"`);
    await queryRunner.query(`DROP INDEX "public"."ai_eval_runs_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_eval_runs_started_by_idx"`);
    await queryRunner.query(`DROP TABLE "ai_eval_runs"`);
  }
}
