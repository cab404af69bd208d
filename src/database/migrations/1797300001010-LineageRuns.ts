import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Run health of OpenLineage jobs (issue 30): jobs per space, their runs with
 * the state the run's events converge to, the products each run read or
 * wrote, and the alerts failed runs raised (so a later successful run of the
 * job resolves them, and a failure applied twice raises one alert).
 *
 * - `lineage_jobs.last_run_id` names the run with the latest event; it is no
 *   foreign key (the run row references the job), runs only go with their job.
 * - A run's `run_id` is OpenLineage's runId, unique per space.
 * - A run alert goes with its run or its alert (which goes with its product).
 */
export class LineageRuns1797300001010 implements MigrationInterface {
  name = 'LineageRuns1797300001010';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "lineage_jobs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "namespace" text NOT NULL, "name" text NOT NULL, "last_run_id" uuid, "last_event_time" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "lineage_jobs_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "lineage_jobs_space_name_key" ON "lineage_jobs" ("space_id", "namespace", "name")`,
    );
    await queryRunner.query(
      `ALTER TABLE "lineage_jobs" ADD CONSTRAINT "lineage_jobs_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );

    await queryRunner.query(
      `CREATE TABLE "lineage_runs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "job_id" uuid NOT NULL, "run_id" uuid NOT NULL, "state" text NOT NULL, "state_event_time" TIMESTAMP WITH TIME ZONE NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE, "ended_at" TIMESTAMP WITH TIME ZONE, "duration_ms" bigint, "error_message" text, "parent_run_id" uuid, "parent_job_namespace" text, "parent_job_name" text, "first_event_time" TIMESTAMP WITH TIME ZONE NOT NULL, "last_event_time" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "lineage_runs_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "lineage_runs_space_run_key" ON "lineage_runs" ("space_id", "run_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "lineage_runs_job_time_idx" ON "lineage_runs" ("job_id", "first_event_time", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "lineage_runs_job_completed_idx" ON "lineage_runs" ("job_id", "ended_at") WHERE state = 'COMPLETE'`,
    );
    await queryRunner.query(
      `ALTER TABLE "lineage_runs" ADD CONSTRAINT "lineage_runs_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "lineage_runs" ADD CONSTRAINT "lineage_runs_job_fk" FOREIGN KEY ("job_id") REFERENCES "lineage_jobs"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );

    await queryRunner.query(
      `CREATE TABLE "lineage_run_datasets" ("lineage_run_id" uuid NOT NULL, "direction" text NOT NULL, "product_id" uuid NOT NULL, CONSTRAINT "lineage_run_datasets_pkey" PRIMARY KEY ("lineage_run_id", "direction", "product_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "lineage_run_datasets_product_idx" ON "lineage_run_datasets" ("product_id", "lineage_run_id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "lineage_run_datasets" ADD CONSTRAINT "lineage_run_datasets_run_fk" FOREIGN KEY ("lineage_run_id") REFERENCES "lineage_runs"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "lineage_run_datasets" ADD CONSTRAINT "lineage_run_datasets_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );

    await queryRunner.query(
      `CREATE TABLE "lineage_run_alerts" ("lineage_run_id" uuid NOT NULL, "product_id" uuid NOT NULL, "job_id" uuid NOT NULL, "alert_id" uuid NOT NULL, "failed_at" TIMESTAMP WITH TIME ZONE NOT NULL, "resolved_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "lineage_run_alerts_pkey" PRIMARY KEY ("lineage_run_id", "product_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "lineage_run_alerts_job_open_idx" ON "lineage_run_alerts" ("job_id", "failed_at") WHERE resolved_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "lineage_run_alerts_alert_idx" ON "lineage_run_alerts" ("alert_id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "lineage_run_alerts" ADD CONSTRAINT "lineage_run_alerts_run_fk" FOREIGN KEY ("lineage_run_id") REFERENCES "lineage_runs"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "lineage_run_alerts" ADD CONSTRAINT "lineage_run_alerts_alert_fk" FOREIGN KEY ("alert_id") REFERENCES "quality_alerts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "lineage_run_alerts"`);
    await queryRunner.query(`DROP TABLE "lineage_run_datasets"`);
    await queryRunner.query(`DROP TABLE "lineage_runs"`);
    await queryRunner.query(`DROP TABLE "lineage_jobs"`);
  }
}
