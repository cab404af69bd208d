import { MigrationInterface, QueryRunner } from 'typeorm';

export class NotificationTotals1795322195955 implements MigrationInterface {
  name = 'NotificationTotals1795322195955';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."notifications_user_type_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."notifications_user_created_idx"`);
    await queryRunner.query(`ALTER TABLE "notification_counters" ADD "total" integer NOT NULL DEFAULT '0'`);
    // Counters written before this column existed get their totals from the rows.
    await queryRunner.query(
      `UPDATE "notification_counters" c SET "total" = (SELECT count(*) FROM "notifications" n WHERE n.user_id = c.user_id AND n.type = c.type)`,
    );
    await queryRunner.query(
      `CREATE INDEX "notifications_user_unread_created_idx" ON "notifications"  ("user_id", "created_at", "id") WHERE read = false`,
    );
    await queryRunner.query(
      `CREATE INDEX "notifications_user_type_created_idx" ON "notifications"  ("user_id", "type", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "notifications_user_created_idx" ON "notifications"  ("user_id", "created_at", "id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."notifications_user_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."notifications_user_type_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."notifications_user_unread_created_idx"`);
    await queryRunner.query(`ALTER TABLE "notification_counters" DROP COLUMN "total"`);
    await queryRunner.query(
      `CREATE INDEX "notifications_user_created_idx" ON "notifications" USING btree ("user_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "notifications_user_type_created_idx" ON "notifications" USING btree ("user_id", "type", "created_at") `,
    );
  }
}
