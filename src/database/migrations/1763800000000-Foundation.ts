import { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1763800000000 implements MigrationInterface {
  name = 'Foundation1763800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "login_failures" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "email" text NOT NULL, "failed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "ip" text, CONSTRAINT "PK_8211e8ec810fd7f976b98ce97a0" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "login_failures_email_idx" ON "login_failures"  ("email", "failed_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "users" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "email" text NOT NULL, "password_hash" text, "first_name" text NOT NULL DEFAULT '', "last_name" text NOT NULL DEFAULT '', "is_active" boolean NOT NULL DEFAULT true, "is_superadmin" boolean NOT NULL DEFAULT false, "avatar_style" text NOT NULL DEFAULT 'initials', "avatar_color" text NOT NULL DEFAULT '#3B82F6', "avatar_url" text, "ai_literacy_status" text NOT NULL DEFAULT 'not_started', "ai_literacy_program" text, "ai_literacy_completion_date" date, "ai_literacy_next_renewal" date, "preferences" jsonb NOT NULL DEFAULT '{}', "last_login" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "users_created_at_idx" ON "users"  ("created_at") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "users_email_key" ON "users"  ("email") `);
    await queryRunner.query(
      `CREATE TABLE "password_reset_tokens" ("token_hash" text NOT NULL, "user_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_91185d86d5d7557b19abbb2868b" PRIMARY KEY ("token_hash"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "password_reset_tokens_user_idx" ON "password_reset_tokens"  ("user_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "sessions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "user_id" uuid NOT NULL, "impersonator_id" uuid, "ip" text, "user_agent" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE, "revoked_reason" text, CONSTRAINT "PK_3238ef96f18b355b671619111bc" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "sessions_user_idx" ON "sessions"  ("user_id") `);
    await queryRunner.query(
      `CREATE TABLE "refresh_tokens" ("token_hash" text NOT NULL, "session_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "rotated_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_a7838d2ba25be1342091b6695f1" PRIMARY KEY ("token_hash"))`,
    );
    await queryRunner.query(`CREATE INDEX "refresh_tokens_session_idx" ON "refresh_tokens"  ("session_id") `);
    await queryRunner.query(
      `CREATE TABLE "audit_log" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "action" text NOT NULL, "actor_id" uuid, "impersonator_id" uuid, "credential" text, "resource_type" text NOT NULL, "resource_id" text, "space_id" uuid, "ip" text, "details" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_07fefa57f7f5ab8fc3f52b3ed0b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_log_resource_idx" ON "audit_log"  ("resource_type", "resource_id") `,
    );
    await queryRunner.query(`CREATE INDEX "audit_log_actor_idx" ON "audit_log"  ("actor_id", "created_at") `);
    await queryRunner.query(`CREATE INDEX "audit_log_created_idx" ON "audit_log"  ("created_at") `);
    await queryRunner.query(
      `CREATE TABLE "outbox_events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "type" text NOT NULL, "space_id" uuid, "actor_id" uuid, "payload" jsonb NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "published_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_6689a16c00d09b8089f6237f1d2" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events"  ("occurred_at") WHERE published_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "mail_outbox" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "recipient" text NOT NULL, "subject" text NOT NULL, "text_body" text NOT NULL, "html_body" text NOT NULL, "attachments" jsonb NOT NULL DEFAULT '[]', "status" text NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "last_error" text, "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "sent_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_fecc63c96385bc35a39ccf2a72e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "mail_outbox_pending_idx" ON "mail_outbox"  ("next_attempt_at") WHERE status IN ('pending', 'sending')`,
    );
    await queryRunner.query(
      `ALTER TABLE "password_reset_tokens" ADD CONSTRAINT "password_reset_tokens_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_session_fk" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "refresh_tokens" DROP CONSTRAINT "refresh_tokens_session_fk"`);
    await queryRunner.query(`ALTER TABLE "sessions" DROP CONSTRAINT "sessions_user_fk"`);
    await queryRunner.query(
      `ALTER TABLE "password_reset_tokens" DROP CONSTRAINT "password_reset_tokens_user_fk"`,
    );
    await queryRunner.query(`DROP INDEX "public"."mail_outbox_pending_idx"`);
    await queryRunner.query(`DROP TABLE "mail_outbox"`);
    await queryRunner.query(`DROP INDEX "public"."outbox_events_unpublished_idx"`);
    await queryRunner.query(`DROP TABLE "outbox_events"`);
    await queryRunner.query(`DROP INDEX "public"."audit_log_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."audit_log_actor_idx"`);
    await queryRunner.query(`DROP INDEX "public"."audit_log_resource_idx"`);
    await queryRunner.query(`DROP TABLE "audit_log"`);
    await queryRunner.query(`DROP INDEX "public"."refresh_tokens_session_idx"`);
    await queryRunner.query(`DROP TABLE "refresh_tokens"`);
    await queryRunner.query(`DROP INDEX "public"."sessions_user_idx"`);
    await queryRunner.query(`DROP TABLE "sessions"`);
    await queryRunner.query(`DROP INDEX "public"."password_reset_tokens_user_idx"`);
    await queryRunner.query(`DROP TABLE "password_reset_tokens"`);
    await queryRunner.query(`DROP INDEX "public"."users_email_key"`);
    await queryRunner.query(`DROP INDEX "public"."users_created_at_idx"`);
    await queryRunner.query(`DROP TABLE "users"`);
    await queryRunner.query(`DROP INDEX "public"."login_failures_email_idx"`);
    await queryRunner.query(`DROP TABLE "login_failures"`);
  }
}
