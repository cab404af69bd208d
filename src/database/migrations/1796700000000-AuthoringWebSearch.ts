import { MigrationInterface, QueryRunner } from 'typeorm';

export class AuthoringWebSearch1796700000000 implements MigrationInterface {
  name = 'AuthoringWebSearch1796700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "authoring_tasks" ("id" uuid NOT NULL, "space_id" uuid NOT NULL, "title" text NOT NULL, "definition_id" uuid, "parent_task_id" uuid, "root_task_id" uuid NOT NULL, "delegated" boolean NOT NULL, "web_search_slots" smallint NOT NULL DEFAULT '0', "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_fe599cfee145471eb0f59d9ad35" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "authoring_tasks_created_by_idx" ON "authoring_tasks"  ("created_by") `,
    );
    await queryRunner.query(
      `CREATE INDEX "authoring_tasks_root_idx" ON "authoring_tasks"  ("root_task_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "authoring_tasks_parent_idx" ON "authoring_tasks"  ("parent_task_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "authoring_tasks_space_created_idx" ON "authoring_tasks"  ("space_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "web_search_evidence" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "task_id" uuid NOT NULL, "query_key_hash" text NOT NULL, "query" text NOT NULL, "status" text NOT NULL, "max_results" smallint NOT NULL, "results" jsonb NOT NULL DEFAULT '[]', "dropped" jsonb NOT NULL DEFAULT '{}', "binding_id" uuid NOT NULL, "provider_id" uuid NOT NULL, "tool_name" text NOT NULL, "run_id" uuid, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "completed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_2ad5f2435a3abb191daa5cde0a3" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "web_search_evidence_task_created_idx" ON "web_search_evidence"  ("task_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "web_search_evidence_task_key_uq" ON "web_search_evidence"  ("task_id", "query_key_hash") `,
    );
    await queryRunner.query(
      `CREATE TABLE "web_search_consents" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "user_id" uuid NOT NULL, "space_id" uuid NOT NULL, "task_id" uuid NOT NULL, "definition_id" uuid, "root_task_id" uuid NOT NULL, "binding_id" uuid NOT NULL, "provider_id" uuid NOT NULL, "status" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "decided_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_803e9ba3b184cc21c95010ed372" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "web_search_consents_task_idx" ON "web_search_consents"  ("task_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "web_search_consents_space_idx" ON "web_search_consents"  ("space_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "web_search_consents_user_idx" ON "web_search_consents"  ("user_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "web_search_consents_pending_scope_idx" ON "web_search_consents"  ("root_task_id", "user_id", "binding_id", "provider_id") WHERE status = 'pending'`,
    );
    await queryRunner.query(
      `ALTER TABLE "authoring_tasks" ADD CONSTRAINT "authoring_tasks_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "authoring_tasks" ADD CONSTRAINT "authoring_tasks_parent_fk" FOREIGN KEY ("parent_task_id") REFERENCES "authoring_tasks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "authoring_tasks" ADD CONSTRAINT "authoring_tasks_created_by_fk" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "web_search_evidence" ADD CONSTRAINT "web_search_evidence_task_fk" FOREIGN KEY ("task_id") REFERENCES "authoring_tasks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "web_search_consents" ADD CONSTRAINT "web_search_consents_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "web_search_consents" ADD CONSTRAINT "web_search_consents_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "web_search_consents" ADD CONSTRAINT "web_search_consents_task_fk" FOREIGN KEY ("task_id") REFERENCES "authoring_tasks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "web_search_consents" DROP CONSTRAINT "web_search_consents_task_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "web_search_consents" DROP CONSTRAINT "web_search_consents_space_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "web_search_consents" DROP CONSTRAINT "web_search_consents_user_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "web_search_evidence" DROP CONSTRAINT "web_search_evidence_task_fk"`,
    );
    await queryRunner.query(`ALTER TABLE "authoring_tasks" DROP CONSTRAINT "authoring_tasks_created_by_fk"`);
    await queryRunner.query(`ALTER TABLE "authoring_tasks" DROP CONSTRAINT "authoring_tasks_parent_fk"`);
    await queryRunner.query(`ALTER TABLE "authoring_tasks" DROP CONSTRAINT "authoring_tasks_space_fk"`);
    await queryRunner.query(`DROP INDEX "public"."web_search_consents_pending_scope_idx"`);
    await queryRunner.query(`DROP INDEX "public"."web_search_consents_user_idx"`);
    await queryRunner.query(`DROP INDEX "public"."web_search_consents_space_idx"`);
    await queryRunner.query(`DROP INDEX "public"."web_search_consents_task_idx"`);
    await queryRunner.query(`DROP TABLE "web_search_consents"`);
    await queryRunner.query(`DROP INDEX "public"."web_search_evidence_task_key_uq"`);
    await queryRunner.query(`DROP INDEX "public"."web_search_evidence_task_created_idx"`);
    await queryRunner.query(`DROP TABLE "web_search_evidence"`);
    await queryRunner.query(`DROP INDEX "public"."authoring_tasks_space_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."authoring_tasks_parent_idx"`);
    await queryRunner.query(`DROP INDEX "public"."authoring_tasks_root_idx"`);
    await queryRunner.query(`DROP INDEX "public"."authoring_tasks_created_by_idx"`);
    await queryRunner.query(`DROP TABLE "authoring_tasks"`);
  }
}
