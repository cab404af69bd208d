import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Writes without a hot row (issue 28).
 *
 * - `product_counts` is spread over shards like `quality_incident_counts`:
 *   a space's count is the sum of its rows, a product write moves one random
 *   shard, so concurrent creates in one space do not queue on one row. The
 *   existing row of each space becomes its shard 0.
 * - An insert into `outbox_events` notifies the wakeup channel from a
 *   statement trigger: once per transaction (PostgreSQL folds equal
 *   notifications), on commit, with no statement of its own.
 */
export class ContentionFreeWrites1797400000000 implements MigrationInterface {
  name = 'ContentionFreeWrites1797400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "product_counts" ADD "shard" smallint NOT NULL DEFAULT 0`);
    await queryRunner.query(`ALTER TABLE "product_counts" ALTER COLUMN "shard" DROP DEFAULT`);
    await queryRunner.query(`ALTER TABLE "product_counts" DROP CONSTRAINT "PK_5a80fbf5514e865ac702c50060b"`);
    await queryRunner.query(
      `ALTER TABLE "product_counts" ADD CONSTRAINT "product_counts_pkey" PRIMARY KEY ("space_id", "shard")`,
    );
    await queryRunner.query(
      `CREATE FUNCTION "outbox_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('verity_wakeup', 'outbox');
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "outbox_events_notify" AFTER INSERT ON "outbox_events"
         FOR EACH STATEMENT EXECUTE FUNCTION "outbox_events_notify"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "outbox_events_notify" ON "outbox_events"`);
    await queryRunner.query(`DROP FUNCTION "outbox_events_notify"()`);
    await queryRunner.query(`ALTER TABLE "product_counts" DROP CONSTRAINT "product_counts_pkey"`);
    // Back to one row per space, holding the sum of its shards.
    await queryRunner.query(
      `UPDATE "product_counts" c SET total = s.total
         FROM (SELECT space_id, min(shard) AS keep, sum(total)::int AS total FROM "product_counts" GROUP BY space_id) s
        WHERE c.space_id = s.space_id AND c.shard = s.keep`,
    );
    await queryRunner.query(
      `DELETE FROM "product_counts" c
         USING (SELECT space_id, min(shard) AS keep FROM "product_counts" GROUP BY space_id) s
        WHERE c.space_id = s.space_id AND c.shard <> s.keep`,
    );
    await queryRunner.query(`ALTER TABLE "product_counts" DROP COLUMN "shard"`);
    await queryRunner.query(
      `ALTER TABLE "product_counts" ADD CONSTRAINT "PK_5a80fbf5514e865ac702c50060b" PRIMARY KEY ("space_id")`,
    );
  }
}
