import { MigrationInterface, QueryRunner } from 'typeorm';

export class EventsBackbone1795318617686 implements MigrationInterface {
  name = 'EventsBackbone1795318617686';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "notification_counters" ("user_id" uuid NOT NULL, "type" text NOT NULL, "unread" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_7628156f69eec6a8ff48cb3a792" PRIMARY KEY ("user_id", "type"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "notifications" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "user_id" uuid NOT NULL, "type" text NOT NULL, "title" text NOT NULL, "message" text NOT NULL, "data" jsonb NOT NULL DEFAULT '{}', "read" boolean NOT NULL DEFAULT false, "email_status" text NOT NULL DEFAULT 'skipped', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6a72c3c0f683f6462415e653c3a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "notifications_digest_idx" ON "notifications"  ("user_id") WHERE email_status = 'digest'`,
    );
    await queryRunner.query(
      `CREATE INDEX "notifications_user_type_created_idx" ON "notifications"  ("user_id", "type", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "notifications_user_created_idx" ON "notifications"  ("user_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "job_schedules" ("name" text NOT NULL, "cron" text NOT NULL, "timezone" text NOT NULL DEFAULT 'UTC', "next_run_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_run_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_95638964ede449d5f4cc3c7301d" PRIMARY KEY ("name"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "jobs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" text NOT NULL, "payload" jsonb NOT NULL DEFAULT '{}', "status" text NOT NULL DEFAULT 'pending', "run_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "attempts" integer NOT NULL DEFAULT '0', "max_attempts" integer NOT NULL DEFAULT '5', "locked_until" TIMESTAMP WITH TIME ZONE, "last_error" text, "singleton_key" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_cf0a6c42b72fcc7f7c237def345" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "jobs_singleton_key" ON "jobs"  ("singleton_key") WHERE singleton_key IS NOT NULL AND status IN ('pending', 'running')`,
    );
    await queryRunner.query(
      `CREATE INDEX "jobs_stalled_idx" ON "jobs"  ("locked_until") WHERE status = 'running'`,
    );
    await queryRunner.query(`CREATE INDEX "jobs_due_idx" ON "jobs"  ("run_at") WHERE status = 'pending'`);
    await queryRunner.query(`ALTER TABLE "outbox_events" ADD "attempts" integer NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE "outbox_events" ADD "last_error" text`);
    await queryRunner.query(`ALTER TABLE "outbox_events" ADD "retry_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`CREATE INDEX "audit_log_space_idx" ON "audit_log"  ("space_id", "created_at") `);
    await queryRunner.query(`CREATE INDEX "audit_log_action_idx" ON "audit_log"  ("action", "created_at") `);
    await queryRunner.query(
      `ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "notifications" DROP CONSTRAINT "notifications_user_fk"`);
    await queryRunner.query(`DROP INDEX "public"."audit_log_action_idx"`);
    await queryRunner.query(`DROP INDEX "public"."audit_log_space_idx"`);
    await queryRunner.query(`ALTER TABLE "outbox_events" DROP COLUMN "retry_at"`);
    await queryRunner.query(`ALTER TABLE "outbox_events" DROP COLUMN "last_error"`);
    await queryRunner.query(`ALTER TABLE "outbox_events" DROP COLUMN "attempts"`);
    await queryRunner.query(`DROP INDEX "public"."jobs_due_idx"`);
    await queryRunner.query(`DROP INDEX "public"."jobs_stalled_idx"`);
    await queryRunner.query(`DROP INDEX "public"."jobs_singleton_key"`);
    await queryRunner.query(`DROP TABLE "jobs"`);
    await queryRunner.query(`DROP TABLE "job_schedules"`);
    await queryRunner.query(`DROP INDEX "public"."notifications_user_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."notifications_user_type_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."notifications_digest_idx"`);
    await queryRunner.query(`DROP TABLE "notifications"`);
    await queryRunner.query(`DROP TABLE "notification_counters"`);
  }
}
