import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `notification_counters` spread over shards like `product_counts` (issue 28):
 * a user's count of a type is the sum of its rows, and a write moves the shard
 * of its connection, so concurrent notifications to one user (a busy
 * assignee, an admin told of every request) do not queue on one row that the
 * notifying transaction holds until it commits. The existing row of each
 * (user, type) becomes its shard 0.
 */
export class NotificationCounterShards1797500000000 implements MigrationInterface {
  name = 'NotificationCounterShards1797500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "notification_counters" ADD "shard" smallint NOT NULL DEFAULT 0`);
    await queryRunner.query(`ALTER TABLE "notification_counters" ALTER COLUMN "shard" DROP DEFAULT`);
    await queryRunner.query(
      `ALTER TABLE "notification_counters" DROP CONSTRAINT "PK_7628156f69eec6a8ff48cb3a792"`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_counters" ADD CONSTRAINT "notification_counters_pkey" PRIMARY KEY ("user_id", "type", "shard")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "notification_counters" DROP CONSTRAINT "notification_counters_pkey"`,
    );
    // Back to one row per (user, type), holding the sum of its shards.
    await queryRunner.query(
      `UPDATE "notification_counters" c SET unread = GREATEST(0, s.unread), total = s.total
         FROM (SELECT user_id, type, min(shard) AS keep, sum(unread)::int AS unread, sum(total)::int AS total
                 FROM "notification_counters" GROUP BY user_id, type) s
        WHERE c.user_id = s.user_id AND c.type = s.type AND c.shard = s.keep`,
    );
    await queryRunner.query(
      `DELETE FROM "notification_counters" c
         USING (SELECT user_id, type, min(shard) AS keep FROM "notification_counters" GROUP BY user_id, type) s
        WHERE c.user_id = s.user_id AND c.type = s.type AND c.shard <> s.keep`,
    );
    await queryRunner.query(`ALTER TABLE "notification_counters" DROP COLUMN "shard"`);
    await queryRunner.query(
      `ALTER TABLE "notification_counters" ADD CONSTRAINT "PK_7628156f69eec6a8ff48cb3a792" PRIMARY KEY ("user_id", "type")`,
    );
  }
}
