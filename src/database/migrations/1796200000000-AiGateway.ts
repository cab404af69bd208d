import { MigrationInterface, QueryRunner } from 'typeorm';

export class AiGateway1796200000000 implements MigrationInterface {
  name = 'AiGateway1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "ai_budgets" ("entry_point_id" text NOT NULL, "daily_tokens" bigint, "monthly_tokens" bigint, "daily_usd" numeric(14,6), "monthly_usd" numeric(14,6), "updated_by" uuid, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_bd1ab48b8de23c384f6146865b1" PRIMARY KEY ("entry_point_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_configs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "scope" text NOT NULL, "provider" text NOT NULL, "model_name" text NOT NULL, "api_key_sealed" text, "api_base_url" text, "temperature" double precision, "max_tokens" integer, "is_enabled" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_3e9f5daea9ef89bd232b20ced3f" UNIQUE ("scope"), CONSTRAINT "PK_e062638208222edc23b70e8c31b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_logs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "feature" text NOT NULL, "provider" text NOT NULL, "model" text NOT NULL, "prompt_key" text, "prompt_version" integer, "status" text NOT NULL, "input_tokens" integer NOT NULL DEFAULT '0', "output_tokens" integer NOT NULL DEFAULT '0', "cost_usd" numeric(14,6) NOT NULL DEFAULT '0', "latency_ms" integer NOT NULL DEFAULT '0', "user_id" uuid, "space_id" uuid, "guardrail_actions" jsonb NOT NULL DEFAULT '[]', "messages" jsonb NOT NULL DEFAULT '[]', "response" text, "error" text, "run_id" uuid, "attempt" smallint NOT NULL DEFAULT '1', "profile_id" uuid, "replay_of" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_ac5fbcd483f233f6d9a4cf0b49c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ai_logs_guarded_created_idx" ON "ai_logs"  ("created_at") WHERE guardrail_actions <> '[]'::jsonb`,
    );
    await queryRunner.query(`CREATE INDEX "ai_logs_run_idx" ON "ai_logs"  ("run_id") `);
    await queryRunner.query(
      `CREATE INDEX "ai_logs_status_created_idx" ON "ai_logs"  ("status", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ai_logs_provider_created_idx" ON "ai_logs"  ("provider", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ai_logs_feature_created_idx" ON "ai_logs"  ("feature", "created_at") `,
    );
    await queryRunner.query(`CREATE INDEX "ai_logs_created_idx" ON "ai_logs"  ("created_at", "id") `);
    await queryRunner.query(
      `CREATE TABLE "ai_model_profiles" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" text NOT NULL, "provider" text NOT NULL, "model_name" text NOT NULL, "temperature" double precision, "max_tokens" integer, "fallback_profile_id" uuid, "api_key_sealed" text, "api_base_url" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_cc04a1442ea1f3673b587a7d160" UNIQUE ("name"), CONSTRAINT "PK_b20456f1c66d562742630d57626" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ai_model_profiles_fallback_idx" ON "ai_model_profiles"  ("fallback_profile_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_model_routes" ("feature" text NOT NULL, "profile_id" uuid NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_58c74c5a9d2008ca39c137fdecb" PRIMARY KEY ("feature"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ai_model_routes_profile_idx" ON "ai_model_routes"  ("profile_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_prompt_versions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "prompt_key" text NOT NULL, "version" integer NOT NULL, "system" text NOT NULL, "template" text NOT NULL, "variables" text array NOT NULL, "status" text NOT NULL, "note" text, "source_log_id" uuid, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "ai_prompt_versions_key_version_uq" UNIQUE ("prompt_key", "version"), CONSTRAINT "PK_3df97ecf434bb3ad922dc3918f4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ai_prompt_versions_one_active_uq" ON "ai_prompt_versions"  ("prompt_key") WHERE status = 'active'`,
    );
    await queryRunner.query(
      `CREATE INDEX "ai_prompt_versions_key_status_idx" ON "ai_prompt_versions"  ("prompt_key", "status") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_workflow_runs" ("id" uuid NOT NULL, "feature" text NOT NULL, "status" text NOT NULL, "user_id" uuid, "space_id" uuid, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_03bcf2db7f7a5c53e34b5432736" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ai_workflow_runs_feature_started_idx" ON "ai_workflow_runs"  ("feature", "started_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ai_workflow_runs_started_idx" ON "ai_workflow_runs"  ("started_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_spans" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "run_id" uuid NOT NULL, "log_id" uuid, "attempt" smallint NOT NULL, "name" text NOT NULL, "status" text NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "duration_ms" double precision NOT NULL, "detail" jsonb NOT NULL DEFAULT '{}', CONSTRAINT "PK_87f3167176be30d1ff92ba92624" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ai_spans_run_idx" ON "ai_spans"  ("run_id", "started_at") `);
    await queryRunner.query(
      `CREATE TABLE "ai_usage_daily" ("day" date NOT NULL, "feature" text NOT NULL, "provider" text NOT NULL, "model" text NOT NULL, "calls" integer NOT NULL DEFAULT '0', "failures" integer NOT NULL DEFAULT '0', "blocked" integer NOT NULL DEFAULT '0', "budget_exceeded" integer NOT NULL DEFAULT '0', "guarded_calls" integer NOT NULL DEFAULT '0', "input_tokens" bigint NOT NULL DEFAULT '0', "output_tokens" bigint NOT NULL DEFAULT '0', "cost_usd" numeric(14,6) NOT NULL DEFAULT '0', "latency_ms_total" bigint NOT NULL DEFAULT '0', CONSTRAINT "PK_5ec6c50ccdf2ef4d61977bb1a66" PRIMARY KEY ("day", "feature", "provider", "model"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "ai_user_usage_daily" ("day" date NOT NULL, "user_key" text NOT NULL, "feature" text NOT NULL, "calls" integer NOT NULL DEFAULT '0', "failures" integer NOT NULL DEFAULT '0', "input_tokens" bigint NOT NULL DEFAULT '0', "output_tokens" bigint NOT NULL DEFAULT '0', "cost_usd" numeric(14,6) NOT NULL DEFAULT '0', CONSTRAINT "PK_9e58aa994b005c3b5106e66a841" PRIMARY KEY ("day", "user_key", "feature"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ai_user_usage_daily_user_idx" ON "ai_user_usage_daily"  ("user_key", "day") `,
    );
    await queryRunner.query(
      `ALTER TABLE "ai_model_profiles" ADD CONSTRAINT "ai_model_profiles_fallback_fk" FOREIGN KEY ("fallback_profile_id") REFERENCES "ai_model_profiles"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "ai_model_routes" ADD CONSTRAINT "ai_model_routes_profile_fk" FOREIGN KEY ("profile_id") REFERENCES "ai_model_profiles"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "ai_spans" ADD CONSTRAINT "ai_spans_run_fk" FOREIGN KEY ("run_id") REFERENCES "ai_workflow_runs"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ai_spans" DROP CONSTRAINT "ai_spans_run_fk"`);
    await queryRunner.query(`ALTER TABLE "ai_model_routes" DROP CONSTRAINT "ai_model_routes_profile_fk"`);
    await queryRunner.query(
      `ALTER TABLE "ai_model_profiles" DROP CONSTRAINT "ai_model_profiles_fallback_fk"`,
    );
    await queryRunner.query(`DROP INDEX "public"."ai_user_usage_daily_user_idx"`);
    await queryRunner.query(`DROP TABLE "ai_user_usage_daily"`);
    await queryRunner.query(`DROP TABLE "ai_usage_daily"`);
    await queryRunner.query(`DROP INDEX "public"."ai_spans_run_idx"`);
    await queryRunner.query(`DROP TABLE "ai_spans"`);
    await queryRunner.query(`DROP INDEX "public"."ai_workflow_runs_started_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_workflow_runs_feature_started_idx"`);
    await queryRunner.query(`DROP TABLE "ai_workflow_runs"`);
    await queryRunner.query(`DROP INDEX "public"."ai_prompt_versions_key_status_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_prompt_versions_one_active_uq"`);
    await queryRunner.query(`DROP TABLE "ai_prompt_versions"`);
    await queryRunner.query(`DROP INDEX "public"."ai_model_routes_profile_idx"`);
    await queryRunner.query(`DROP TABLE "ai_model_routes"`);
    await queryRunner.query(`DROP INDEX "public"."ai_model_profiles_fallback_idx"`);
    await queryRunner.query(`DROP TABLE "ai_model_profiles"`);
    await queryRunner.query(`DROP INDEX "public"."ai_logs_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_logs_feature_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_logs_provider_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_logs_status_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_logs_run_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_logs_guarded_created_idx"`);
    await queryRunner.query(`DROP TABLE "ai_logs"`);
    await queryRunner.query(`DROP TABLE "ai_configs"`);
    await queryRunner.query(`DROP TABLE "ai_budgets"`);
  }
}
