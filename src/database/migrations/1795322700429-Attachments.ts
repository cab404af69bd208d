import { MigrationInterface, QueryRunner } from 'typeorm';

export class Attachments1795322700429 implements MigrationInterface {
  name = 'Attachments1795322700429';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "attachments" ("id" uuid NOT NULL, "space_id" uuid NOT NULL, "parent_type" text NOT NULL, "parent_id" uuid NOT NULL, "product_id" uuid, "ticket_id" uuid, "comment_id" uuid, "storage_key" text NOT NULL, "file_name" text NOT NULL, "file_size" integer NOT NULL, "mime_type" text NOT NULL, "uploaded_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5e1f050bcff31e3084a1d662412" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "attachments_orphans_idx" ON "attachments"  ("created_at") WHERE product_id IS NULL AND ticket_id IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "attachments_storage_key_key" ON "attachments"  ("storage_key") `,
    );
    await queryRunner.query(`CREATE INDEX "attachments_uploaded_by_idx" ON "attachments"  ("uploaded_by") `);
    await queryRunner.query(`CREATE INDEX "attachments_comment_idx" ON "attachments"  ("comment_id") `);
    await queryRunner.query(
      `CREATE INDEX "attachments_ticket_idx" ON "attachments"  ("ticket_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "attachments_product_idx" ON "attachments"  ("product_id", "created_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "attachments" ADD CONSTRAINT "attachments_product_fk" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "attachments" ADD CONSTRAINT "attachments_uploaded_by_fk" FOREIGN KEY ("uploaded_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "attachments" DROP CONSTRAINT "attachments_uploaded_by_fk"`);
    await queryRunner.query(`ALTER TABLE "attachments" DROP CONSTRAINT "attachments_product_fk"`);
    await queryRunner.query(`DROP INDEX "public"."attachments_product_idx"`);
    await queryRunner.query(`DROP INDEX "public"."attachments_ticket_idx"`);
    await queryRunner.query(`DROP INDEX "public"."attachments_comment_idx"`);
    await queryRunner.query(`DROP INDEX "public"."attachments_uploaded_by_idx"`);
    await queryRunner.query(`DROP INDEX "public"."attachments_storage_key_key"`);
    await queryRunner.query(`DROP INDEX "public"."attachments_orphans_idx"`);
    await queryRunner.query(`DROP TABLE "attachments"`);
  }
}
