import { MigrationInterface, QueryRunner } from 'typeorm';

export class AiFeedbackLearningIntegration1796300000000 implements MigrationInterface {
  name = 'AiFeedbackLearningIntegration1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "ai_feedback" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "feature" text NOT NULL, "log_id" uuid, "suggestion_id" text, "rating" text NOT NULL, "comment" text, "user_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_aa34b6654c98bf014129c13c1b0" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ai_feedback_log_idx" ON "ai_feedback"  ("log_id") `);
    await queryRunner.query(`CREATE INDEX "ai_feedback_user_idx" ON "ai_feedback"  ("user_id") `);
    await queryRunner.query(
      `CREATE INDEX "ai_feedback_rating_created_idx" ON "ai_feedback"  ("rating", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ai_feedback_feature_created_idx" ON "ai_feedback"  ("feature", "created_at") `,
    );
    await queryRunner.query(`CREATE INDEX "ai_feedback_created_idx" ON "ai_feedback"  ("created_at", "id") `);
    await queryRunner.query(
      `CREATE TABLE "inbound_webhook_messages" ("source" text NOT NULL, "message_id" text NOT NULL, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "outcome" jsonb NOT NULL DEFAULT '{}', CONSTRAINT "PK_1ba065fc6866a5325e7d0511a47" PRIMARY KEY ("source", "message_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "inbound_webhook_messages_expires_idx" ON "inbound_webhook_messages"  ("expires_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "learning_integrations" ("id" text NOT NULL, "secret_sealed" text NOT NULL, "is_enabled" boolean NOT NULL DEFAULT true, "updated_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_7484d228bdb0868caf6078ac06f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "ai_feedback" ADD CONSTRAINT "ai_feedback_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ai_feedback" DROP CONSTRAINT "ai_feedback_user_fk"`);
    await queryRunner.query(`DROP TABLE "learning_integrations"`);
    await queryRunner.query(`DROP INDEX "public"."inbound_webhook_messages_expires_idx"`);
    await queryRunner.query(`DROP TABLE "inbound_webhook_messages"`);
    await queryRunner.query(`DROP INDEX "public"."ai_feedback_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_feedback_feature_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_feedback_rating_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_feedback_user_idx"`);
    await queryRunner.query(`DROP INDEX "public"."ai_feedback_log_idx"`);
    await queryRunner.query(`DROP TABLE "ai_feedback"`);
  }
}
