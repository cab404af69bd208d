import { MigrationInterface, QueryRunner } from 'typeorm';

export class IdempotencyKeys1795577561165 implements MigrationInterface {
  name = 'IdempotencyKeys1795577561165';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("scope" text NOT NULL, "key" text NOT NULL, "fingerprint" text NOT NULL, "status" text NOT NULL DEFAULT 'running', "claim_token" uuid NOT NULL, "locked_until" TIMESTAMP WITH TIME ZONE, "response_status" integer, "response_sealed" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_15de2f76fa9f27ad8f330983607" PRIMARY KEY ("scope", "key"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys"  ("expires_at") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idempotency_keys_expires_idx"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
  }
}
