import { MigrationInterface, QueryRunner } from 'typeorm';

// DEFAULT_INSTANCE_ID of src/database/instance-ids.ts, written out: a migration never changes.
const DEFAULT_INSTANCE_ID = '00000000-0000-4000-8000-000000000000';

export class Instances1797000000000 implements MigrationInterface {
  name = 'Instances1797000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "instances" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "slug" text NOT NULL, "name" text NOT NULL, "database_url_sealed" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_11862209053330b4765f7f54178" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "instances_created_at_idx" ON "instances"  ("created_at", "id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "instances_slug_key" ON "instances"  ("slug") `);
    await queryRunner.query(
      `CREATE TABLE "instance_memberships" ("instance_id" uuid NOT NULL, "user_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_fa62fedce862c69ac52ae422b89" PRIMARY KEY ("instance_id", "user_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "instance_memberships_user_idx" ON "instance_memberships"  ("user_id") `,
    );
    // `default` is the deployment's own database; everything that existed before instances belongs to it.
    await queryRunner.query(
      `INSERT INTO "instances" ("id", "slug", "name") VALUES ($1, 'default', 'Default')`,
      [DEFAULT_INSTANCE_ID],
    );
    for (const table of ['sessions', 'api_keys']) {
      await queryRunner.query(
        `ALTER TABLE "${table}" ADD "instance_id" uuid NOT NULL DEFAULT '${DEFAULT_INSTANCE_ID}'`,
      );
      // Only the backfill needs the default: new rows always name their instance.
      await queryRunner.query(`ALTER TABLE "${table}" ALTER COLUMN "instance_id" DROP DEFAULT`);
    }
    await queryRunner.query(
      `ALTER TABLE "sessions" ADD CONSTRAINT "sessions_instance_fk" FOREIGN KEY ("instance_id") REFERENCES "instances"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_instance_fk" FOREIGN KEY ("instance_id") REFERENCES "instances"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "instance_memberships" ADD CONSTRAINT "instance_memberships_instance_fk" FOREIGN KEY ("instance_id") REFERENCES "instances"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "instance_memberships" ADD CONSTRAINT "instance_memberships_user_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "instance_memberships" DROP CONSTRAINT "instance_memberships_user_fk"`,
    );
    await queryRunner.query(
      `ALTER TABLE "instance_memberships" DROP CONSTRAINT "instance_memberships_instance_fk"`,
    );
    await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_instance_fk"`);
    await queryRunner.query(`ALTER TABLE "sessions" DROP CONSTRAINT "sessions_instance_fk"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "instance_id"`);
    await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "instance_id"`);
    await queryRunner.query(`DROP INDEX "public"."instance_memberships_user_idx"`);
    await queryRunner.query(`DROP TABLE "instance_memberships"`);
    await queryRunner.query(`DROP INDEX "public"."instances_slug_key"`);
    await queryRunner.query(`DROP INDEX "public"."instances_created_at_idx"`);
    await queryRunner.query(`DROP TABLE "instances"`);
  }
}
