import { MigrationInterface, QueryRunner } from 'typeorm';

export class ApiKeys1795317921862 implements MigrationInterface {
  name = 'ApiKeys1795317921862';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "api_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "user_id" uuid NOT NULL, "name" text NOT NULL, "prefix" text NOT NULL, "key_hash" text NOT NULL, "rate_limit_tier" text NOT NULL DEFAULT 'standard', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, "revoked_reason" text, CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "api_keys_user_idx" ON "api_keys"  ("user_id", "created_at") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"  ("key_hash") `);
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_user_fk"`);
    await queryRunner.query(`DROP INDEX "public"."api_keys_key_hash_key"`);
    await queryRunner.query(`DROP INDEX "public"."api_keys_user_idx"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
  }
}
