import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1795320228095 implements MigrationInterface {
  name = 'Webhooks1795320228095';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhooks" ("id" uuid NOT NULL, "space_id" uuid NOT NULL, "url" text NOT NULL, "description" text NOT NULL DEFAULT '', "event_types" text array NOT NULL, "secret_sealed" text NOT NULL, "is_enabled" boolean NOT NULL DEFAULT true, "failing_since" TIMESTAMP WITH TIME ZONE, "disabled_at" TIMESTAMP WITH TIME ZONE, "disabled_reason" text, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9e8795cfc899ab7bdaa831e8527" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "webhooks_space_idx" ON "webhooks"  ("space_id") `);
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "webhook_id" uuid NOT NULL, "event_id" uuid, "event_type" text NOT NULL, "body" text NOT NULL, "status" text NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "last_response_code" integer, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "delivered_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_webhook_created_idx" ON "webhook_deliveries"  ("webhook_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "webhook_deliveries_event_webhook_key" ON "webhook_deliveries"  ("event_id", "webhook_id") WHERE event_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_attempts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "delivery_id" uuid NOT NULL, "webhook_id" uuid NOT NULL, "attempt_number" integer NOT NULL, "status" text NOT NULL, "response_code" integer, "duration_ms" integer NOT NULL, "error" text, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "finished_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_2de7e7887ad97de459adab62638" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts"  ("delivery_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_attempts_webhook_started_idx" ON "webhook_attempts"  ("webhook_id", "started_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_fk" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_fk" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_delivery_fk"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_webhook_fk"`,
    );
    await queryRunner.query(`DROP INDEX "public"."webhook_attempts_webhook_started_idx"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_attempts_delivery_idx"`);
    await queryRunner.query(`DROP TABLE "webhook_attempts"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_deliveries_event_webhook_key"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_deliveries_webhook_created_idx"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP INDEX "public"."webhooks_space_idx"`);
    await queryRunner.query(`DROP TABLE "webhooks"`);
  }
}
