import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SCIM groups become groups of their own (any name, renamable, members as
 * the identity provider sends them) that a superadmin maps to space roles.
 *
 * - `space_memberships.role` stays the effective role every permission check
 *   reads; `direct_role` is the role granted directly (space admins, the
 *   permissions import, the creator), kept apart so that a group never takes
 *   away a direct grant. A membership with no direct role exists only
 *   through groups.
 * - Existing `<slug>:<role>` groups keep their id and name, get the mapping
 *   their name implied, and the members of that space holding that role
 *   become their members (those memberships were granted by the group).
 *   Every other membership is direct.
 * - `scim_users.user_name` is the identity provider's userName, kept as sent
 *   apart from the account email; it was the email until now.
 */
export class ScimGroupMappings1797200000000 implements MigrationInterface {
  name = 'ScimGroupMappings1797200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "space_memberships" ADD "direct_role" text`);
    await queryRunner.query(`ALTER TABLE "scim_groups" ADD "display_name" text`);
    await queryRunner.query(
      `UPDATE "scim_groups" g SET "display_name" = s."slug" || ':' || g."role" FROM "spaces" s WHERE s."id" = g."space_id"`,
    );
    await queryRunner.query(`ALTER TABLE "scim_groups" ALTER COLUMN "display_name" SET NOT NULL`);

    await queryRunner.query(
      `CREATE TABLE "scim_group_members" ("group_id" uuid NOT NULL, "user_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "scim_group_members_pkey" PRIMARY KEY ("group_id", "user_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "scim_group_members_user_idx" ON "scim_group_members" ("user_id", "group_id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "scim_group_members" ADD CONSTRAINT "scim_group_members_group_fk" FOREIGN KEY ("group_id") REFERENCES "scim_groups"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "scim_group_members" ADD CONSTRAINT "scim_group_members_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );

    await queryRunner.query(
      `CREATE TABLE "scim_group_role_mappings" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "group_id" uuid NOT NULL, "space_id" uuid NOT NULL, "role" text NOT NULL, "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "scim_group_role_mappings_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "scim_group_role_mappings_group_space_key" ON "scim_group_role_mappings" ("group_id", "space_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "scim_group_role_mappings_space_idx" ON "scim_group_role_mappings" ("space_id", "group_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "scim_group_role_mappings_created_at_idx" ON "scim_group_role_mappings" ("created_at")`,
    );
    await queryRunner.query(
      `ALTER TABLE "scim_group_role_mappings" ADD CONSTRAINT "scim_group_role_mappings_group_fk" FOREIGN KEY ("group_id") REFERENCES "scim_groups"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "scim_group_role_mappings" ADD CONSTRAINT "scim_group_role_mappings_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "scim_group_role_mappings" ADD CONSTRAINT "scim_group_role_mappings_created_by_fk" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );

    // The old groups: their mapping, their members, and the direct grants that remain.
    await queryRunner.query(
      `INSERT INTO "scim_group_role_mappings" ("group_id", "space_id", "role") SELECT "id", "space_id", "role" FROM "scim_groups"`,
    );
    await queryRunner.query(
      `INSERT INTO "scim_group_members" ("group_id", "user_id")
       SELECT g."id", m."user_id" FROM "scim_groups" g
         JOIN "space_memberships" m ON m."space_id" = g."space_id" AND m."role" = g."role"`,
    );
    await queryRunner.query(
      `UPDATE "space_memberships" m SET "direct_role" = m."role"
        WHERE NOT EXISTS (SELECT 1 FROM "scim_groups" g WHERE g."space_id" = m."space_id" AND g."role" = m."role")`,
    );

    await queryRunner.query(`ALTER TABLE "scim_groups" DROP CONSTRAINT "scim_groups_space_fk"`);
    await queryRunner.query(`DROP INDEX "public"."scim_groups_space_role_key"`);
    await queryRunner.query(`ALTER TABLE "scim_groups" DROP COLUMN "space_id"`);
    await queryRunner.query(`ALTER TABLE "scim_groups" DROP COLUMN "role"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "scim_groups_display_name_key" ON "scim_groups" (lower("display_name"))`,
    );

    await queryRunner.query(`ALTER TABLE "scim_users" ADD "user_name" text`);
    await queryRunner.query(`ALTER TABLE "scim_users" ADD "enterprise" jsonb NOT NULL DEFAULT '{}'`);
    await queryRunner.query(
      `UPDATE "scim_users" su SET "user_name" = u."email" FROM "users" u WHERE u."id" = su."user_id"`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "scim_users_user_name_key" ON "scim_users" (lower("user_name"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."scim_users_user_name_key"`);
    await queryRunner.query(`ALTER TABLE "scim_users" DROP COLUMN "enterprise"`);
    await queryRunner.query(`ALTER TABLE "scim_users" DROP COLUMN "user_name"`);
    await queryRunner.query(`DROP INDEX "public"."scim_groups_display_name_key"`);
    // Back to one space and role per group: groups without exactly that mapping cannot be kept.
    await queryRunner.query(`ALTER TABLE "scim_groups" ADD "space_id" uuid`);
    await queryRunner.query(`ALTER TABLE "scim_groups" ADD "role" text`);
    await queryRunner.query(
      `UPDATE "scim_groups" g SET "space_id" = r."space_id", "role" = r."role"
         FROM (SELECT DISTINCT ON ("group_id") "group_id", "space_id", "role" FROM "scim_group_role_mappings"
                ORDER BY "group_id", "created_at") r
        WHERE r."group_id" = g."id"`,
    );
    await queryRunner.query(
      `DELETE FROM "scim_groups" g WHERE g."space_id" IS NULL
          OR EXISTS (SELECT 1 FROM "scim_groups" o WHERE o."space_id" = g."space_id" AND o."role" = g."role" AND o."created_at" < g."created_at")`,
    );
    await queryRunner.query(`ALTER TABLE "scim_groups" ALTER COLUMN "space_id" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "scim_groups" ALTER COLUMN "role" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "scim_groups" DROP COLUMN "display_name"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "scim_groups_space_role_key" ON "scim_groups" ("space_id", "role")`,
    );
    await queryRunner.query(
      `ALTER TABLE "scim_groups" ADD CONSTRAINT "scim_groups_space_fk" FOREIGN KEY ("space_id") REFERENCES "spaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`DROP TABLE "scim_group_role_mappings"`);
    await queryRunner.query(`DROP TABLE "scim_group_members"`);
    await queryRunner.query(`ALTER TABLE "space_memberships" DROP COLUMN "direct_role"`);
  }
}
