import { MigrationInterface, QueryRunner } from 'typeorm';

export class ScimAndOnboarding1796100000000 implements MigrationInterface {
  name = 'ScimAndOnboarding1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "onboarding_states" ("user_id" uuid NOT NULL, "dismissed_tours" text array NOT NULL DEFAULT '{}', "dismissed" boolean NOT NULL DEFAULT false, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_25dcf7732f0dd1356abd19fab59" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "scim_groups" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "space_id" uuid NOT NULL, "role" text NOT NULL, "external_id" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_8bacda70f9d3c4028b3abe53874" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "scim_groups_created_at_idx" ON "scim_groups"  ("created_at") `);
    await queryRunner.query(`CREATE INDEX "scim_groups_external_id_idx" ON "scim_groups"  ("external_id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "scim_groups_space_role_key" ON "scim_groups"  ("space_id", "role") `,
    );
    await queryRunner.query(
      `CREATE TABLE "scim_tokens" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" text NOT NULL, "token_hash" text NOT NULL, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE, "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_5e368798dfa88b0d9fb185e8901" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "scim_tokens_created_at_idx" ON "scim_tokens"  ("created_at") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "scim_tokens_token_hash_key" ON "scim_tokens"  ("token_hash") `,
    );
    await queryRunner.query(
      `CREATE TABLE "scim_users" ("user_id" uuid NOT NULL, "external_id" text, "deleted_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c3073abd55c09b51fb5873ef040" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "scim_users_external_id_idx" ON "scim_users"  ("external_id") `);
    await queryRunner.query(`CREATE INDEX "products_created_by_idx" ON "products"  ("created_by") `);
    await queryRunner.query(
      `ALTER TABLE "onboarding_states" ADD CONSTRAINT "onboarding_states_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "scim_groups" ADD CONSTRAINT "scim_groups_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "scim_tokens" ADD CONSTRAINT "scim_tokens_created_by_fk" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "scim_users" ADD CONSTRAINT "scim_users_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "scim_users" DROP CONSTRAINT "scim_users_user_fk"`);
    await queryRunner.query(`ALTER TABLE "scim_tokens" DROP CONSTRAINT "scim_tokens_created_by_fk"`);
    await queryRunner.query(`ALTER TABLE "scim_groups" DROP CONSTRAINT "scim_groups_space_fk"`);
    await queryRunner.query(`ALTER TABLE "onboarding_states" DROP CONSTRAINT "onboarding_states_user_fk"`);
    await queryRunner.query(`DROP INDEX "public"."products_created_by_idx"`);
    await queryRunner.query(`DROP INDEX "public"."scim_users_external_id_idx"`);
    await queryRunner.query(`DROP TABLE "scim_users"`);
    await queryRunner.query(`DROP INDEX "public"."scim_tokens_token_hash_key"`);
    await queryRunner.query(`DROP INDEX "public"."scim_tokens_created_at_idx"`);
    await queryRunner.query(`DROP TABLE "scim_tokens"`);
    await queryRunner.query(`DROP INDEX "public"."scim_groups_space_role_key"`);
    await queryRunner.query(`DROP INDEX "public"."scim_groups_external_id_idx"`);
    await queryRunner.query(`DROP INDEX "public"."scim_groups_created_at_idx"`);
    await queryRunner.query(`DROP TABLE "scim_groups"`);
    await queryRunner.query(`DROP TABLE "onboarding_states"`);
  }
}
